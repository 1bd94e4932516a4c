// WitnessSpool / SpoolWriter on their own: whatever the chunking (socket-sized pieces copied into
// batches, big owned buffers moved as they are, a mix that crosses batch boundaries), the spool file
// holds exactly the bytes sent, its sha256 is theirs, and a refused or aborted write leaves no file.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BN128 } from '../../src/formats/curves.js';
import { encodeWtns } from '../../src/formats/wtns.js';
import { createLogger } from '../../src/log.js';
import { WitnessSpool, type KeyShape } from '../../src/server/intake/spool.js';

const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-spool-'));
const spool = new WitnessSpool(path.join(dir, 'spool'), 60_000, createLogger('silent'));
after(() => {
  spool.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A .wtns of `n` values (distinct, below r), and the key shape it matches. */
function witness(n: number): { bytes: Uint8Array; key: KeyShape } {
  const values = Array.from({ length: n }, (_, i) => (BigInt(i) * 0x9e3779b97f4a7c15n * 0x1234567n) % BN128.r);
  return { bytes: encodeWtns(BN128.r, values), key: { id: 'k', curve: 'bn128', r: BN128.r, nVars: n } };
}

/** `bytes` cut into pieces of the given sizes (cycled), each its own buffer when `own`. */
function pieces(bytes: Uint8Array, sizes: number[], own: boolean): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let o = 0, i = 0; o < bytes.length; i++) {
    const n = Math.min(sizes[i % sizes.length]!, bytes.length - o);
    out.push(own ? bytes.slice(o, o + n) : bytes.subarray(o, o + n));
    o += n;
  }
  return out;
}

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('WitnessSpool', () => {
  before(() => spool.open(new Set()));
  const { bytes, key } = witness(110_001); // 3.4 MiB: several 1 MiB batches and a partial last one
  const cases: [string, number[], boolean][] = [
    ['socket-sized chunks, copied into batches', [65536], false],
    ['odd sizes across batch boundaries', [1, 4093, 70_000, 1_000_003, 333], false],
    ['owned 1 MiB messages, moved as they are', [1 << 20], true],
    ['owned, small and big mixed (big ones after a partial batch are copied)', [100, 1 << 20, 600_000, 7], true],
  ];
  for (const [what, sizes, own] of cases) {
    it(`stores exactly the bytes sent: ${what}`, async () => {
      const w = spool.writer(key, bytes.length, 'test.wtns', own);
      for (const p of pieces(bytes, sizes, own)) await w.write(p);
      const file = await w.finish();
      assert.equal(file.size, bytes.length);
      assert.equal(file.sha256, sha(bytes));
      assert.deepEqual([file.layout!.header.nWitness, file.layout!.valuesOffset, file.layout!.totalBytes], [110_001, 76, bytes.length], 'the header read from the first bytes, for the engine');
      const stored = readFileSync(file.path);
      assert.ok(Buffer.from(bytes).equals(stored), 'file bytes differ from the bytes sent');
      assert.equal(statSync(file.path).mode & 0o777, 0o600);
      await spool.release([file]);
    });
  }

  it('bytes beyond the announced size are refused, and abort() leaves no file', async () => {
    const w = spool.writer(key, bytes.length, 'long.wtns');
    await w.write(bytes.subarray(0, 2_000_000));
    await assert.rejects(w.write(bytes.subarray(0, bytes.length)), /more than the \d+ bytes announced/);
    await w.abort();
    assert.deepEqual(readdirSync(spool.dir), []);
  });

  it('a short upload is refused at finish() and leaves no file after abort()', async () => {
    const w = spool.writer(key, bytes.length, 'short.wtns');
    await w.write(bytes.subarray(0, bytes.length - 5));
    await assert.rejects(w.finish(), /ended after \d+ of \d+ bytes/);
    await w.abort();
    assert.deepEqual(readdirSync(spool.dir), []);
  });
});
