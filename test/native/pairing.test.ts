// cuzk_pairing against @noble/curves (an independent pairing) and snarkjs's vk_alphabeta_12, byte for
// byte, on both curves; bilinearity e(aP, bQ) = e(abP, Q) = e(P, Q)^ab, e(P, Q)·e(−P, Q) = 1,
// non-degeneracy, infinity pairs, and E_INVALID_ARG for points off the curve or coordinates >= q.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { CuzkError } from '../../src/errors.js';
import { pairing } from '../../src/ffi/native.js';
import { concat, toLe, toLem } from '../helpers/lem.js';
import { refGroup, type RefPoint } from '../helpers/ref-curve.js';
import { MODULI, type CurveName } from '../helpers/ref-field.js';
import { createRng } from '../helpers/rng.js';
import { readJson, vectorSets } from '../helpers/vectors.js';

const rng = createRng();
const seedNote = `(CUZK_TEST_SEED=${rng.seed})`;

type Fp2 = { c0: bigint; c1: bigint };
type Fp6 = { c0: Fp2; c1: Fp2; c2: Fp2 };
type Fp12 = { c0: Fp6; c1: Fp6 };

/** noble's Fp12 in cuzk_pairing's order (pairing/fp12.hpp): c0.c0.c0, c0.c0.c1, c0.c1.c0, …, c1.c2.c1. */
function fp12Bytes(e: Fp12, n8q: number): Uint8Array {
  const coeffs = [e.c0, e.c1].flatMap((f6) => [f6.c0, f6.c1, f6.c2]).flatMap((f2) => [f2.c0, f2.c1]);
  return concat(coeffs.map((c) => toLe(c, n8q)));
}

function expectCode(fn: () => unknown, code: string, part: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CuzkError, `expected CuzkError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.ok(err.message.includes(part), `${JSON.stringify(err.message)} lacks ${JSON.stringify(part)}`);
    return true;
  });
}

for (const curve of ['bn128', 'bls12381'] as CurveName[]) {
  describe(`cuzk_pairing ${curve}`, () => {
    const noble = curve === 'bn128' ? bn254 : bls12_381;
    const Fp12 = noble.fields.Fp12;
    const G1 = refGroup(curve, 'g1');
    const G2 = refGroup(curve, 'g2');
    const { q, r, n8q } = MODULI[curve];
    const one = fp12Bytes(Fp12.ONE as Fp12, n8q);

    /** prod e(ps[i], qs[i]) through the C ABI, as standard-form bytes. */
    function native(ps: RefPoint[], qs: RefPoint[]): Uint8Array {
      const out = new Uint8Array(12 * n8q);
      pairing(curve, concat(ps.map(G1.toLem)), concat(qs.map(G2.toLem)), ps.length, out);
      return out;
    }
    const ref = (p: RefPoint, qq: RefPoint) => noble.pairing(p as never, qq as never) as Fp12;

    it('e(G1, G2) and e(P, Q) for random P, Q equal @noble/curves', () => {
      assert.deepEqual(native([G1.base], [G2.base]), fp12Bytes(ref(G1.base, G2.base), n8q));
      const p = G1.random(rng);
      const qq = G2.random(rng);
      assert.deepEqual(native([p], [qq]), fp12Bytes(ref(p, qq), n8q), `random pair ${seedNote}`);
    });

    it('a 3-pair product equals the product of noble pairings', () => {
      const ps = [G1.random(rng), G1.random(rng), G1.base];
      const qs = [G2.base, G2.random(rng), G2.random(rng)];
      const want = ps.map((p, i) => ref(p, qs[i])).reduce((a, b) => Fp12.mul(a, b) as Fp12);
      assert.deepEqual(native(ps, qs), fp12Bytes(want, n8q), seedNote);
    });

    it('equals snarkjs vk_alphabeta_12 = e(alpha1, beta2) of the committed vector keys', () => {
      const sets = vectorSets().filter((s) => s.curve === curve);
      assert.ok(sets.length > 0, `no ${curve} vectors in test/vectors/index.json`);
      for (const set of sets) {
        const vk = readJson(set, 'vkey.json') as Record<string, unknown>;
        const big = (v: unknown) => BigInt(v as string);
        const [ax, ay] = (vk.vk_alpha_1 as string[]).map(big);
        const b = (vk.vk_beta_2 as string[][]).map((c) => c.map(big));
        const g1 = concat([toLem(ax, q, n8q), toLem(ay, q, n8q)]);
        const g2 = concat([b[0][0], b[0][1], b[1][0], b[1][1]].map((c) => toLem(c, q, n8q)));
        const out = new Uint8Array(12 * n8q);
        pairing(curve, g1, g2, 1, out);
        const want = (vk.vk_alphabeta_12 as string[][][]).flat(2).map(big);
        assert.deepEqual(out, concat(want.map((c) => toLe(c, n8q))), set.dir);
      }
    });

    it('is bilinear: e(aP, bQ) = e(abP, Q) = e(P, abQ) = e(P, Q)^ab', () => {
      const P = G1.random(rng);
      const Q = G2.random(rng);
      const a = rng.below(r - 1n) + 1n;
      const b = rng.below(r - 1n) + 1n;
      const lhs = native([G1.mul(P, a)], [G2.mul(Q, b)]);
      assert.deepEqual(lhs, native([G1.mul(P, a * b)], [Q]), `e(aP,bQ) vs e(abP,Q) ${seedNote}`);
      assert.deepEqual(lhs, native([P], [G2.mul(Q, a * b)]), `e(aP,bQ) vs e(P,abQ) ${seedNote}`);
      assert.deepEqual(lhs, fp12Bytes(Fp12.pow(ref(P, Q), (a * b) % r) as Fp12, n8q), `e(P,Q)^ab ${seedNote}`);
    });

    it('e(P, Q)·e(−P, Q) = 1, e(P, Q)·e(P, −Q) = 1, and e(G1, G2) != 1', () => {
      const P = G1.random(rng);
      const Q = G2.random(rng);
      assert.deepEqual(native([P, G1.neg(P)], [Q, Q]), one, seedNote);
      assert.deepEqual(native([P, P], [Q, G2.neg(Q)]), one, seedNote);
      assert.notDeepEqual(native([G1.base], [G2.base]), one);
      assert.notDeepEqual(native([P], [Q]), one, seedNote);
    });

    it('pairs with infinity contribute 1; the empty product is 1', () => {
      const P = G1.random(rng);
      const Q = G2.random(rng);
      assert.deepEqual(native([G1.zero], [Q]), one);
      assert.deepEqual(native([P], [G2.zero]), one);
      assert.deepEqual(native([], []), one);
      assert.deepEqual(native([G1.zero, P], [Q, Q]), native([P], [Q]), seedNote);
    });

    it('rejects points off the curve and coordinates >= q with E_INVALID_ARG', () => {
      const out = new Uint8Array(12 * n8q);
      const g1 = concat([G1.base, G1.base].map(G1.toLem));
      const g2 = concat([G2.base, G2.base].map(G2.toLem));
      const offG1 = g1.slice();
      offG1[G1.bytes + n8q] ^= 1; // second point's y
      expectCode(() => pairing(curve, offG1, g2, 2, out), 'E_INVALID_ARG', 'g1[1]');
      const offG2 = g2.slice();
      offG2[0] ^= 1;
      expectCode(() => pairing(curve, g1, offG2, 2, out), 'E_INVALID_ARG', 'g2[0]');
      const big = g1.slice();
      big.set(toLe(q, n8q), 0); // x = q: not a field element
      expectCode(() => pairing(curve, big, g2, 2, out), 'E_INVALID_ARG', 'g1[0]');
    });
  });
}
