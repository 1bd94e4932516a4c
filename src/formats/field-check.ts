// Bulk range checks for little-endian field elements stored in files (witness values, zkey/r1cs coefficients).
// Compares 32-bit words from the top down and stops at the first that differs: uniform values decide on the
// top word; circom's negative coefficients (r − k) tie on every word but the lowest, still without BigInt.
// (2^24 witness values ≈ 0.2 s; 2^22 r1cs terms of r − k ≈ the same, where a BigInt fallback took 2 s.)

export interface BelowCheck {
  /** True when the `n8`-byte LE value at `offset` of `view` is < modulus. */
  (view: DataView, offset: number): boolean;
}

export function makeBelowCheck(modulus: bigint, n8: number): BelowCheck {
  if (n8 % 4 !== 0 || n8 < 4 || modulus <= 0n || modulus >> BigInt(8 * n8) !== 0n) {
    throw new RangeError(`makeBelowCheck: modulus does not fit ${n8} bytes of whole 32-bit words`);
  }
  const words = Uint32Array.from({ length: n8 / 4 }, (_, i) => Number((modulus >> BigInt(32 * i)) & 0xffffffffn));
  const top = words.length - 1;
  const mTop = words[top];
  return (view, offset) => {
    const v = view.getUint32(offset + 4 * top, true);
    if (v !== mTop) return v < mTop;
    for (let i = top - 1; i >= 0; i--) {
      const w = view.getUint32(offset + 4 * i, true);
      if (w !== words[i]) return w < words[i];
    }
    return false;
  };
}

export function dataViewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const littleEndianHost = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Index of the first of `count` values (`n8` bytes each, `stride` apart, starting at `start`) that is not
 * below `modulus`, or -1 when all are.
 */
export function firstNotBelow(
  bytes: Uint8Array,
  modulus: bigint,
  n8: number,
  count: number,
  stride = n8,
  start = 0,
): number {
  const below = makeBelowCheck(modulus, n8);
  const view = dataViewOf(bytes);
  const at = bytes.byteOffset + start;
  if (littleEndianHost && at % 4 === 0 && stride % 4 === 0 && count > 0) {
    // Aligned words on a little-endian host: read each value's top word straight from a Uint32Array
    // and call the full check only on a tie (a witness of 2^20 values: ~1 ms instead of ~8 ms through
    // DataView calls, on the daemon's event loop for every job).
    const words = new Uint32Array(bytes.buffer, at, ((count - 1) * stride + n8) / 4);
    const top = n8 / 4 - 1;
    const step = stride / 4;
    const mTop = Number((modulus >> BigInt(32 * top)) & 0xffffffffn);
    for (let i = 0, w = top; i < count; i++, w += step) {
      const v = words[w]!;
      if (v < mTop) continue;
      if (v > mTop || !below(view, start + i * stride)) return i;
    }
    return -1;
  }
  for (let i = 0, o = start; i < count; i++, o += stride) if (!below(view, o)) return i;
  return -1;
}
