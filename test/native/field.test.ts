// cuzk_field_op against the BigInt reference (test/helpers/ref-field.ts): Fr, Fq and Fq2 of both
// curves, random elements plus 0, 1, 2, p-1 (all pairs of those for binary ops), inv(0) = 0, the
// Montgomery conversions, and E_INVALID_ARG for an element >= p, an unknown opcode or field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { FIELD, FIELD_OP, fieldOp } from '../../src/ffi/native.js';
import { concat, fromLe, fromLem, toLe, toLem } from '../helpers/lem.js';
import { MODULI, primeField, quadraticField, type CurveName, type Fp2 } from '../helpers/ref-field.js';
import { createRng } from '../helpers/rng.js';

const rng = createRng();
const seedNote = `(CUZK_TEST_SEED=${rng.seed})`;
const RANDOM = 48;

// An element is its coefficient list: one for a prime field, two (c0, c1) for Fq2.
type El = bigint[];
interface RefOps {
  add(a: El, b: El): El;
  sub(a: El, b: El): El;
  mul(a: El, b: El): El;
  sqr(a: El): El;
  neg(a: El): El;
  inv(a: El): El;
}

function refOps(p: bigint, k: number): RefOps {
  if (k === 2) {
    const F = quadraticField(p);
    const t = (a: El) => a as Fp2;
    return {
      add: (a, b) => F.add(t(a), t(b)),
      sub: (a, b) => F.sub(t(a), t(b)),
      mul: (a, b) => F.mul(t(a), t(b)),
      sqr: (a) => F.sqr(t(a)),
      neg: (a) => F.neg(t(a)),
      inv: (a) => F.inv(t(a)),
    };
  }
  const F = primeField(p);
  return {
    add: (a, b) => [F.add(a[0], b[0])],
    sub: (a, b) => [F.sub(a[0], b[0])],
    mul: (a, b) => [F.mul(a[0], b[0])],
    sqr: (a) => [F.sqr(a[0])],
    neg: (a) => [F.neg(a[0])],
    inv: (a) => [F.inv(a[0])],
  };
}

interface FieldCase {
  curve: CurveName;
  name: 'fr' | 'fq' | 'fq2';
  id: number;
  p: bigint;
  n8: number;
  k: number;
}

function cases(): FieldCase[] {
  const out: FieldCase[] = [];
  for (const curve of ['bn128', 'bls12381'] as const) {
    const m = MODULI[curve];
    out.push({ curve, name: 'fr', id: FIELD.fr, p: m.r, n8: m.n8r, k: 1 });
    out.push({ curve, name: 'fq', id: FIELD.fq, p: m.q, n8: m.n8q, k: 1 });
    out.push({ curve, name: 'fq2', id: FIELD.fq2, p: m.q, n8: m.n8q, k: 2 });
  }
  return out;
}

function edges(fc: FieldCase): El[] {
  const scalars = [0n, 1n, 2n, fc.p - 1n];
  if (fc.k === 1) return scalars.map((v) => [v]);
  return scalars.flatMap((a) => scalars.map((b) => [a, b]));
}

const encodeStd = (els: El[], n8: number) => concat(els.flatMap((e) => e.map((c) => toLe(c, n8))));
const decodeStd = (b: Uint8Array, n: number, fc: FieldCase): El[] =>
  Array.from({ length: n }, (_, i) => Array.from({ length: fc.k }, (_, j) => fromLe(b, (i * fc.k + j) * fc.n8, fc.n8)));

function run(fc: FieldCase, op: number, a: El[], b: El[] | null): El[] {
  const out = new Uint8Array(a.length * fc.k * fc.n8);
  fieldOp(fc.curve, fc.id, op, encodeStd(a, fc.n8), b ? encodeStd(b, fc.n8) : null, out, a.length);
  return decodeStd(out, a.length, fc);
}

function expectCode(fn: () => unknown, code: string, part: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CuzkError, `expected CuzkError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.ok(err.message.includes(part), `${JSON.stringify(err.message)} lacks ${JSON.stringify(part)}`);
    return true;
  });
}

for (const fc of cases()) {
  describe(`cuzk_field_op ${fc.curve} ${fc.name}`, () => {
    const ref = refOps(fc.p, fc.k);
    const rand = () => Array.from({ length: fc.k }, () => rng.below(fc.p));
    const E = edges(fc);
    const unary = [...E, ...Array.from({ length: RANDOM }, rand)];
    // every pair of edge values, then random pairs and random-with-edge pairs
    const pa: El[] = [];
    const pb: El[] = [];
    for (const x of E) for (const y of E) (pa.push(x), pb.push(y));
    for (let i = 0; i < RANDOM; i++) (pa.push(rand()), pb.push(i % 2 ? rand() : E[i % E.length]));

    const binary = [['add', FIELD_OP.add, ref.add], ['sub', FIELD_OP.sub, ref.sub], ['mul', FIELD_OP.mul, ref.mul]] as const;
    for (const [name, op, f] of binary) {
      it(`${name} matches the reference`, () => {
        const got = run(fc, op, pa, pb);
        pa.forEach((x, i) => assert.deepEqual(got[i], f(x, pb[i]), `${name}(${x}, ${pb[i]}) ${seedNote}`));
      });
    }
    const unaryOps = [['sqr', FIELD_OP.sqr, ref.sqr], ['neg', FIELD_OP.neg, ref.neg], ['inv', FIELD_OP.inv, ref.inv]] as const;
    for (const [name, op, f] of unaryOps) {
      it(`${name} matches the reference`, () => {
        const got = run(fc, op, unary, null);
        unary.forEach((x, i) => assert.deepEqual(got[i], f(x), `${name}(${x}) ${seedNote}`));
      });
    }

    it('inv(0) = 0 and x·inv(x) = 1', () => {
      const zero = Array(fc.k).fill(0n);
      assert.deepEqual(run(fc, FIELD_OP.inv, [zero], null)[0], zero);
      const xs = unary.filter((x) => x.some((c) => c !== 0n));
      const prod = run(fc, FIELD_OP.mul, xs, run(fc, FIELD_OP.inv, xs, null));
      const one = [1n, ...Array(fc.k - 1).fill(0n)];
      prod.forEach((v, i) => assert.deepEqual(v, one, `x = ${xs[i]} ${seedNote}`));
    });

    it('toMont and fromMont are x·R and x/R with R = 2^(8·n8)', () => {
      const n = unary.length;
      const mont = new Uint8Array(n * fc.k * fc.n8);
      fieldOp(fc.curve, fc.id, FIELD_OP.toMont, encodeStd(unary, fc.n8), null, mont, n);
      const expected = concat(unary.flatMap((e) => e.map((c) => toLem(c, fc.p, fc.n8))));
      assert.deepEqual(mont, expected, seedNote);
      const back = new Uint8Array(mont.length);
      fieldOp(fc.curve, fc.id, FIELD_OP.fromMont, mont, null, back, n);
      assert.deepEqual(decodeStd(back, n, fc), unary);
      unary.forEach((e, i) => assert.equal(fromLem(mont, fc.p, fc.n8, i * fc.k * fc.n8), e[0]));
    });

    it('rejects an element >= p in a or b with E_INVALID_ARG', () => {
      const good = [Array(fc.k).fill(1n), Array(fc.k).fill(2n)];
      const bad = [good[0], [...Array(fc.k - 1).fill(0n), fc.p]];
      const out = new Uint8Array(2 * fc.k * fc.n8);
      expectCode(() => fieldOp(fc.curve, fc.id, FIELD_OP.neg, encodeStd(bad, fc.n8), null, out, 2), 'E_INVALID_ARG', 'a[1]');
      expectCode(() => fieldOp(fc.curve, fc.id, FIELD_OP.add, encodeStd(good, fc.n8), encodeStd(bad, fc.n8), out, 2), 'E_INVALID_ARG', 'b[1]');
      const allOnes = new Uint8Array(fc.k * fc.n8).fill(0xff);
      expectCode(() => fieldOp(fc.curve, fc.id, FIELD_OP.fromMont, allOnes, null, out, 1), 'E_INVALID_ARG', 'a[0]');
    });
  });
}

describe('cuzk_field_op argument errors', () => {
  const a = new Uint8Array(64);
  const out = new Uint8Array(64);
  it('rejects an unknown opcode, field or curve', () => {
    expectCode(() => fieldOp('bn128', FIELD.fr, 99, a, a, out, 1), 'E_INVALID_ARG', 'unknown opcode');
    expectCode(() => fieldOp('bn128', 7, FIELD_OP.neg, a, null, out, 1), 'E_INVALID_ARG', 'unknown field id 7');
  });
  it('accepts n = 0', () => {
    fieldOp('bls12381', FIELD.fq2, FIELD_OP.mul, new Uint8Array(0), new Uint8Array(0), new Uint8Array(0), 0);
  });
});
