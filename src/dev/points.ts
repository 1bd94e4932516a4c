// Point sections by fixed-base multiplication: scalars (32-byte standard LE) times a generator, in chunks of
// 2^20 so memory stays flat (two chunks: ≤ 384 MiB of BLS12-381 G2 points) and a GPU call amortises its
// table, written straight into the zkey. A chunk's multiplications run while the chunk before it is written
// (the native multiplier on a koffi worker thread), so the disk and the GPU (or the CPU threads) overlap. The
// default multiplier is the native core's cuzk_batch_mul (windowed fixed-base, on the GPU when the CUDA core
// has one, else multi-threaded); tests may inject another.

import type { CurveInfo, CurveName } from '../formats/curves.js';
import { batchMulAsync, GROUP } from '../ffi/native.js';
import type { BinWriter } from './bin-writer.js';

/** 1 = G1, 2 = G2 (cuzk.h group ids). */
export type Group = 1 | 2;

/** out[i] = scalars[i]·base for i < n; base and out are LEM affine points, infinity = all-zero bytes. */
export type BatchMulFn = (curve: CurveName, group: Group, base: Uint8Array, scalars: Uint8Array, n: number, out: Uint8Array) => void | Promise<void>;

export const nativeBatchMul: BatchMulFn = (curve, group, base, scalars, n, out) =>
  batchMulAsync(curve, group === 1 ? GROUP.g1 : GROUP.g2, base, scalars, n, out);

export const POINTS_CHUNK = 1 << 20;

/** Scalars [start, start + m) of a section as 32-byte slots, made when the chunk is (H's, 2 GiB at 2^26, never whole). */
export type ScalarsFn = (start: number, m: number) => Uint8Array;

/** Appends n points scalars[i]·base to the open section of `zk`; `scalars` are the section's, or made per chunk. */
export async function writePoints(
  zk: BinWriter,
  curve: CurveInfo,
  mul: BatchMulFn,
  group: Group,
  base: Uint8Array,
  scalars: Uint8Array | ScalarsFn,
  n: number,
  onChunk?: (done: number) => void,
  chunkPoints = POINTS_CHUNK,
): Promise<void> {
  const size = (group === 1 ? 2 : 4) * curve.n8q;
  const outs = [0, 1].map(() => new Uint8Array(Math.min(n, chunkPoints) * size));
  // a chunk's scalars are read by its multiplication only, and the next chunk's are made after it ended
  const scalarsAt: ScalarsFn = typeof scalars === 'function' ? scalars : (start, m) => scalars.subarray(32 * start, 32 * (start + m));
  const chunk = (start: number, out: Uint8Array) => {
    const m = Math.min(chunkPoints, n - start);
    return Promise.resolve(mul(curve.name, group, base, scalarsAt(start, m), m, out));
  };
  let pending = n > 0 ? chunk(0, outs[0]!) : undefined;
  for (let start = 0, i = 0; start < n; start += chunkPoints, i ^= 1) {
    await pending;
    const next = start + chunkPoints;
    pending = next < n ? chunk(next, outs[i ^ 1]!) : undefined;
    // a failed write must not leave the next chunk's multiplication running into a buffer nobody awaits
    try {
      zk.write(outs[i]!.subarray(0, Math.min(chunkPoints, n - start) * size));
    } catch (err) {
      await pending?.catch(() => undefined);
      throw err;
    }
    onChunk?.(Math.min(next, n));
  }
}
