// The native O(1)-per-value Lagrange formula (cuzk_lagrange_eval) against the textbook product form in
// BigInt, on both scalar fields, across its 4096-value chunks; roots of unity against ffjavascript's own Fr.w
// table; batch inverse and FrVec slots against plain BigInt.

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
// @ts-ignore -- snarkjs ships no type declarations
import * as snarkjs from 'snarkjs';
import { batchInverse, FrVec, frParams, inv, modPow, rootOfUnity } from '../../src/dev/field-bigint.js';
import { lagrangeValues } from '../../src/dev/lagrange.js';
import { DevRng } from '../../src/dev/rng.js';
import type { CurveName } from '../../src/formats/curves.js';

const sj = snarkjs as any;

/** L_i(τ) = Π_{k≠i} (τ − ω^k)/(ω^i − ω^k). */
function naiveLagrange(r: bigint, tau: bigint, omega: bigint, size: number, i: number): bigint {
  const x = (k: number) => modPow(omega, BigInt(k), r);
  let num = 1n;
  let den = 1n;
  for (let k = 0; k < size; k++) {
    if (k === i) continue;
    num = (num * ((tau - x(k) + r) % r)) % r;
    den = (den * ((x(i) - x(k) + r) % r)) % r;
  }
  return (num * inv(den, r)) % r;
}

for (const curve of ['bn128', 'bls12381'] as CurveName[]) {
  describe(`dev field math (${curve})`, () => {
    const fr = frParams(curve);
    const r = fr.r;
    const rng = new DevRng(`lagrange-${curve}`);
    after(async () => {
      await (await sj.curves.getCurveFromName(curve)).terminate();
    });

    it('rootOfUnity(k) equals ffjavascript Fr.w[k] and has order exactly 2^k', async () => {
      const F = (await sj.curves.getCurveFromName(curve)).Fr;
      for (const k of [1, 2, 5, 12, 20, fr.s]) {
        const w = rootOfUnity(fr, k);
        assert.equal(w, F.toObject(F.w[k]), `k = ${k}`);
        assert.equal(modPow(w, 1n << BigInt(k), r), 1n);
        assert.equal(modPow(w, 1n << BigInt(k - 1), r), r - 1n);
      }
      assert.throws(() => rootOfUnity(fr, fr.s + 1), { code: 'E_INVALID_ARG' });
    });

    it('lagrangeValues matches the product form, sums to 1 and interpolates X', () => {
      const lg = 3;
      const size = 1 << lg;
      const omega = rootOfUnity(fr, lg);
      const tau = rng.field(r);
      const scale = rng.field(r);
      const out = new FrVec(size);
      lagrangeValues({ curve, tau, lgSize: lg, scale: 1n }, 0, 1, size, out.bytes);
      let sum = 0n;
      let sumX = 0n;
      for (let i = 0; i < size; i++) {
        assert.equal(out.get(i), naiveLagrange(r, tau, omega, size, i), `L_${i}`);
        sum += out.get(i);
        sumX += out.get(i) * modPow(omega, BigInt(i), r);
      }
      assert.equal(sum % r, 1n);
      assert.equal(sumX % r, tau);
      // Odd indices with stride 2 and a scale, written at an offset (the H-point case).
      const odd = new FrVec(size / 2 + 1);
      lagrangeValues({ curve, tau, lgSize: lg, scale }, 1, 2, size / 2, odd.subarray(1, size / 2 + 1));
      for (let j = 0; j < size / 2; j++) assert.equal(odd.get(1 + j), (scale * out.get(2 * j + 1)) % r, `odd ${j}`);
    });

    it('lagrangeValues agrees with the BigInt formula across chunks, strides and offsets of a 2^13 domain', () => {
      const lg = 13;
      const omegaInv = inv(rootOfUnity(fr, lg), r);
      const tau = rng.field(r);
      const scale = rng.field(r);
      const c = (((modPow(tau, 1n << BigInt(lg), r) - 1n + r) * inv(BigInt(1 << lg), r)) % r * scale) % r;
      const bigint = (m: number) => (c * inv((tau * modPow(omegaInv, BigInt(m), r) - 1n + r) % r, r)) % r;
      for (const [first, stride, count] of [[0, 1, 8192], [4093, 1, 4100], [1, 2, 4097], [8191, 3, 5]]) {
        const out = new FrVec(count);
        lagrangeValues({ curve, tau, lgSize: lg, scale }, first, stride, count, out.bytes);
        for (const j of [0, 1, 4095, 4096, 4097, count - 1].filter((x) => x < count)) {
          assert.equal(out.get(j), bigint((first + j * stride) % (1 << lg)), `first ${first} stride ${stride} j ${j}`);
        }
      }
    });

    it('lagrangeValues refuses τ inside the domain and scalars not below r', () => {
      const omega = rootOfUnity(fr, 2);
      assert.throws(() => lagrangeValues({ curve, tau: omega, lgSize: 2, scale: 1n }, 0, 1, 4, new Uint8Array(128)), { code: 'E_INVALID_ARG', message: /domain/ });
      assert.throws(() => lagrangeValues({ curve, tau: r, lgSize: 2, scale: 1n }, 0, 1, 4, new Uint8Array(128)), { code: 'E_INVALID_ARG', message: /tau is not below r/ });
    });

    it('batchInverse and FrVec slots agree with BigInt', () => {
      const xs = Array.from({ length: 37 }, () => rng.field(r) || 1n);
      const copy = [...xs];
      batchInverse(xs, xs.length, r, new Array(xs.length));
      xs.forEach((y, i) => assert.equal((y * copy[i]) % r, 1n));
      const scaled = [...copy];
      batchInverse(scaled, scaled.length, r, new Array(xs.length), 7n);
      scaled.forEach((y, i) => assert.equal((y * copy[i]) % r, 7n));
      assert.throws(() => batchInverse([1n, 0n], 2, r, [0n, 0n]), RangeError);
      const v = new FrVec(3);
      for (const x of [0n, 1n, r - 1n, (1n << 255n) + 12345n]) {
        v.set(1, x);
        assert.equal(v.get(1), x);
        assert.equal(v.get(0), 0n);
        assert.equal(v.get(2), 0n);
      }
    });
  });
}
