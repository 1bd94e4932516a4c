// accumulateQap (native cuzk_r1cs_accumulate + cuzk_qap_combine) against BigInt: the per-wire sums for
// random row values, the coefficient records, windows down to 50 bytes (a refill inside almost every
// constraint), row values made in blocks that end inside windows, coefficients not below r; a wire out of range or a truncated section is E_FORMAT naming the file.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { BinWriter } from '../../src/dev/bin-writer.js';
import { devCircuit } from '../../src/dev/dev-circuit.js';
import { FrVec, inv } from '../../src/dev/field-bigint.js';
import { accumulateQap } from '../../src/dev/qap.js';
import { openR1cs } from '../../src/dev/r1cs-stream.js';
import { DevRng } from '../../src/dev/rng.js';
import { FIELD, FIELD_OP, fieldOp, qapCombine } from '../../src/ffi/native.js';
import { curveByName, type CurveName } from '../../src/formats/curves.js';
import { bigintToLe, leToBigint } from '../../src/formats/lem.js';
import { r1csConstraintAt, readR1cs } from '../../src/formats/r1cs.js';
import { useTmpDir } from '../helpers/tmp.js';

type Lc = Array<[number, Uint8Array]>;

/** An .r1cs with raw coefficient bytes (anything, even ≥ r) and wire ids (even ≥ nWires). */
function writeR1cs(file: string, curve: CurveName, nWires: number, constraints: Array<[Lc, Lc, Lc]>, truncate = 0): void {
  const w = BinWriter.create(file, 'r1cs', 1, 3);
  w.beginSection(1);
  w.u32(32);
  w.write(bigintToLe(curveByName(curve)!.r, 32));
  for (const v of [nWires, 1, 1, 0]) w.u32(v);
  w.u64(nWires);
  w.u32(constraints.length);
  w.endSection();
  w.beginSection(2);
  const body: number[] = [];
  for (const c of constraints) {
    for (const lc of c) {
      body.push(...new Uint8Array(new Uint32Array([lc.length]).buffer));
      for (const [wire, k] of lc) body.push(...new Uint8Array(new Uint32Array([wire]).buffer), ...k);
    }
  }
  w.write(new Uint8Array(body.slice(0, body.length - truncate)));
  w.endSection();
  w.beginSection(3);
  for (let i = 0; i < nWires; i++) w.u64(i);
  w.endSection();
  w.close();
}

/** accumulateQap over `rows` as the row values, read in windows of `chunkBytes`, the values made `rowBlock` at a time. */
function run(file: string, curve: CurveName, rows: bigint[], chunkBytes?: number, rowBlock?: number) {
  const { file: f, info } = openR1cs(file);
  const zk = BinWriter.create(`${file}.zkey`, 'zkey', 1, 1); // section 4 only
  try {
    const rowBytes = new FrVec(rows.length);
    rows.forEach((v, i) => rowBytes.set(i, v));
    const asked: Array<[number, number]> = [];
    const rowValues = (first: number, count: number, out: Uint8Array) => {
      asked.push([first, count]);
      out.set(rowBytes.subarray(first, first + count));
    };
    const res = { ...accumulateQap(zk, f, info, 2, rowValues, () => undefined, chunkBytes, rowBlock), asked };
    zk.close();
    return { ...res, info };
  } finally {
    f.close();
  }
}

for (const curve of ['bn128', 'bls12381'] as CurveName[]) {
  describe(`accumulateQap (${curve})`, () => {
    const dir = useTmpDir('cuzk-qap-');
    const r = curveByName(curve)!.r;
    const rng = new DevRng(`qap-${curve}`);

    it('matches BigInt sums and records for any window, and combines like the formula', async () => {
      const r1csPath = path.join(dir(), 'c.r1cs');
      await devCircuit({ constraints: 300, curve, r1csPath, wtnsPath: path.join(dir(), 'c.wtns'), seed: 4 });
      const r1cs = readR1cs(r1csPath);
      const nRows = 300 + 3;
      const rows = Array.from({ length: nRows }, () => rng.field(r));
      const nWires = r1cs.header.nWires;
      const want = [0, 1, 2].map(() => new Array<bigint>(nWires).fill(0n));
      const records: string[] = [];
      const r2 = (1n << 512n) % r;
      for (let i = 0; i < 300; i++) {
        r1csConstraintAt(r1cs.constraints, i).forEach((lc, m) => lc.forEach(([w, k]) => {
          want[m][w] = (want[m][w] + k * rows[i]) % r;
          if (m < 2) records.push(`${m}/${i}/${w}/${(k * r2) % r}`);
        }));
      }
      for (let s = 0; s <= 2; s++) {
        want[0][s] = (want[0][s] + rows[300 + s]) % r;
        records.push(`0/${300 + s}/${s}/${r2 % r}`);
      }
      const whole = run(r1csPath, curve, rows);
      const tiny = run(r1csPath, curve, rows, 50);
      // row values made 7 at a time: a block ends inside most windows
      const blocks = run(r1csPath, curve, rows, 1000, 7);
      assert.deepEqual(whole.asked, [[0, nRows]]);
      assert.deepEqual(blocks.asked, Array.from({ length: Math.ceil(nRows / 7) }, (_, i) => [7 * i, Math.min(7, nRows - 7 * i)]));
      for (const res of [whole, tiny, blocks]) assert.equal(res.nCoefs, records.length);
      for (const res of [whole, tiny, blocks]) {
        for (let m = 0; m < 3; m++) assert.deepEqual(res.acc[m].bytes, whole.acc[m].bytes, `acc ${m} is the same for every window`);
      }
      const std = whole.acc.map((v) => {
        const out = new FrVec(nWires);
        fieldOp(curve, FIELD.fr, FIELD_OP.fromMont, v.bytes, null, out.bytes, nWires);
        return out;
      });
      for (let m = 0; m < 3; m++) for (let w = 0; w < nWires; w++) assert.equal(std[m].get(w), want[m][w], `acc ${m}[${w}]`);
      const sec = new Uint8Array(fs.readFileSync(`${r1csPath}.zkey`)).subarray(12 + 12 + 4); // header, section head, count
      const v = new DataView(sec.buffer, sec.byteOffset);
      const got = Array.from({ length: records.length }, (_, i) => {
        const o = 44 * i;
        return `${v.getUint32(o, true)}/${v.getUint32(o + 4, true)}/${v.getUint32(o + 8, true)}/${leToBigint(sec, o + 12, 32)}`;
      });
      assert.deepEqual(got, records);
      const [alpha, beta, gamma, delta] = [1, 2, 3, 4].map(() => rng.field(r));
      const k = (x: bigint) => bigintToLe(x, 32);
      qapCombine(curve, [whole.acc[0].bytes, whole.acc[1].bytes, whole.acc[2].bytes], nWires, 2, k(alpha), k(beta), k(gamma), k(delta));
      for (const w of [0, 2, 3, nWires - 1]) {
        assert.equal(whole.acc[0].get(w), want[0][w]);
        assert.equal(whole.acc[1].get(w), want[1][w]);
        const s = inv(w <= 2 ? gamma : delta, r);
        assert.equal(whole.acc[2].get(w), (((beta * want[0][w] + alpha * want[1][w] + want[2][w]) % r) * s) % r, `combined ${w}`);
      }
    });

    it('reduces coefficients not below r; a wire ≥ nWires or a cut section is E_FORMAT naming the file', () => {
      const one = bigintToLe(1n, 32);
      const big = bigintToLe(r + 5n, 32); // ≡ 5
      const all = new Uint8Array(32).fill(0xff); // 2^256 − 1
      const file = path.join(dir(), 'raw.r1cs');
      writeR1cs(file, curve, 5, [[[[3, big], [4, all]], [[0, one]], [[2, one]]]]);
      const rows = [7n, 1n, 1n, 1n, 1n];
      const res = run(file, curve, rows);
      const a = new FrVec(5);
      fieldOp(curve, FIELD.fr, FIELD_OP.fromMont, res.acc[0].bytes, null, a.bytes, 5);
      assert.equal(a.get(3), 35n);
      assert.equal(a.get(4), (((1n << 256n) - 1n) % r) * 7n % r);
      const bad = path.join(dir(), 'bad.r1cs');
      writeR1cs(bad, curve, 5, [[[[1, one]], [[0, one]], [[2, one]]], [[[9, one]], [[0, one]], []]]);
      assert.throws(() => run(bad, curve, rows), (e: Error & { code?: string }) =>
        e.code === 'E_FORMAT' && e.message.includes(bad) && /constraint 1 A term 0 has wire 9, expected < nWires 5/.test(e.message));
      const cut = path.join(dir(), 'cut.r1cs');
      writeR1cs(cut, curve, 5, [[[[1, one]], [[0, one]], [[2, one]]], [[[3, one]], [[0, one]], []]], 10);
      assert.throws(() => run(cut, curve, rows), (e: Error & { code?: string }) =>
        e.code === 'E_FORMAT' && e.message.includes(cut) && /section ends inside constraint 1/.test(e.message));
    });
  });
}
