// cuzk_msm and cuzk_batch_mul for G1 and G2 of both curves. The points are P_i = a_i·B made by
// batch_mul from known a_i (a sample checked against @noble/curves), so the expected MSM is the
// single product (sum k_i·a_i mod r)·B computed by noble. Covers n = 0..1000, zero / one / r-1 /
// >= r scalars, infinity points, repeated and opposite points, 1 and 16 threads.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { CURVE_OP, GROUP, batchMul, curveOp, getThreads, msm, msmAsync, setThreads } from '../../src/ffi/native.js';
import { concat, toLe } from '../helpers/lem.js';
import { refGroup, type GroupName, type RefGroup, type RefPoint } from '../helpers/ref-curve.js';
import { MODULI, type CurveName } from '../helpers/ref-field.js';
import { createRng } from '../helpers/rng.js';

const rng = createRng();
const seedNote = `(CUZK_TEST_SEED=${rng.seed})`;
const SIZES = [0, 1, 2, 3, 17, 100, 1000];
// BN254 G1 splits scalars by its endomorphism, k = k1 + k2·λ (native/msm/glv.hpp): λ, its
// neighbours and its negation give k1 or k2 at 0 or at the ends of their ranges.
const LAMBDA_BN128 = 21888242871839275217838484774961031246154997185409878258781734729429964517155n;

const scalarBytes = (ks: bigint[]) => concat(ks.map((k) => toLe(k, 32)));

function expectCode(fn: () => unknown, code: string, part: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CuzkError, `expected CuzkError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.ok(err.message.includes(part), `${JSON.stringify(err.message)} lacks ${JSON.stringify(part)}`);
    return true;
  });
}

function nativeBatchMul(G: RefGroup, base: RefPoint, ks: bigint[]): Uint8Array {
  const out = new Uint8Array(ks.length * G.bytes);
  batchMul(G.curve, GROUP[G.group], G.toLem(base), scalarBytes(ks), ks.length, out);
  return out;
}

function nativeMsm(G: RefGroup, points: Uint8Array, ks: bigint[]): Uint8Array {
  const out = new Uint8Array(G.bytes);
  msm(G.curve, GROUP[G.group], points, scalarBytes(ks), ks.length, out);
  return out;
}

// Points a_i·B for the given discrete logs, and the oracle for sum k_i·P_i.
function pointSet(G: RefGroup, base: RefPoint, logs: bigint[]) {
  const { r } = MODULI[G.curve];
  const bytes = nativeBatchMul(G, base, logs);
  const expected = (ks: bigint[]) => G.toLem(G.mul(base, ks.reduce((s, k, i) => (s + (k % r) * logs[i]) % r, 0n)));
  return { bytes, expected };
}

for (const curve of ['bn128', 'bls12381'] as CurveName[]) {
  for (const group of ['g1', 'g2'] as GroupName[]) {
    describe(`cuzk_msm ${curve} ${group}`, () => {
      const G = refGroup(curve, group);
      const { r, q, n8q } = MODULI[curve];
      const B = G.random(rng);
      const logs = Array.from({ length: 1000 }, () => rng.below(r));
      const set = pointSet(G, B, logs);

      it('batch_mul points agree with noble on a sample', () => {
        for (const i of [0, 1, 499, 999]) assert.deepEqual(set.bytes.subarray(i * G.bytes, (i + 1) * G.bytes), G.toLem(G.mul(B, logs[i])), `#${i} ${seedNote}`);
      });

      for (const n of SIZES) {
        it(`n = ${n}, random scalars`, () => {
          const ks = Array.from({ length: n }, () => rng.below(r));
          assert.deepEqual(nativeMsm(G, set.bytes.subarray(0, n * G.bytes), ks), set.expected(ks), seedNote);
        });
      }

      it('zero, one, r-1, >= r and mixed scalars', () => {
        const n = 100;
        const pts = set.bytes.subarray(0, n * G.bytes);
        const L = LAMBDA_BN128;
        const mixed = [0n, 1n, 2n, 3n, r - 1n, r - 2n, r, r + 1n, (1n << 256n) - 1n, 255n, 1n << 128n, (1n << 127n) - 1n,
          L, L - 1n, L + 1n, r - L, 2n * L, (L * L) % r, (r - 1n) / 2n, (r + 1n) / 2n];
        const sets: Record<string, bigint[]> = {
          zeros: Array(n).fill(0n),
          ones: Array(n).fill(1n),
          'r-1': Array(n).fill(r - 1n),
          small: Array.from({ length: n }, () => BigInt(rng.u32() & 0xffff)),
          mixed: Array.from({ length: n }, (_, i) => (i % 3 === 0 ? rng.below(r) : mixed[i % mixed.length])),
        };
        for (const [name, ks] of Object.entries(sets)) assert.deepEqual(nativeMsm(G, pts, ks), set.expected(ks), `${name} ${seedNote}`);
      });

      it('infinity, repeated and opposite points', () => {
        const n = 300;
        const base = rng.below(r);
        // a_i: 0 (infinity) every 5th, the same log every 3rd, its negation every 7th
        const l = Array.from({ length: n }, (_, i) => (i % 5 === 0 ? 0n : i % 3 === 0 ? base : i % 7 === 0 ? r - base : rng.below(r)));
        const s = pointSet(G, B, l);
        const randomKs = Array.from({ length: n }, () => rng.below(r));
        const sameKs = Array(n).fill(rng.below(r)); // equal digits: every bucket add is P+P or P+(-P)
        const onesKs = Array(n).fill(1n);
        for (const ks of [randomKs, sameKs, onesKs]) assert.deepEqual(nativeMsm(G, s.bytes, ks), s.expected(ks), seedNote);
      });

      it('the sum is all-zero bytes when it is infinity', () => {
        const ks = [5n, 5n];
        const two = concat([G.toLem(B), G.toLem(G.neg(B))]);
        assert.deepEqual(nativeMsm(G, two, ks), new Uint8Array(G.bytes));
      });

      it('rejects a point coordinate >= q with E_INVALID_ARG', () => {
        const pts = set.bytes.slice(0, 3 * G.bytes);
        pts.set(toLe(q, n8q), 2 * G.bytes);
        expectCode(() => nativeMsm(G, pts, [1n, 2n, 3n]), 'E_INVALID_ARG', 'points[2]');
      });
    });

    describe(`cuzk_batch_mul ${curve} ${group}`, () => {
      const G = refGroup(curve, group);
      const { r, q, n8q } = MODULI[curve];

      it('equals curve_op MUL element by element, edge scalars included', () => {
        const B = G.random(rng);
        const ks = [0n, 1n, 2n, r - 1n, r, (1n << 256n) - 1n, ...Array.from({ length: 250 }, () => rng.below(1n << 256n))];
        const got = nativeBatchMul(G, B, ks);
        const want = new Uint8Array(ks.length * G.bytes);
        curveOp(curve, GROUP[group], CURVE_OP.mul, concat(ks.map(() => G.toLem(B))), scalarBytes(ks), want, ks.length);
        assert.deepEqual(got, want, seedNote);
        for (const i of [0, 3, 5]) assert.deepEqual(got.subarray(i * G.bytes, (i + 1) * G.bytes), G.toLem(G.mul(B, ks[i])), `#${i} ${seedNote}`);
      });

      it('gives infinity for the infinity base, nothing for n = 0', () => {
        assert.deepEqual(nativeBatchMul(G, G.zero, [1n, 7n]), new Uint8Array(2 * G.bytes));
        assert.equal(nativeBatchMul(G, G.base, []).length, 0);
      });

      it('rejects a base coordinate >= q with E_INVALID_ARG', () => {
        const bad = G.toLem(G.base).slice();
        bad.set(toLe(q, n8q), 0);
        const out = new Uint8Array(G.bytes);
        expectCode(() => batchMul(curve, GROUP[group], bad, scalarBytes([1n]), 1, out), 'E_INVALID_ARG', 'base');
      });
    });
  }
}

describe('cuzk_msm large windows and threading', () => {
  const threads = getThreads();
  after(() => setThreads(threads));
  const G = refGroup('bn128', 'g1');
  const { r } = MODULI.bn128;

  // The plans these sizes get from choose_plan (native/msm/pippenger_cpu.hpp): ~13000 scalars on
  // 1 thread -> 12-bit windows, batched affine buckets (where P+P and P+(-P) meet in a batch);
  // 2^15 on 16 threads -> 12-bit windows, each split into 2 point ranges.
  it('1 thread, n = 2^14, repeated, opposite and infinity points', () => {
    setThreads(1);
    const n = 1 << 14;
    const base = rng.below(r);
    const logs = Array.from({ length: n }, (_, i) => (i % 5 === 0 ? 0n : i % 3 === 0 ? base : i % 7 === 0 ? r - base : rng.below(r)));
    const s = pointSet(G, G.base, logs);
    const ks = Array.from({ length: n }, () => rng.below(r));
    assert.deepEqual(nativeMsm(G, s.bytes, ks), s.expected(ks), seedNote);
  });

  it('1 thread, n = 2^14 copies of one point with two scalars (conflicting bucket additions)', () => {
    setThreads(1);
    const n = 1 << 14;
    const a = rng.below(r);
    const P = G.toLem(G.mul(G.base, a));
    const pts = new Uint8Array(n * G.bytes);
    for (let i = 0; i < n; i++) pts.set(P, i * G.bytes);
    const k2 = [rng.below(r), rng.below(r)];
    const ks = Array.from({ length: n }, (_, i) => k2[i & 1]);
    const sum = ks.reduce((x, k) => (x + k) % r, 0n);
    assert.deepEqual(nativeMsm(G, pts, ks), G.toLem(G.mul(G.base, (sum * a) % r)), seedNote);
  });

  it('16 threads, n = 2^15', () => {
    setThreads(16);
    const n = 1 << 15;
    const logs = Array.from({ length: n }, () => rng.below(r));
    const s = pointSet(G, G.base, logs);
    const ks = Array.from({ length: n }, () => rng.below(r));
    assert.deepEqual(nativeMsm(G, s.bytes, ks), s.expected(ks), seedNote);
  });

  it('msmAsync gives the same point', async () => {
    const logs = Array.from({ length: 64 }, () => rng.below(r));
    const s = pointSet(G, G.base, logs);
    const ks = Array.from({ length: 64 }, () => rng.below(r));
    const out = new Uint8Array(G.bytes);
    await msmAsync('bn128', GROUP.g1, s.bytes, scalarBytes(ks), 64, out);
    assert.deepEqual(out, s.expected(ks), seedNote);
  });
});
