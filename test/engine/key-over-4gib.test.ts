// A key with a section past 4 GiB loads, its sections hold the right bytes past the 4 GiB mark, and
// it proves: a synthetic BN254 key whose B2 section has 2^25 + 16 points (4 GiB + 2 KiB), built from
// the poseidon vector key with nVars raised. The added wires are unconstrained (their points are the
// point at infinity: holes of a sparse file, so the disk and memory it costs are small) except the 17
// wires around B2's 4 GiB mark (FAR), each a copy of one private wire K of the circuit: its points
// in A, B1, B2 and C and its coefficient records. A witness that moves part of w_K onto the FAR
// wires satisfies the same constraints, so its proof verifies only if the points past the mark are
// read, checked and used as the file has them. The load leaves the holes unread (a fresh mapping is
// zeros already): the check that the process grew by under 1 GiB for a 10 GiB key is that design,
// and where the temporary directory's file system reports no holes the suite skips, saying so,
// rather than hold 10 GiB (the hole skipping itself is test/ffi/key-read.test.ts's to fail).
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { proveWithKey } from '../../src/engine/prover.js';
import { ProvingKey } from '../../src/engine/proving-key.js';
import { createEngine } from '../../src/index.js';
import { curveByName } from '../../src/formats/curves.js';
import { leToBigint, scalarToLe } from '../../src/formats/lem.js';
import { proofToJson, publicToJson } from '../../src/formats/proof-json.js';
import { WtnsFile } from '../../src/formats/wtns.js';
import { ZkeyFile, ZKEY_SECTION } from '../../src/formats/zkey.js';
import { readFileChecked } from '../../src/ffi/key-read.js';
import { NativeBuffer } from '../../src/ffi/native-buffer.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { readJson, vectorFile, vectorSets } from '../helpers/vectors.js';

const G1 = 64;
const G2 = 128;
const RECORD = 44;
const N_VARS = 2 ** 25 + 16;
const FOUR_GIB = 2 ** 32;
/** The copies of wire K: the B2 point that ends at the 4 GiB mark, and the 16 past it. */
const FAR = Array.from({ length: 17 }, (_, k) => 2 ** 25 - 1 + k);
const r = curveByName('bn128')!.r;

const set = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
let dir: string;
let zkeyPath: string;
/** Where B2's points start in the synthetic file; K; the B2 point every FAR wire has (K's). */
let b2At: number;
let wireK: number;
let pointB2K: Buffer;

/** The synthetic key: the vector's sections 1-3, 4 with K's records copied to each FAR wire, and 5-9
 * sized for N_VARS: the vector's points first, K's at FAR, holes elsewhere. */
function writeSyntheticKey(file: string): void {
  const src = vectorFile(set, 'circuit.zkey');
  const bytes = readFileSync(src);
  const z = ZkeyFile.open(src);
  const h = z.header;
  const raw = (s: { offset: number; size: number }) => Buffer.from(bytes.subarray(s.offset, s.offset + s.size));
  const section = (name: 'A' | 'B1' | 'B2' | 'C' | 'H') => Buffer.from(bytes.subarray(z.sectionPosition(name), z.sectionPosition(name) + z.sectionBytes(name)));
  const vec = { A: section('A'), B1: section('B1'), B2: section('B2'), C: section('C'), H: section('H') };
  const records = Buffer.from(bytes.subarray(z.sectionPosition('coefs'), z.sectionPosition('coefs') + z.sectionBytes('coefs')));
  z.close();
  // K: a private wire (so it has a C point) in both matrices, its B2 point a real one
  const signals = (m: number) => new Set(Array.from({ length: h.nCoefs }, (_, i) => i).filter((i) => records.readUInt32LE(i * RECORD) === m).map((i) => records.readUInt32LE(i * RECORD + 8)));
  const inB = signals(1);
  wireK = [...signals(0)].find((s) => s > h.nPublic && inB.has(s) && vec.B2.subarray(s * G2, (s + 1) * G2).some((x) => x !== 0))!;
  assert.ok(wireK !== undefined, 'the vector has a private wire in A and B');
  const point = (b: Buffer, i: number, size: number) => b.subarray(i * size, (i + 1) * size);
  pointB2K = Buffer.from(point(vec.B2, wireK, G2));
  // each of K's records followed by its copies, so the records stay in constraint order
  const all = Array.from({ length: h.nCoefs }, (_, i) => records.subarray(i * RECORD, (i + 1) * RECORD)).flatMap((rec) =>
    rec.readUInt32LE(8) !== wireK ? [rec] : [rec, ...FAR.map((j) => {
      const c = Buffer.from(rec);
      c.writeUInt32LE(j, 8);
      return c;
    })]);
  const coefs = Buffer.concat([Buffer.alloc(4), ...all]);
  coefs.writeUInt32LE(all.length, 0);
  const groth16 = raw(h.sections.groth16);
  groth16.writeUInt32LE(N_VARS, 4 + 32 + 4 + 32); // n8q, q, n8r, r, then nVars
  const privateAt = (i: number) => i - h.nPublic - 1; // C holds the private wires' points
  // [type, bytes, the vector's points, a wire's point index in the section (undefined: H, not per wire), point bytes]
  const big: [number, number, Buffer, ((i: number) => number) | undefined, number][] = [
    [ZKEY_SECTION.A, N_VARS * G1, vec.A, (i) => i, G1],
    [ZKEY_SECTION.B1, N_VARS * G1, vec.B1, (i) => i, G1],
    [ZKEY_SECTION.B2, N_VARS * G2, vec.B2, (i) => i, G2],
    [ZKEY_SECTION.C, (N_VARS - h.nPublic - 1) * G1, vec.C, privateAt, G1],
    [ZKEY_SECTION.H, h.domainSize * G1, vec.H, undefined, G1],
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
    for (const [type, data] of [[1, raw(h.sections.header)], [2, groth16], [3, raw(h.sections.IC)], [4, coefs]] as const) {
      header(type, data.length);
      put(pos, data);
      pos += data.length;
    }
    for (const [type, size, points, index, item] of big) {
      header(type, size);
      if (type === ZKEY_SECTION.B2) b2At = pos;
      put(pos, points);
      if (index) for (const j of FAR) put(pos + index(j) * item, point(points, index(wireK), item));
      pos += size;
    }
    ftruncateSync(fd, pos);
  } finally {
    closeSync(fd);
  }
}

/** The vector's witness for N_VARS wires: x_j = j on each FAR wire, w_K less their sum (the same constraints hold). */
function farWitness(): Uint8Array {
  const w = WtnsFile.open(vectorFile(set, 'witness.wtns'));
  const small = w.readWitness();
  w.close();
  const out = new Uint8Array(N_VARS * 32); // untouched pages (the zero wires) cost nothing
  out.set(small);
  let k = leToBigint(out, 32 * wireK, 32);
  for (const j of FAR) {
    out.set(scalarToLe(BigInt(j)), 32 * j);
    k -= BigInt(j);
  }
  out.set(scalarToLe(((k % r) + r) % r), 32 * wireK);
  return out;
}

/** Why the holes of a sparse file in `at` would be copied (then the 10 GiB key would be held in
 * memory, past what a test may take), or undefined: a probe file read as the key loader reads. */
async function holesNotSkipped(at: string): Promise<string | undefined> {
  const probe = path.join(at, 'probe.bin');
  const fd = openSync(probe, 'w+');
  const into = NativeBuffer.allocMapped(16 << 20);
  try {
    writeSync(fd, Buffer.alloc(G1, 1), 0, G1, (16 << 20) - G1);
    into.view(0, 1)[0] = 0xab; // left as it is only if the hole is not read
    await readFileChecked(fd, 'bn128', { domainSize: 1, nVars: 1 }, [{ fileOffset: 0, bytes: 16 << 20, into, check: 'raw', zeroed: true }]);
    return into.view(0, 1)[0] === 0xab ? undefined : `${at} does not report holes (SEEK_DATA): the sparse key would be read whole`;
  } finally {
    into.release();
    closeSync(fd);
  }
}

let skip: string | undefined;
before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'cuzk-4gib-'));
  skip = await holesNotSkipped(dir);
  if (skip) return;
  zkeyPath = path.join(dir, 'b2-over-4gib.zkey');
  writeSyntheticKey(zkeyPath);
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await terminateSnarkjs();
});

describe('a key with a section over 4 GiB', () => {
  it('loads, and its B2 points past the 4 GiB mark are the ones in the file', async (t) => {
    if (skip) return t.skip(skip);
    const rss0 = process.memoryUsage().rss;
    const key = await ProvingKey.load(zkeyPath);
    try {
      const rssGrowth = process.memoryUsage().rss - rss0;
      assert.equal(key.header.nVars, N_VARS);
      const b2 = key.native.parts.pointsB2;
      assert.equal(b2.byteLength, N_VARS * G2);
      assert.ok(b2.byteLength > FOUR_GIB, 'the section is past 4 GiB');
      assert.ok(key.bytes > 10 * 2 ** 30, `the key holds ${key.bytes} bytes`);
      for (const i of FAR) assert.deepEqual(Buffer.from(b2.view(i * G2, G2)), pointB2K, `B2 point ${i} (bytes ${i * G2}..${(i + 1) * G2}, the mark at ${FOUR_GIB})`);
      assert.deepEqual(Buffer.from(b2.view(b2.byteLength - G2, G2)), pointB2K, 'the last point is the section\'s last bytes');
      assert.deepEqual(Buffer.from(b2.view(2 ** 24 * G2, G2)), Buffer.alloc(G2), 'a hole reads as the point at infinity');
      assert.ok(rssGrowth < 2 ** 30, `a ${key.bytes}-byte sparse key grew the process by ${rssGrowth} bytes: the holes were copied`);
    } finally {
      key.release();
    }
  });

  it('proves on the CPU core with a witness on the wires past the mark; cuzk and snarkjs accept the proof', async (t) => {
    if (skip) return t.skip(skip);
    const key = await ProvingKey.load(zkeyPath);
    try {
      const res = await proveWithKey(key, farWitness()); // verified before it returns (E_PROOF_INVALID otherwise)
      assert.deepEqual(publicToJson(res.publicSignals), readJson(set, 'public.json'));
      assert.equal(await snarkjsVerify(readJson(set, 'vkey.json'), publicToJson(res.publicSignals), proofToJson(res.proof)), true);
    } finally {
      key.release();
    }
  });

  it('the proof rests on the points past the mark: one of them made the point at infinity (a good point) fails it', async (t) => {
    if (skip) return t.skip(skip);
    const at = b2At + (2 ** 25 + 5) * G2;
    const fd = openSync(zkeyPath, 'r+');
    try {
      writeSync(fd, Buffer.alloc(G2), 0, G2, at);
      const key = await ProvingKey.load(zkeyPath);
      try {
        await assert.rejects(proveWithKey(key, farWitness()), (e: unknown) => e instanceof CuzkError && e.code === 'E_PROOF_INVALID');
      } finally {
        key.release();
      }
    } finally {
      writeSync(fd, pointB2K, 0, G2, at);
      closeSync(fd);
    }
  });

  it('the engine loads it and takes a job of its witness size (1 GiB, a sparse file; checked, not proved)', async (t) => {
    if (skip) return t.skip(skip);
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
        Buffer.from(scalarToLe(r)).copy(head, 28);
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

  it('checks the points past the mark: a bad one there is E_FORMAT naming its index', async (t) => {
    if (skip) return t.skip(skip);
    const bad = 2 ** 25 + 9;
    const fd = openSync(zkeyPath, 'r+');
    try {
      const p = Buffer.from(pointB2K);
      p[0] ^= 1; // x changed: off the curve
      writeSync(fd, p, 0, G2, b2At + bad * G2);
    } finally {
      closeSync(fd);
    }
    await assert.rejects(ProvingKey.load(zkeyPath), (e: unknown) =>
      e instanceof CuzkError && e.code === 'E_FORMAT' && e.message.includes(`zkey section 7 (B2): point ${bad} `) && !e.message.includes('\n'));
  });
});
