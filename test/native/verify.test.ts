// cuzk_groth16_verify on the committed snarkjs vectors (test/vectors, both curves, every circuit):
// valid proofs verify; tampered ones (A negated, a public +1, B from another proof, C off the curve,
// points at infinity, B or A outside the order-r subgroup, a coordinate >= q, mixed proof/public
// sets) are rejected, agreeing with snarkjs's own verify (but for one case where snarkjs's answer is
// undefined, noted below); a public >= r is E_INVALID_ARG.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { CuzkError } from '../../src/errors.js';
import { groth16Verify } from '../../src/ffi/native.js';
import { concat, toLe, toLem } from '../helpers/lem.js';
import { MODULI, type CurveName } from '../helpers/ref-field.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { readJson, vectorSets, type VectorSet } from '../helpers/vectors.js';

after(terminateSnarkjs);

type Fp2 = [bigint, bigint];
type G1 = [bigint, bigint] | null;
type G2 = [Fp2, Fp2] | null;
interface Proof { a: G1; b: G2; c: G1 }
interface Vk { alpha: G1; beta: G2; gamma: G2; delta: G2; ic: G1[] }

const big = (v: unknown) => BigInt(v as string);
// snarkjs JSON is projective: z = 0 is infinity, otherwise z = 1 in everything snarkjs writes
const g1Json = (p: string[]): G1 => (big(p[2]) === 0n ? null : [big(p[0]), big(p[1])]);
const g2Json = (p: string[][]): G2 => (big(p[2][0]) === 0n && big(p[2][1]) === 0n ? null : [[big(p[0][0]), big(p[0][1])], [big(p[1][0]), big(p[1][1])]]);
const g1ToJson = (p: G1) => (p === null ? ['0', '1', '0'] : [...p.map(String), '1']);
const g2ToJson = (p: G2) => (p === null ? [['0', '0'], ['1', '0'], ['0', '0']] : [...p.map((c) => c.map(String)), ['1', '0']]);

function loadSet(set: VectorSet, suffix: '' | '2') {
  const vk = readJson(set, 'vkey.json') as Record<string, unknown>;
  const pr = readJson(set, `proof${suffix}.json`) as Record<string, unknown>;
  const publics = (readJson(set, `public${suffix}.json`) as string[]).map(big);
  const key: Vk = {
    alpha: g1Json(vk.vk_alpha_1 as string[]),
    beta: g2Json(vk.vk_beta_2 as string[][]),
    gamma: g2Json(vk.vk_gamma_2 as string[][]),
    delta: g2Json(vk.vk_delta_2 as string[][]),
    ic: (vk.IC as string[][]).map(g1Json),
  };
  const proof: Proof = { a: g1Json(pr.pi_a as string[]), b: g2Json(pr.pi_b as string[][]), c: g1Json(pr.pi_c as string[]) };
  return { vkJson: vk, key, proof, publics };
}

for (const curve of ['bn128', 'bls12381'] as CurveName[]) {
  describe(`cuzk_groth16_verify ${curve}`, () => {
    const { q, r, n8q } = MODULI[curve];
    const sets = vectorSets().filter((s) => s.curve === curve);
    const enc1 = (p: G1) => (p === null ? new Uint8Array(2 * n8q) : concat(p.map((c) => toLem(c, q, n8q))));
    const enc2 = (p: G2) => (p === null ? new Uint8Array(4 * n8q) : concat(p.flat().map((c) => toLem(c, q, n8q))));
    const vkBytes = (k: Vk) => concat([enc1(k.alpha), enc2(k.beta), enc2(k.gamma), enc2(k.delta), ...k.ic.map(enc1)]);
    const proofBytes = (p: Proof) => concat([enc1(p.a), enc2(p.b), enc1(p.c)]);
    const pubBytes = (xs: bigint[]) => concat(xs.map((x) => toLe(x, 32)));
    const verify = (k: Vk, xs: bigint[], p: Proof) => groth16Verify(curve, vkBytes(k), pubBytes(xs), xs.length, proofBytes(p));

    it('accepts every committed valid proof (proof.json and proof2.json)', (t) => {
      assert.ok(sets.length > 0, `no ${curve} vectors in test/vectors/index.json`);
      for (const set of sets) {
        for (const suffix of set.hasInput2 ? (['', '2'] as const) : ([''] as const)) {
          const { key, proof, publics } = loadSet(set, suffix);
          const t0 = performance.now();
          assert.equal(verify(key, publics, proof), true, `${set.dir} proof${suffix}`);
          t.diagnostic(`${set.dir} proof${suffix}: ${(performance.now() - t0).toFixed(1)} ms`);
        }
      }
    });

    it('rejects tampered proofs and publics, as snarkjs does', async () => {
      const set = sets.find((s) => s.hasInput2)!;
      const s1 = loadSet(set, '');
      const s2 = loadSet(set, '2');
      const { key, proof, publics } = s1;
      const a = proof.a!;
      const c = proof.c!;
      const cases: [string, Proof, bigint[]][] = [
        ['A negated', { ...proof, a: [a[0], q - a[1]] }, publics],
        ['public[0] + 1', proof, [(publics[0] + 1n) % r, ...publics.slice(1)]],
        ['last public + 1', proof, [...publics.slice(0, -1), (publics[publics.length - 1] + 1n) % r]],
        ['B from proof2', { ...proof, b: s2.proof.b }, publics],
        ['proof with public2', proof, s2.publics],
        ['C off the curve (y + 1)', { ...proof, c: [c[0], (c[1] + 1n) % q] }, publics],
        ['A at infinity', { ...proof, a: null }, publics],
        ['B at infinity', { ...proof, b: null }, publics],
        ['C at infinity', { ...proof, c: null }, publics],
        ['B on the twist, outside G2', { ...proof, b: twistPointOutsideG2(curve) }, publics],
      ];
      if (curve === 'bls12381') cases.push(['A on the curve, outside G1', { ...proof, a: bls12G1OutsideSubgroup() }, publics]);
      for (const [what, p, xs] of cases) {
        assert.equal(verify(key, xs, p), false, what);
        if (curve === 'bls12381' && what === 'B at infinity') continue; // snarkjs's answer is stale memory: see below
        const pj = { pi_a: g1ToJson(p.a), pi_b: g2ToJson(p.b), pi_c: g1ToJson(p.c), protocol: 'groth16', curve };
        assert.equal(await snarkjsVerify(s1.vkJson, xs.map(String), pj), false, `snarkjs: ${what}`);
      }
      assert.equal(verify(key, publics, proof), true, 'the untampered proof');
    });

    it('rejects a coordinate >= q (not a field element) and answers E_INVALID_ARG for a public >= r', () => {
      const { key, proof, publics } = loadSet(sets[0], '');
      const bytes = proofBytes(proof);
      const bad = bytes.slice();
      bad.set(toLe(q, n8q), 0); // A.x = q in raw LEM bytes
      assert.equal(groth16Verify(curve, vkBytes(key), pubBytes(publics), publics.length, bad), false);
      const over = [r, ...publics.slice(1)];
      assert.throws(() => verify(key, over, proof), (err: unknown) => {
        assert.ok(err instanceof CuzkError && err.code === 'E_INVALID_ARG', String(err));
        assert.ok(err.message.includes('public input 0'), err.message);
        return true;
      });
    });
  });
}

// snarkjs 0.7.6 has no defined answer for a BLS12-381 proof whose B is the point at infinity:
// wasmcurves' bls12381 prepareG2 returns early for it, leaving its line coefficients unwritten,
// and millerLoop tests that G2 point with the G1 isZero (it reads y.c0 = 1: not zero), so the loop
// runs on whatever the worker's previous pairing left at that address. With 4 or more ffjavascript
// workers (one per os.cpus() entry) each pairing lands on the worker that ran the same pair last,
// and the B of the proof verified just before makes this tampered proof verify (true). cuzk rejects
// it either way (the assert above); with 2 workers snarkjs happens to say false.

/** A point of E'(Fq2) of order not dividing r: x = k, the first k with x^3 + b' a square. */
function twistPointOutsideG2(curve: CurveName): G2 {
  const c = curve === 'bn128' ? bn254 : bls12_381;
  const F = c.fields.Fp2;
  const gen = c.G2.Point.BASE.toAffine();
  const b = F.sub(F.sqr(gen.y), F.mul(F.sqr(gen.x), gen.x));
  for (let k = 1n; ; k++) {
    const x = F.create({ c0: k, c1: 1n });
    const rhs = F.add(F.mul(F.sqr(x), x), b);
    let y;
    try {
      y = F.sqrt(rhs);
    } catch {
      continue;
    }
    if (!F.eql(F.sqr(y), rhs)) continue;
    const P = c.G2.Point.fromAffine({ x, y });
    if (P.multiplyUnsafe(MODULI[curve].r - 1n).equals(P.negate())) continue; // in G2 after all
    return [[x.c0, x.c1], [y.c0, y.c1]];
  }
}

/** A point of E(Fq) on BLS12-381 outside G1 (cofactor h1 ≠ 1). */
function bls12G1OutsideSubgroup(): G1 {
  const F = bls12_381.fields.Fp;
  for (let x = 1n; ; x++) {
    const rhs = F.add(F.mul(F.sqr(x), x), 4n);
    let y;
    try {
      y = F.sqrt(rhs);
    } catch {
      continue;
    }
    if (!F.eql(F.sqr(y), rhs)) continue;
    const P = bls12_381.G1.Point.fromAffine({ x, y });
    if (P.multiplyUnsafe(MODULI.bls12381.r - 1n).equals(P.negate())) continue;
    return [x, y];
  }
}
