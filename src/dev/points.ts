// Point sections by fixed-base multiplication: scalars (32-byte standard LE) times a generator, in chunks of
// 2^20 so memory stays flat (≤ 192 MiB of G2 points) and a GPU call amortises its table, written straight
// into the zkey. The default multiplier is the native core's cuzk_batch_mul (windowed fixed-base, on the
// GPU when the CUDA core has one, else multi-threaded); tests may inject another.

import type { CurveInfo, CurveName } from '../formats/curves.js';
import { batchMul, GROUP } from '../ffi/native.js';
import type { BinWriter } from './bin-writer.js';

/** 1 = G1, 2 = G2 (cuzk.h group ids). */
export type Group = 1 | 2;

/** out[i] = scalars[i]·base for i < n; base and out are LEM affine points, infinity = all-zero bytes. */
export type BatchMulFn = (curve: CurveName, group: Group, base: Uint8Array, scalars: Uint8Array, n: number, out: Uint8Array) => void;

export const nativeBatchMul: BatchMulFn = (curve, group, base, scalars, n, out) =>
  batchMul(curve, group === 1 ? GROUP.g1 : GROUP.g2, base, scalars, n, out);

export const POINTS_CHUNK = 1 << 20;

/** Appends n points scalars[i]·base to the open section of `zk`; yields to the event loop between chunks. */
export async function writePoints(
  zk: BinWriter,
  curve: CurveInfo,
  mul: BatchMulFn,
  group: Group,
  base: Uint8Array,
  scalars: Uint8Array,
  n: number,
  onChunk?: (done: number) => void,
): Promise<void> {
  const size = (group === 1 ? 2 : 4) * curve.n8q;
  const out = new Uint8Array(Math.min(n, POINTS_CHUNK) * size);
  for (let start = 0; start < n; start += POINTS_CHUNK) {
    const m = Math.min(POINTS_CHUNK, n - start);
    mul(curve.name, group, base, scalars.subarray(32 * start, 32 * (start + m)), m, out);
    zk.write(out.subarray(0, m * size));
    onChunk?.(start + m);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
