// A key with a section past 4 GiB loads, and its sections hold the right bytes past the 4 GiB mark:
// a synthetic BN254 key whose B2 section has 2^25 + 16 points (4 GiB + 2 KiB), built from the vector
// key's header, IC and coefficients with nVars raised. The file is sparse: its big sections are holes
// (zeros: points at infinity, which are good points) but for real points at each section's far end,
// around the 4 GiB mark of B2, so the disk and memory it costs are small. The load leaves the holes
// unread (a fresh mapping is zeros already), which is what keeps this test's memory small by design:
// the check below that the process grew by under 1 GiB for a 10 GiB key is that design. The points
// past the mark are read back through windows of the mapping and compared; one of them made bad is
// E_FORMAT naming its index past 2^25, so they are checked as well as copied.
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { ProvingKey } from '../../src/engine/proving-key.js';
import { createEngine } from '../../src/index.js';
import { curveByName } from '../../src/formats/curves.js';
import { ZkeyFile, ZKEY_SECTION } from '../../src/formats/zkey.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const G1 = 64;
const G2 = 128;
const N_VARS = 2 ** 25 + 16;
const FOUR_GIB = 2 ** 32;
/** B2 points written at the far end: the one that ends at the 4 GiB mark, and the 16 past it. */
const FAR = Array.from({ length: 17 }, (_, k) => 2 ** 25 - 1 + k);

const set = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
let dir: string;
let zkeyPath: string;
/** Where B2's points start in the synthetic file, and the bytes written at each FAR index. */
let b2At: number;
const written = new Map<number, Buffer>();

/** The synthetic key: the vector's sections 1-4 (nVars patched), then 5-9 sized for N_VARS, sparse. */
function writeSyntheticKey(file: string): void {
  const src = vectorFile(set, 'circuit.zkey');
  const bytes = readFileSync(src);
  const z = ZkeyFile.open(src);
  const h = z.header;
  const take = (type: number) => {
    const s = type === 1 ? h.sections.header : type === 2 ? h.sections.groth16 : type === 3 ? h.sections.IC : h.sections.coefs;
    return Buffer.from(bytes.subarray(s.offset, s.offset + s.size));
  };
  // the vector's own points, to put where the synthetic sections end: real points, checked on load
  // (its nonzero ones: a wire absent from a matrix has the point at infinity there)
  const points = (name: 'A' | 'B2' | 'H', size: number) => {
    const at = z.sectionPosition(name);
    const all = Array.from({ length: z.sectionBytes(name) / size }, (_, k) => Buffer.from(bytes.subarray(at + k * size, at + (k + 1) * size)));
    const real = all.filter((p) => p.some((x) => x !== 0));
    return (k: number) => real[k % real.length]!;
  };
  const a = points('A', G1);
  const b2 = points('B2', G2);
  const hp = points('H', G1);
  z.close();
  const groth16 = take(2);
  groth16.writeUInt32LE(N_VARS, 4 + 32 + 4 + 32); // n8q, q, n8r, r, then nVars
  const big: [number, number, (at: number) => void][] = [
    [ZKEY_SECTION.A, N_VARS * G1, (at) => put(at + (N_VARS - 1) * G1, a(0))],
    [ZKEY_SECTION.B1, N_VARS * G1, () => {}],
    [ZKEY_SECTION.B2, N_VARS * G2, (at) => {
      b2At = at;
      // nonzero points only (the vector's first ones may be infinity), a different one at each index
      FAR.forEach((i, k) => {
        const p = b2(k);
        written.set(i, p);
        put(at + i * G2, p);
      });
    }],
    [ZKEY_SECTION.C, (N_VARS - h.nPublic - 1) * G1, () => {}],
    [ZKEY_SECTION.H, h.domainSize * G1, (at) => put(at + (h.domainSize - 1) * G1, hp(0))],
  ];
  const fd = openSync(file, 'w');
  let pos = 0;
  const put = (at: number, b: Uint8Array) => {
    for (let done = 0; done < b.length; ) done += writeSync(fd, b, done, b.length - done, at + done);
  };
  const header = (type: number, size: number) => {
    const s = Buffer.alloc(12);
    s.writeUInt32LE(type, 0);
    s.writeBigUInt64LE(BigInt(size), 4);
    put(pos, s);
    pos += 12;
  };
  try {
    const head = Buffer.alloc(12);
    head.write('zkey', 0, 'latin1');
    head.writeUInt32LE(1, 4);
    head.writeUInt32LE(4 + big.length, 8);
    put(0, head);
    pos = 12;
    for (const [type, data] of [[1, take(1)], [2, groth16], [3, take(3)], [4, take(4)]] as const) {
      header(type, data.length);
      put(pos, data);
      pos += data.length;
    }
    for (const [type, size, fill] of big) {
      header(type, size);
      fill(pos);
      pos += size;
    }
    ftruncateSync(fd, pos); // the holes to the end: H's last point is data, so this only checks the length
  } finally {
    closeSync(fd);
  }
}

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'cuzk-4gib-'));
  zkeyPath = path.join(dir, 'b2-over-4gib.zkey');
  writeSyntheticKey(zkeyPath);
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('a key with a section over 4 GiB', () => {
  it('loads, and its B2 points past the 4 GiB mark are the ones in the file', async () => {
    const rss0 = process.memoryUsage().rss;
    const key = await ProvingKey.load(zkeyPath);
    try {
      const rssGrowth = process.memoryUsage().rss - rss0;
      assert.equal(key.header.nVars, N_VARS);
      const b2 = key.native.parts.pointsB2;
      assert.equal(b2.byteLength, N_VARS * G2);
      assert.ok(b2.byteLength > FOUR_GIB, 'the section is past 4 GiB');
      assert.ok(key.bytes > 10 * 2 ** 30, `the key holds ${key.bytes} bytes`);
      for (const i of FAR) {
        const got = Buffer.from(b2.view(i * G2, G2));
        assert.ok(got.some((x) => x !== 0), `point ${i} is a real point`);
        assert.deepEqual(got, written.get(i), `B2 point ${i} (bytes ${i * G2}..${(i + 1) * G2}, the mark at ${FOUR_GIB})`);
      }
      // a hole reads as the point at infinity, and the last point is the section's last bytes
      assert.deepEqual(Buffer.from(b2.view(2 ** 24 * G2, G2)), Buffer.alloc(G2));
      assert.deepEqual(Buffer.from(b2.view(b2.byteLength - G2, G2)), written.get(N_VARS - 1));
      assert.ok(Buffer.from(key.native.parts.pointsA.view((N_VARS - 1) * G1, G1)).some((x) => x !== 0), 'A\'s last point');
      assert.ok(rssGrowth < 2 ** 30, `a ${key.bytes}-byte sparse key grew the process by ${rssGrowth} bytes: the holes were copied`);
    } finally {
      key.release();
    }
  });

  it('the engine loads it and takes a job of its witness size (1 GiB, a sparse file; checked, not proved)', async () => {
    const engine = await createEngine({ threads: 1 });
    try {
      const info = await engine.loadKey(zkeyPath, { id: 'big' });
      assert.equal(info.nVars, N_VARS);
      assert.ok(info.bytes > 10 * 2 ** 30, `${info.bytes} bytes`);
      const wtns = path.join(dir, 'big.wtns');
      const fd = openSync(wtns, 'w');
      try {
        const head = Buffer.alloc(12 + 12 + 40 + 12);
        head.write('wtns', 0, 'latin1');
        head.writeUInt32LE(2, 4);
        head.writeUInt32LE(2, 8);
        head.writeUInt32LE(1, 12);
        head.writeBigUInt64LE(40n, 16);
        head.writeUInt32LE(32, 24);
        Buffer.from(curveByName('bn128')!.r.toString(16).padStart(64, '0'), 'hex').reverse().copy(head, 28);
        head.writeUInt32LE(N_VARS, 60);
        head.writeUInt32LE(2, 64);
        head.writeBigUInt64LE(BigInt(N_VARS * 32), 68);
        writeSync(fd, head, 0, head.length, 0);
        ftruncateSync(fd, head.length + N_VARS * 32);
      } finally {
        closeSync(fd);
      }
      const checked = engine.check({ key: 'big', witnessFiles: [wtns] });
      assert.equal(checked.partitions, 1);
    } finally {
      await engine.close();
    }
  });

  it('checks the points past the mark: a bad one there is E_FORMAT naming its index', async () => {
    const bad = 2 ** 25 + 9;
    const fd = openSync(zkeyPath, 'r+');
    try {
      const p = Buffer.from(written.get(bad)!);
      p[0] ^= 1; // x changed: off the curve
      writeSync(fd, p, 0, G2, b2At + bad * G2);
    } finally {
      closeSync(fd);
    }
    await assert.rejects(ProvingKey.load(zkeyPath), (e: unknown) =>
      e instanceof CuzkError && e.code === 'E_FORMAT' && e.message.includes(`zkey section 7 (B2): point ${bad} `) && !e.message.includes('\n'));
  });
});
