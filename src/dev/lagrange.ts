// Lagrange basis values at a known τ, O(1) field work each: on the domain ⟨ω⟩ of size N,
//   L_m(τ) = (τ^N − 1)/N · x_m/(τ − x_m) = c/(τ·x_m⁻¹ − 1),  x_m = ω^m,  c = (τ^N − 1)/N
// (the iFFT of τ^0..τ^(N−1), which is what snarkjs's prepared ptau section 12 holds, reference §2.5).
// x_m⁻¹ steps geometrically and c rides on the batch inversion: 1 + 3 mulmods per value.

import { batchInverse, FrVec, inv, modPow } from './field-bigint.js';

const CHUNK = 4096;

export interface LagrangeSeries {
  readonly r: bigint;
  readonly tau: bigint;
  /** log2 of the domain size N. */
  readonly lgSize: number;
  /** ω_N (snarkjs Fr.w[lgSize]). */
  readonly omega: bigint;
  /** Extra factor on every value (e.g. δ⁻¹ for the H points). */
  readonly scale: bigint;
}

/** τ must lie outside the domain: τ^N ≠ 1. */
export function vanishingAt(r: bigint, tau: bigint, lgSize: number): bigint {
  return (modPow(tau, 1n << BigInt(lgSize), r) - 1n + r) % r;
}

/**
 * out[outStart + j] = scale · L_{first + j·stride}(τ) for j < count, with index stride 1 or 2 (stride 2 with
 * an odd `first` gives snarkjs's H points: the odd elements of the 2n-domain basis).
 */
export function lagrangeValues(s: LagrangeSeries, first: number, stride: number, count: number, out: FrVec, outStart: number): void {
  const { r, tau } = s;
  const z = vanishingAt(r, tau, s.lgSize);
  if (z === 0n) throw new RangeError('lagrangeValues: τ lies in the evaluation domain');
  const c = (((z * inv(BigInt(2 ** s.lgSize), r)) % r) * s.scale) % r;
  const omegaInv = inv(s.omega, r);
  const step = modPow(omegaInv, BigInt(stride), r);
  let u = (tau * modPow(omegaInv, BigInt(first), r)) % r; // τ·x_m⁻¹
  const den = new Array<bigint>(Math.min(CHUNK, count));
  const scratch = new Array<bigint>(den.length);
  for (let base = 0; base < count; base += CHUNK) {
    const m = Math.min(CHUNK, count - base);
    for (let j = 0; j < m; j++) {
      den[j] = u === 0n ? r - 1n : u - 1n;
      u = (u * step) % r;
    }
    batchInverse(den, m, r, scratch, c);
    for (let j = 0; j < m; j++) out.set(outStart + base + j, den[j]);
  }
}
