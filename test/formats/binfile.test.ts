// The snarkjs container: round trips (file and memory, sync and async, caller buffers) and every error path.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { BinFile, encodeBinFile, writeBinFile } from '../../src/formats/binfile.js';
import { useTmpDir } from '../helpers/tmp.js';

function throwsCode(fn: () => unknown, code: string, ...parts: string[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CuzkError, `expected a CuzkError, got ${String(err)}`);
    assert.equal(err.code, code);
    for (const p of parts) assert.ok(err.message.includes(p), `${JSON.stringify(err.message)} lacks ${JSON.stringify(p)}`);
    return true;
  });
}

const SPEC = { magic: 'test', versions: [1, 2] };
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);
const SECTIONS = [
  { type: 2, bytes: bytes(100, 1) },
  { type: 1, bytes: bytes(12, 2) },
  { type: 7, bytes: new Uint8Array(0) },
  { type: 3, bytes: bytes(5000, 3) },
];

describe('binfile', () => {
  const tmp = useTmpDir();
  const write = (name: string, data: Uint8Array) => {
    const p = path.join(tmp(), name);
    fs.writeFileSync(p, data);
    return p;
  };

  it('round-trips through writeBinFile and open, keeping the on-disk order', async () => {
    const p = path.join(tmp(), 'a.bin');
    writeBinFile(p, 'test', 2, SECTIONS);
    assert.deepEqual(fs.readFileSync(p), Buffer.from(encodeBinFile('test', 2, SECTIONS)));
    const f = BinFile.open(p, SPEC);
    try {
      assert.equal(f.version, 2);
      assert.deepEqual([...f.sections.values()].map((s) => s.type), [2, 1, 7, 3]);
      for (const s of SECTIONS) {
        assert.deepEqual(f.readSection(s.type), s.bytes);
        assert.deepEqual(await f.readSectionAsync(s.type), s.bytes);
      }
      assert.deepEqual(f.readRange(3, 10, 20), SECTIONS[3].bytes.subarray(10, 30));
      assert.equal(f.section(3).offset, 12 + 12 + 100 + 12 + 12 + 12 + 12);
    } finally {
      f.close();
    }
  });

  it('reads into a caller buffer without allocating, and rejects a short one', async () => {
    const f = BinFile.open(write('b.bin', encodeBinFile('test', 1, SECTIONS)), SPEC);
    try {
      const into = new Uint8Array(6000).fill(0xee);
      const got = f.readSection(3, into);
      assert.equal(got.buffer, into.buffer);
      assert.equal(got.length, 5000);
      assert.deepEqual(got, SECTIONS[3].bytes);
      assert.equal(into[5000], 0xee);
      const asyncInto = new Uint8Array(5000);
      assert.equal((await f.readSectionAsync(3, asyncInto)).buffer, asyncInto.buffer);
      assert.deepEqual(asyncInto, SECTIONS[3].bytes);
      throwsCode(() => f.readSection(3, new Uint8Array(4999)), 'E_INVALID_ARG', 'b.bin', '5000', '4999');
      throwsCode(() => f.readRange(3, 4990, 20), 'E_INVALID_ARG', 'outside');
    } finally {
      f.close();
    }
    throwsCode(() => f.readSection(1), 'E_INVALID_ARG', 'after close');
  });

  it('fromBytes returns views of the caller image and copies into a given buffer', () => {
    const image = encodeBinFile('test', 1, SECTIONS);
    const f = BinFile.fromBytes(image, 'mem.bin', SPEC);
    const v = f.readSection(2);
    assert.equal(v.buffer, image.buffer);
    assert.deepEqual(v, SECTIONS[0].bytes);
    const into = new Uint8Array(100);
    f.readSection(2, into);
    assert.deepEqual(into, SECTIONS[0].bytes);
  });

  it('rejects a wrong magic and an unsupported version, naming the file', () => {
    const image = encodeBinFile('test', 1, SECTIONS);
    throwsCode(() => BinFile.open(write('m.bin', image), { magic: 'zkey', versions: [1] }), 'E_FORMAT', 'm.bin', 'not a zkey file (it does not start with "zkey")');
    const binary = image.slice();
    binary.set([0, 1, 2, 0xff], 0);
    throwsCode(() => BinFile.open(write('m2.bin', binary), SPEC), 'E_FORMAT', 'm2.bin', 'not a test file');
    throwsCode(() => BinFile.open(write('v.bin', encodeBinFile('test', 3, SECTIONS)), SPEC), 'E_FORMAT', 'v.bin', 'version 3', 'expected 1 or 2');
  });

  it('never quotes the bytes of a file it refuses (a daemon would leak them to clients)', () => {
    const secret = new TextEncoder().encode('root:$6$hash:19000:0:99999:7:::\n');
    for (const [name, bytes] of [['s1.bin', secret], ['s2.bin', new Uint8Array([0, 1, 2, 0xff, 9, 9, 9, 9, 9, 9, 9, 9])]] as const) {
      assert.throws(() => BinFile.open(write(name, bytes), SPEC), (err: unknown) => {
        assert.ok(err instanceof CuzkError && err.code === 'E_FORMAT', String(err));
        for (const leak of ['root', '"root"', '0x000102ff', '000102', 'hash']) assert.ok(!err.message.replace(tmp(), '').includes(leak), `${JSON.stringify(err.message)} quotes ${leak}`);
        return true;
      });
    }
  });

  it('rejects the file truncated at every byte', () => {
    const image = encodeBinFile('test', 1, SECTIONS.slice(0, 3));
    const p = path.join(tmp(), 'cut.bin');
    for (let cut = 0; cut < image.length; cut++) {
      fs.writeFileSync(p, image.subarray(0, cut));
      throwsCode(() => BinFile.open(p, SPEC), 'E_FORMAT', 'cut.bin');
    }
    fs.writeFileSync(p, image.subarray(0, 60));
    throwsCode(() => BinFile.open(p, SPEC), 'E_FORMAT', 'truncated', 'section 2', 'declares 100 bytes at byte 24', '36 remain');
    fs.writeFileSync(p, image.subarray(0, 30));
    throwsCode(() => BinFile.open(p, SPEC), 'E_FORMAT', 'truncated', 'declares 3 sections');
    fs.writeFileSync(p, image.subarray(0, 5));
    throwsCode(() => BinFile.open(p, SPEC), 'E_FORMAT', '5 bytes', 'needs 12');
  });

  it('rejects a section count that the file cannot hold', () => {
    const image = encodeBinFile('test', 1, SECTIONS);
    new DataView(image.buffer).setUint32(8, 0xffffffff, true);
    throwsCode(() => BinFile.open(write('n.bin', image), SPEC), 'E_FORMAT', 'n.bin', '4294967295 sections, the limit is 1024');
    new DataView(image.buffer).setUint32(8, 1000, true);
    throwsCode(() => BinFile.open(write('n.bin', image), SPEC), 'E_FORMAT', 'n.bin', '1000 sections, which need at least 12012 bytes');
  });

  it('rejects a 2^40-byte section size before allocating anything', () => {
    const image = encodeBinFile('test', 1, SECTIONS);
    new DataView(image.buffer).setBigUint64(12 + 4, 1n << 40n, true);
    throwsCode(() => BinFile.open(write('big.bin', image), SPEC), 'E_FORMAT', 'big.bin', 'section 2', '1099511627776 bytes');
  });

  it('rejects a duplicate section and reports a missing one with the sections present', () => {
    const dup = encodeBinFile('test', 1, [...SECTIONS, { type: 1, bytes: bytes(3, 9) }]);
    throwsCode(() => BinFile.open(write('dup.bin', dup), SPEC), 'E_FORMAT', 'dup.bin', 'section 1 appears twice', 'entries 2 and 5');
    const f = BinFile.fromBytes(encodeBinFile('test', 1, SECTIONS), 'x.bin', SPEC);
    throwsCode(() => f.readSection(9), 'E_FORMAT', 'x.bin: test section 9 is missing', '1, 2, 3, 7');
  });

  it('ignores bytes after the last section, as binfileutils does', () => {
    const image = encodeBinFile('test', 1, SECTIONS);
    const padded = new Uint8Array(image.length + 7);
    padded.set(image);
    assert.deepEqual(BinFile.fromBytes(padded, 'pad.bin', SPEC).readSection(1), SECTIONS[1].bytes);
  });

  it('maps open failures to InputError codes', () => {
    throwsCode(() => BinFile.open(path.join(tmp(), 'nope.bin'), SPEC), 'E_NOT_FOUND', 'nope.bin');
    throwsCode(() => BinFile.open(tmp(), SPEC), 'E_INVALID_ARG', tmp());
  });

  it('refuses to write a bad magic or section type', () => {
    throwsCode(() => encodeBinFile('toolong', 1, []), 'E_INVALID_ARG', 'magic');
    throwsCode(() => encodeBinFile('test', 1, [{ type: -1, bytes: new Uint8Array(0) }]), 'E_INVALID_ARG', 'u32');
  });
});
