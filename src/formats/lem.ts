// LEM point bytes <-> BigInt coordinates, and little-endian scalars <-> BigInt.
// LEM (snarkjs/ffjavascript files): affine, little-endian, each coordinate x·R mod q with R = 2^(8·n8q);
// G2 coordinates are c0 ‖ c1; the point at infinity is all-zero bytes (reference §2.2). Pure BigInt.

import { FormatError, InputError } from '../errors.js';
import type { CurveInfo } from './curves.js';

export type Fp2 = readonly [c0: bigint, c1: bigint];
export interface G1Affine {
  readonly x: bigint;
  readonly y: bigint;
}
export interface G2Affine {
  readonly x: Fp2;
  readonly y: Fp2;
}

export function g1Bytes(curve: CurveInfo): number {
  return 2 * curve.n8q;
}

export function g2Bytes(curve: CurveInfo): number {
  return 4 * curve.n8q;
}

/** Unsigned little-endian integer of `n8` bytes at `offset`. */
export function leToBigint(bytes: Uint8Array, offset = 0, n8 = bytes.length - offset): bigint {
  if (offset < 0 || offset + n8 > bytes.length) {
    throw new InputError('E_INVALID_ARG', `leToBigint: bytes [${offset}, ${offset + n8}) outside a ${bytes.length}-byte buffer`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, n8);
  let v = 0n;
  let i = n8;
  // 64-bit limbs where possible: four BigInt steps per 32-byte value instead of thirty-two.
  for (; i >= 8; i -= 8) v = (v << 64n) | view.getBigUint64(i - 8, true);
  for (; i > 0; i--) v = (v << 8n) | BigInt(view.getUint8(i - 1));
  return v;
}

/** Writes `v` as `n8` little-endian bytes into `into` (fresh if omitted); InputError if it does not fit. */
export function bigintToLe(v: bigint, n8: number, into?: Uint8Array, offset = 0): Uint8Array {
  if (v < 0n || v >> BigInt(8 * n8) !== 0n) {
    throw new InputError('E_INVALID_ARG', `bigintToLe: ${v} does not fit in ${n8} bytes`);
  }
  const out = into ?? new Uint8Array(n8);
  if (offset < 0 || offset + n8 > out.length) {
    throw new InputError('E_INVALID_ARG', `bigintToLe: bytes [${offset}, ${offset + n8}) outside a ${out.length}-byte buffer`);
  }
  const view = new DataView(out.buffer, out.byteOffset + offset, n8);
  let i = 0;
  for (; i + 8 <= n8; i += 8, v >>= 64n) view.setBigUint64(i, BigInt.asUintN(64, v), true);
  for (; i < n8; i++, v >>= 8n) view.setUint8(i, Number(v & 0xffn));
  return out;
}

export function scalarFromLe(bytes: Uint8Array, offset = 0, n8 = 32): bigint {
  return leToBigint(bytes, offset, n8);
}

export function scalarToLe(v: bigint, n8 = 32, into?: Uint8Array, offset = 0): Uint8Array {
  return bigintToLe(v, n8, into, offset);
}

function modPow(base: bigint, exp: bigint, m: bigint): bigint {
  let result = 1n;
  base %= m;
  for (; exp > 0n; exp >>= 1n, base = (base * base) % m) if (exp & 1n) result = (result * base) % m;
  return result;
}

const montCache = new Map<bigint, { r: bigint; rInv: bigint }>();
function mont(curve: CurveInfo): { r: bigint; rInv: bigint } {
  let m = montCache.get(curve.q);
  if (!m) {
    const r = (1n << BigInt(8 * curve.n8q)) % curve.q;
    m = { r, rInv: modPow(r, curve.q - 2n, curve.q) }; // q prime: Fermat inverse
    montCache.set(curve.q, m);
  }
  return m;
}

export function toMont(a: bigint, curve: CurveInfo): bigint {
  return (a * mont(curve).r) % curve.q;
}

export function fromMont(a: bigint, curve: CurveInfo): bigint {
  return (a * mont(curve).rInv) % curve.q;
}

function isZero(bytes: Uint8Array, offset: number, n: number): boolean {
  for (let i = offset; i < offset + n; i++) if (bytes[i] !== 0) return false;
  return true;
}

function readCoord(bytes: Uint8Array, offset: number, curve: CurveInfo, what: string): bigint {
  const v = leToBigint(bytes, offset, curve.n8q);
  if (v >= curve.q) throw new FormatError(`${what}: coordinate at byte ${offset} is not below the ${curve.label} base field prime`);
  return fromMont(v, curve);
}

function checkSpan(bytes: Uint8Array, offset: number, n: number, what: string): void {
  if (offset < 0 || offset + n > bytes.length) {
    throw new InputError('E_INVALID_ARG', `${what}: needs bytes [${offset}, ${offset + n}) of a ${bytes.length}-byte buffer`);
  }
}

/** `what` prefixes error messages (e.g. "<path>: zkey section 2 alpha1"); null = infinity. */
export function decodeG1(bytes: Uint8Array, curve: CurveInfo, offset = 0, what = 'G1 point'): G1Affine | null {
  const n = curve.n8q;
  checkSpan(bytes, offset, 2 * n, what);
  if (isZero(bytes, offset, 2 * n)) return null;
  return { x: readCoord(bytes, offset, curve, what), y: readCoord(bytes, offset + n, curve, what) };
}

export function decodeG2(bytes: Uint8Array, curve: CurveInfo, offset = 0, what = 'G2 point'): G2Affine | null {
  const n = curve.n8q;
  checkSpan(bytes, offset, 4 * n, what);
  if (isZero(bytes, offset, 4 * n)) return null;
  const c = (k: number) => readCoord(bytes, offset + k * n, curve, what);
  return { x: [c(0), c(1)], y: [c(2), c(3)] };
}

function writeCoord(v: bigint, curve: CurveInfo, out: Uint8Array, offset: number): void {
  if (v < 0n || v >= curve.q) throw new InputError('E_INVALID_ARG', `coordinate ${v} is not below the ${curve.label} base field prime`);
  bigintToLe(toMont(v, curve), curve.n8q, out, offset);
}

export function encodeG1(p: G1Affine | null, curve: CurveInfo, into?: Uint8Array, offset = 0): Uint8Array {
  const n = curve.n8q;
  const out = into ?? new Uint8Array(2 * n);
  checkSpan(out, offset, 2 * n, 'encodeG1');
  if (p === null) {
    out.fill(0, offset, offset + 2 * n);
    return out;
  }
  writeCoord(p.x, curve, out, offset);
  writeCoord(p.y, curve, out, offset + n);
  return out;
}

export function encodeG2(p: G2Affine | null, curve: CurveInfo, into?: Uint8Array, offset = 0): Uint8Array {
  const n = curve.n8q;
  const out = into ?? new Uint8Array(4 * n);
  checkSpan(out, offset, 4 * n, 'encodeG2');
  if (p === null) {
    out.fill(0, offset, offset + 4 * n);
    return out;
  }
  [p.x[0], p.x[1], p.y[0], p.y[1]].forEach((v, k) => writeCoord(v, curve, out, offset + k * n));
  return out;
}
