// readFileChecked: cuzk_file_read_checked, a key's big sections read from an open file into native
// buffers by the native thread pool (positional reads in chunks, as many in flight as the pool has
// threads) and checked chunk by chunk as they arrive. What the native core finds is returned per
// part, for the caller to name in its own words (file, section, record or point).
import { CuzkError } from '../errors.js';
import { loadCore } from './load.js';
import { callAsync, CURVE_ID, pointDefectOf, sizesOf, type CurveName, type PointDefect } from './native.js';
import type { NativeBuffer } from './native-buffer.js';

/** cuzk_read_check: bytes only, G1 or G2 points (canonical, on the curve), zkey coefficient records. */
const CHECK = { raw: 0, g1: 1, g2: 2, coefs: 3 } as const;
export type ReadCheck = keyof typeof CHECK;
/** cuzk_read_flags */
const READ_DEST_ZEROED = 1;
const PART_BYTES = 48; // sizeof(cuzk_read_part), static_assert'ed in native/api/key_read.cpp
const COEF_BYTES = 12 + 32;

export interface ReadPart {
  /** Where the part starts in the file, and how many bytes it has (a whole number of items). */
  readonly fileOffset: number;
  readonly bytes: number;
  readonly into: NativeBuffer;
  readonly check: ReadCheck;
  /** `into` holds zeros already (a fresh allocMapped): the file's holes are then left unread
   * (CUZK_READ_DEST_ZEROED), so a sparse file costs only its data in memory. */
  readonly zeroed?: boolean;
}

export type ReadDefect =
  | { readonly kind: 'point'; readonly index: number; readonly defect: PointDefect }
  | { readonly kind: 'record'; readonly index: number }
  /** The file ended at byte `at` (it shrank after it was opened). */
  | { readonly kind: 'ended'; readonly at: number }
  | { readonly kind: 'io'; readonly at: number; readonly errno: number };

function itemBytes(curve: CurveName, check: ReadCheck): number {
  const z = sizesOf(curve);
  return check === 'g1' ? z.g1 : check === 'g2' ? z.g2 : check === 'coefs' ? COEF_BYTES : 1;
}

function encode(curve: CurveName, parts: readonly ReadPart[]): Uint8Array {
  const out = new Uint8Array(Math.max(1, parts.length) * PART_BYTES);
  const v = new DataView(out.buffer);
  parts.forEach((p, i) => {
    const item = itemBytes(curve, p.check);
    if (!Number.isSafeInteger(p.fileOffset) || p.fileOffset < 0 || !Number.isSafeInteger(p.bytes) || p.bytes < 0 || p.bytes % item !== 0) {
      throw new CuzkError('E_INVALID_ARG', `readFileChecked: part ${i} (${p.bytes} bytes at ${p.fileOffset}) is not ${item}-byte items at a file offset`);
    }
    if (p.into.byteLength < p.bytes) throw new CuzkError('E_INVALID_ARG', `readFileChecked: part ${i} needs ${p.bytes} bytes, its buffer holds ${p.into.byteLength}`);
    const o = i * PART_BYTES;
    v.setBigUint64(o, BigInt(p.fileOffset), true);
    v.setBigUint64(o + 8, BigInt(p.bytes), true);
    v.setBigUint64(o + 16, p.into.pointer, true);
    v.setInt32(o + 24, CHECK[p.check], true);
    v.setInt32(o + 44, p.zeroed ? READ_DEST_ZEROED : 0, true);
  });
  return out;
}

function decode(raw: Uint8Array, i: number): ReadDefect | undefined {
  const v = new DataView(raw.buffer, i * PART_BYTES, PART_BYTES);
  const defect = v.getInt32(28, true);
  const firstBad = Number(v.getBigInt64(32, true));
  switch (defect) {
    case 0: return undefined;
    case 1: case 2: case 3: return { kind: 'point', index: firstBad, defect: pointDefectOf(defect) };
    case 4: return { kind: 'record', index: firstBad };
    case 5: return { kind: 'ended', at: firstBad };
    case 6: return { kind: 'io', at: firstBad, errno: v.getInt32(40, true) };
    default: throw new CuzkError('E_INTERNAL', `cuzk_file_read_checked: unknown defect ${defect} in part ${i}`);
  }
}

/**
 * Reads every part of the open file `fd` into its buffer and checks it (coefficient records against
 * `domainSize` and `nVars`), off the event loop; one entry per part, undefined where it is good.
 * The defect lowest in the file is always reported; parts after it may report none or a later one
 * (their chunks past it are skipped). Buffers must not be touched meanwhile.
 */
export async function readFileChecked(fd: number, curve: CurveName, bounds: { domainSize: number; nVars: number }, parts: readonly ReadPart[]): Promise<(ReadDefect | undefined)[]> {
  if (!Number.isInteger(fd) || fd < 0) throw new CuzkError('E_INVALID_ARG', `readFileChecked: bad file descriptor ${fd}`);
  const raw = encode(curve, parts);
  await callAsync('cuzk_file_read_checked', (s, cb) =>
    loadCore().abi.file_read_checked.async(fd, CURVE_ID[curve], bounds.domainSize, bounds.nVars, raw, parts.length, s, cb),
  );
  return parts.map((_, i) => decode(raw, i));
}
