// readFileBytes: a whole file in parts, for `cuzk bench --witness` (readFileSync refuses files over 2 GiB, and
// a 2^26-wire witness is 2 GiB + 76 bytes): parts reassemble in order; a sparse file past 2 GiB reads whole
// (its holes cost no disk); a missing file is E_NOT_FOUND naming it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { readFileBytes } from '../../src/cli/file-bytes.js';
import { useTmpDir } from '../helpers/tmp.js';

describe('readFileBytes', () => {
  const dir = useTmpDir('cuzk-filebytes-');

  it('reads a file in parts, in order', () => {
    const file = path.join(dir(), 'w.wtns');
    const bytes = new Uint8Array(100).map((_, i) => (i * 37 + 1) & 0xff);
    fs.writeFileSync(file, bytes);
    assert.deepEqual(readFileBytes(file, 'witness', 7), bytes);
    fs.writeFileSync(file, new Uint8Array(0));
    assert.equal(readFileBytes(file, 'witness').length, 0);
  });

  it('reads a file past 2 GiB (a 2^26-wire witness: 2^31 + 76 bytes), which readFileSync refuses', () => {
    const file = path.join(dir(), 'big.wtns');
    const size = 2 ** 31 + 76;
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, new Uint8Array([1, 2, 3]), 0, 3, 0);
    fs.writeSync(fd, new Uint8Array([7, 8, 9]), 0, 3, size - 3);
    fs.closeSync(fd);
    assert.throws(() => fs.readFileSync(file), { code: 'ERR_FS_FILE_TOO_LARGE' });
    const got = readFileBytes(file, 'witness');
    assert.equal(got.length, size);
    assert.deepEqual([...got.subarray(0, 4), ...got.subarray(size - 4)], [1, 2, 3, 0, 0, 7, 8, 9]);
  });

  it('a missing file is E_NOT_FOUND naming the file and what it is', () => {
    const file = path.join(dir(), 'none.wtns');
    assert.throws(() => readFileBytes(file, 'witness'), (e: Error & { code?: string }) =>
      e.code === 'E_NOT_FOUND' && e.message === `${file}: cannot read the witness file (ENOENT)`);
  });
});
