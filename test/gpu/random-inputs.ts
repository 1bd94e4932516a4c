// Fresh random MSM and NTT inputs for the GPU suite, fast enough for 2^22 elements: scalars from
// the seeded test RNG, points of the order-r subgroup made by the CPU core. Scalar multiplications
// cost ~15-100 µs of CPU each (measured here, 2026-11), so G1 points are made a sixth at a time:
// P = s·G by cuzk_batch_mul, then −P, φ(P), −φ(P), φ²(P), −φ²(P) with φ(x, y) = (βx, y), β a
// primitive cube root of unity mod q (an endomorphism of y² = x³ + b: one field multiplication).
import { CURVE_OP, FIELD, FIELD_OP, GROUP, batchMul, curveOp, fieldOp, sizesOf } from '../../src/ffi/native.js';
import { generatorBytes } from '../../src/dev/generators.js';
import { curveByName } from '../../src/formats/curves.js';
import { toLe } from '../helpers/lem.js';
import { MODULI, pow, type CurveName } from '../helpers/ref-field.js';
import type { Rng } from '../helpers/rng.js';

export type GroupName = 'g1' | 'g2';

export function pointBytes(curve: CurveName, group: GroupName): number {
  const z = sizesOf(curve);
  return group === 'g1' ? z.g1 : z.g2;
}

/** Uniform-ish scalars below r: random 32-byte LE words whose top byte is reduced below r's. */
export function randomScalars(curve: CurveName, n: number, rng: Rng): Uint8Array {
  const out = new Uint8Array(32 * n);
  const words = new Uint32Array(out.buffer, out.byteOffset, 8 * n);
  for (let i = 0; i < words.length; i++) words[i] = rng.u32();
  const top = Number(MODULI[curve].r >> 248n); // 0x30 (BN254), 0x73 (BLS12-381)
  for (let i = 0; i < n; i++) out[32 * i + 31] %= top;
  return out;
}

/** n copies of the 32-byte LE value `k` (any k < 2^256, also >= r). */
export function repeatScalar(k: bigint, n: number): Uint8Array {
  return repeat(toLe(k, 32), n);
}

export function repeat(item: Uint8Array, n: number): Uint8Array {
  const out = new Uint8Array(item.length * n);
  if (n === 0) return out;
  out.set(item, 0);
  for (let filled = item.length; filled < out.length; filled *= 2) out.copyWithin(filled, 0, Math.min(filled, out.length - filled));
  return out;
}

function cubeRootOfUnity(q: bigint): bigint {
  for (let g = 2n; ; g++) {
    const beta = pow(g, (q - 1n) / 3n, q);
    if (beta !== 1n) return beta;
  }
}

export function negatePoints(curve: CurveName, group: GroupName, points: Uint8Array, n: number): Uint8Array {
  const out = new Uint8Array(n * pointBytes(curve, group));
  curveOp(curve, GROUP[group], CURVE_OP.neg, points, null, out, n);
  return out;
}

function scalarMultiples(curve: CurveName, group: GroupName, n: number, rng: Rng): Uint8Array {
  const out = new Uint8Array(n * pointBytes(curve, group));
  batchMul(curve, GROUP[group], generatorBytes(curveByName(curve)!)[group], randomScalars(curve, n, rng), n, out);
  return out;
}

// x and y coordinates of m LEM G1 points as two arrays; the LEM image of x is x·R mod q < q, and
// field_op MUL on standard-form inputs maps (xR, β) to (βx)R: the LEM image of βx.
function g1Variants(curve: CurveName, pool: Uint8Array, m: number): Uint8Array[] {
  const n8 = sizesOf(curve).n8q;
  const xs = new Uint8Array(m * n8);
  const ys = new Uint8Array(m * n8);
  for (let i = 0; i < m; i++) {
    xs.set(pool.subarray(2 * n8 * i, 2 * n8 * i + n8), n8 * i);
    ys.set(pool.subarray(2 * n8 * i + n8, 2 * n8 * (i + 1)), n8 * i);
  }
  const { q } = MODULI[curve];
  const betas = repeat(toLe(cubeRootOfUnity(q), n8), m);
  const x1 = new Uint8Array(m * n8);
  const x2 = new Uint8Array(m * n8);
  const negY = new Uint8Array(m * n8);
  fieldOp(curve, FIELD.fq, FIELD_OP.mul, xs, betas, x1, m);
  fieldOp(curve, FIELD.fq, FIELD_OP.mul, x1, betas, x2, m);
  fieldOp(curve, FIELD.fq, FIELD_OP.neg, ys, null, negY, m);
  const join = (x: Uint8Array, y: Uint8Array) => {
    const out = new Uint8Array(2 * n8 * m);
    for (let i = 0; i < m; i++) {
      out.set(x.subarray(n8 * i, n8 * (i + 1)), 2 * n8 * i);
      out.set(y.subarray(n8 * i, n8 * (i + 1)), 2 * n8 * i + n8);
    }
    return out;
  };
  return [join(xs, negY), join(x1, ys), join(x1, negY), join(x2, ys), join(x2, negY)];
}

/**
 * n random points of the order-r subgroup (LEM). G1: blocks of ceil(n/6) points P_i, −P_i, φ(P_i),
 * −φ(P_i), φ²(P_i), −φ²(P_i), all distinct; G2: s_i·G for n random s_i.
 */
export function randomPoints(curve: CurveName, group: GroupName, n: number, rng: Rng): Uint8Array {
  const pb = pointBytes(curve, group);
  if (group === 'g2' || n < 6) return scalarMultiples(curve, group, n, rng);
  const m = Math.ceil(n / 6);
  const out = new Uint8Array(n * pb);
  const pool = scalarMultiples(curve, group, m, rng);
  out.set(pool, 0);
  g1Variants(curve, pool, m).forEach((v, k) => {
    const at = (k + 1) * m;
    if (at < n) out.set(v.subarray(0, Math.min(m, n - at) * pb), at * pb);
  });
  // the endomorphism's output must be on the curve: check one point of each block
  const blocks = Math.ceil(n / m);
  const sample = new Uint8Array(blocks * pb);
  for (let k = 0; k < blocks; k++) sample.set(out.subarray(k * m * pb, (k * m + 1) * pb), k * pb);
  const onCurve = new Uint8Array(blocks);
  curveOp(curve, GROUP.g1, CURVE_OP.onCurve, sample, null, onCurve, blocks);
  if (!onCurve.every((v) => v === 1)) throw new Error(`randomPoints(${curve}, g1): a derived point is off the curve: ${onCurve.join(',')}`);
  return out;
}
