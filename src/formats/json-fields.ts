// Strict readers and writers for the number encodings inside snarkjs's JSON files (reference §1.4): decimal
// strings, G1 [x, y, z] and G2 [[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]] with z = 1 (affine) or 0 (infinity,
// written by ffjavascript's toObject as ["0","1","0"]). Errors name the file and the field path.

import { FormatError } from '../errors.js';
import { curveByName, type CurveInfo, type CurveName } from './curves.js';
import type { Fp2, G1Affine, G2Affine } from './lem.js';

export type G1Json = [x: string, y: string, z: string];
export type G2Json = [x: [string, string], y: [string, string], z: [string, string]];

// 2^384 has 116 decimal digits; the cap keeps a hostile file from making BigInt parse megabytes.
const DECIMAL = /^[0-9]{1,200}$/;

export function fail(file: string, field: string, message: string): FormatError {
  return new FormatError(`${file}: ${field} ${message}`);
}

/** Accepts JSON text, its UTF-8 bytes, or an already-parsed value. */
export function parseJsonInput(input: unknown, file: string): unknown {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) return input;
  const text = typeof input === 'string' ? input : new TextDecoder().decode(input);
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new FormatError(`${file}: not valid JSON: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

export function asObject(v: unknown, file: string, field: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw fail(file, field, 'is not an object');
  return v as Record<string, unknown>;
}

export function asArray(v: unknown, file: string, field: string, length?: number): unknown[] {
  if (!Array.isArray(v)) throw fail(file, field, 'is not an array');
  if (length !== undefined && v.length !== length) throw fail(file, field, `has ${v.length} elements, expected ${length}`);
  return v;
}

/** A decimal string < `bound` (named `boundName` in the message). */
export function decimal(v: unknown, file: string, field: string, bound?: bigint, boundName = 'the field prime'): bigint {
  if (typeof v !== 'string' || !DECIMAL.test(v)) throw fail(file, field, 'is not a decimal string');
  const n = BigInt(v);
  if (bound !== undefined && n >= bound) throw fail(file, field, `is not below ${boundName}`);
  return n;
}

export function curveField(obj: Record<string, unknown>, file: string, fallback?: CurveName): CurveInfo {
  const raw = obj.curve;
  if (raw === undefined) {
    if (fallback) return curveByName(fallback)!;
    throw fail(file, 'curve', 'is missing (expected "bn128" or "bls12381")');
  }
  const info = typeof raw === 'string' ? curveByName(raw) : undefined;
  if (!info) throw fail(file, 'curve', `is ${JSON.stringify(raw)}, expected "bn128" or "bls12381"`);
  if (fallback && info.name !== fallback) throw fail(file, 'curve', `is "${info.name}" but "${fallback}" was expected`);
  return info;
}

export function protocolField(obj: Record<string, unknown>, file: string): void {
  if (obj.protocol === undefined) throw fail(file, 'protocol', 'is missing (expected "groth16")');
  if (obj.protocol !== 'groth16') throw fail(file, 'protocol', `is ${JSON.stringify(obj.protocol)}, expected "groth16"`);
}

function fp(v: unknown, file: string, field: string, curve: CurveInfo): bigint {
  return decimal(v, file, field, curve.q, `the ${curve.label} base field prime q`);
}

function fp2(v: unknown, file: string, field: string, curve: CurveInfo): Fp2 {
  const a = asArray(v, file, field, 2);
  return [fp(a[0], file, `${field}[0]`, curve), fp(a[1], file, `${field}[1]`, curve)];
}

export function parseG1(v: unknown, file: string, field: string, curve: CurveInfo): G1Affine | null {
  const a = asArray(v, file, field, 3);
  const x = fp(a[0], file, `${field}[0]`, curve);
  const y = fp(a[1], file, `${field}[1]`, curve);
  const z = fp(a[2], file, `${field}[2]`, curve);
  if (z === 0n) {
    if (x !== 0n) throw fail(file, field, 'has z = 0 but x ≠ 0 (infinity is ["0","1","0"])');
    return null;
  }
  if (z !== 1n) throw fail(file, `${field}[2]`, 'is not "1" (expected affine coordinates)');
  return { x, y };
}

export function parseG2(v: unknown, file: string, field: string, curve: CurveInfo): G2Affine | null {
  const a = asArray(v, file, field, 3);
  const x = fp2(a[0], file, `${field}[0]`, curve);
  const y = fp2(a[1], file, `${field}[1]`, curve);
  const z = fp2(a[2], file, `${field}[2]`, curve);
  if (z[0] === 0n && z[1] === 0n) {
    if (x[0] !== 0n || x[1] !== 0n) throw fail(file, field, 'has z = 0 but x ≠ 0 (infinity is [["0","0"],["1","0"],["0","0"]])');
    return null;
  }
  if (z[0] !== 1n || z[1] !== 0n) throw fail(file, `${field}[2]`, 'is not ["1","0"] (expected affine coordinates)');
  return { x, y };
}

export function g1ToJson(p: G1Affine | null): G1Json {
  return p === null ? ['0', '1', '0'] : [p.x.toString(), p.y.toString(), '1'];
}

export function g2ToJson(p: G2Affine | null): G2Json {
  if (p === null) return [['0', '0'], ['1', '0'], ['0', '0']];
  return [[p.x[0].toString(), p.x[1].toString()], [p.y[0].toString(), p.y[1].toString()], ['1', '0']];
}
