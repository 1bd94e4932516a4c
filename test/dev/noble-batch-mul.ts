// Independent fixed-base multiplier over @noble/curves, with the same contract as cuzk_batch_mul: lets the
// dev-setup tests check the zkey math without the native core, and cross-check the native result.

import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import { curveByName } from '../../src/formats/curves.js';
import { decodeG1, decodeG2, encodeG1, encodeG2, leToBigint } from '../../src/formats/lem.js';
import type { BatchMulFn } from '../../src/dev/dev-setup.js';

const LIB = { bn128: bn254, bls12381: bls12_381 } as const;

// Precomputed bases, keyed by curve, group and LEM bytes (the table costs more than a few hundred multiplies).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const bases = new Map<string, any>();

function basePoint(curve: 'bn128' | 'bls12381', group: 1 | 2, base: Uint8Array) {
  const key = `${curve}/${group}/${Buffer.from(base).toString('hex')}`;
  let P = bases.get(key);
  if (!P) {
    const info = curveByName(curve)!;
    const lib = LIB[curve];
    if (group === 1) {
      const b = decodeG1(base, info)!;
      P = lib.G1.Point.fromAffine({ x: b.x, y: b.y });
    } else {
      const b = decodeG2(base, info)!;
      P = lib.G2.Point.fromAffine({ x: { c0: b.x[0], c1: b.x[1] }, y: { c0: b.y[0], c1: b.y[1] } });
    }
    P.precompute(8, false);
    bases.set(key, P);
  }
  return P;
}

export const nobleBatchMul: BatchMulFn = (curve, group, base, scalars, n, out) => {
  const info = curveByName(curve)!;
  const size = (group === 1 ? 2 : 4) * info.n8q;
  const P = basePoint(curve, group, base);
  for (let i = 0; i < n; i++) {
    const k = leToBigint(scalars, 32 * i, 32) % info.r;
    const q = k === 0n ? null : P.multiplyUnsafe(k).toAffine();
    if (group === 1) encodeG1(q, info, out, i * size);
    else encodeG2(q && { x: [q.x.c0, q.x.c1], y: [q.y.c0, q.y.c1] }, info, out, i * size);
  }
};
