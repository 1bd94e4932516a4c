// Lagrange basis values at a known τ through the native core (cuzk_lagrange_eval: threaded, one batched
// inversion per 4096 values): on the domain ⟨ω⟩ of size N,
//   L_m(τ) = (τ^N − 1)/N · x_m/(τ − x_m) = c/(τ·x_m⁻¹ − 1),  x_m = ω^m,  c = (τ^N − 1)/N
// (the iFFT of τ^0..τ^(N−1), which is what snarkjs's prepared ptau section 12 holds, reference §2.5).
// In BigInt these were ~2 µs a value: 2 × 2^24 of them took ~70 s of a 2^24 dev-setup.

import { lagrangeEval } from '../ffi/native.js';
import type { CurveName } from '../formats/curves.js';
import { scalarToLe } from '../formats/lem.js';
import { modPow } from './field-bigint.js';

export interface LagrangeSeries {
  readonly curve: CurveName;
  readonly tau: bigint;
  /** log2 of the domain size N (ω = snarkjs Fr.w[lgSize]). */
  readonly lgSize: number;
  /** Extra factor on every value (e.g. δ⁻¹ for the H points). */
  readonly scale: bigint;
}

/** τ must lie outside the domain: τ^N ≠ 1. */
export function vanishingAt(r: bigint, tau: bigint, lgSize: number): bigint {
  return (modPow(tau, 1n << BigInt(lgSize), r) - 1n + r) % r;
}

/**
 * out[j] = scale · L_{first + j·stride}(τ) for j < count, 32-byte standard LE slots (stride 2 with an odd
 * `first` gives snarkjs's H points: the odd elements of the 2n-domain basis). τ in the domain: E_INVALID_ARG.
 */
export function lagrangeValues(s: LagrangeSeries, first: number, stride: number, count: number, out: Uint8Array): void {
  lagrangeEval(s.curve, scalarToLe(s.tau), scalarToLe(s.scale), s.lgSize, first, stride, count, out);
}
