// readScalarsChecked: cuzk_scalars_read_checked, a witness's values (32-byte standard scalars) read
// into the caller's buffer (the pooled pinned buffer the GPU uploads from) by the native pool, from
// an open file or from an image in memory, each chunk checked below r as it lands: the event loop
// neither copies nor checks them. What the native core finds is returned for the caller to name.
import { CuzkError } from '../errors.js';
import { loadCore } from './load.js';
import { callAsync, CURVE_ID, type CurveName } from './native.js';

const SCALAR_BYTES = 32;
/** cuzk_read_defect */
const DEFECT = { ok: 0, ended: 5, io: 6, badScalar: 7 } as const;

/** Bytes `[offset, offset + 32n)` of the open file `fd`, or of the image `bytes`. */
export type ScalarSource = { readonly fd: number; readonly offset: number } | { readonly bytes: Uint8Array; readonly offset: number };

export type ScalarDefect =
  /** Value `index` is not below r. */
  | { readonly kind: 'scalar'; readonly index: number }
  /** The file ended at byte `at` (it shrank after it was opened). */
  | { readonly kind: 'ended'; readonly at: number }
  | { readonly kind: 'io'; readonly at: number; readonly errno: number };

/**
 * Reads `n` scalars of `curve`'s scalar field from `source` into `into` (at least 32n bytes; not to be
 * touched meanwhile), off the event loop on the native pool; undefined when every value is below r,
 * else the defect (the lowest bad index; a file that ended or failed, where).
 */
export async function readScalarsChecked(source: ScalarSource, curve: CurveName, n: number, into: Uint8Array): Promise<ScalarDefect | undefined> {
  const bytes = n * SCALAR_BYTES;
  if (!Number.isSafeInteger(n) || n < 0) throw new CuzkError('E_INVALID_ARG', `readScalarsChecked: bad count ${n}`);
  if (!Number.isSafeInteger(source.offset) || source.offset < 0) throw new CuzkError('E_INVALID_ARG', `readScalarsChecked: bad offset ${source.offset}`);
  if (into.byteLength < bytes) throw new CuzkError('E_INVALID_ARG', `readScalarsChecked: ${n} values need ${bytes} bytes, the buffer holds ${into.byteLength}`);
  const image = 'bytes' in source ? source.bytes : null;
  if (image && source.offset + bytes > image.byteLength) {
    throw new CuzkError('E_INVALID_ARG', `readScalarsChecked: ${n} values at byte ${source.offset} run past the image's ${image.byteLength} bytes`);
  }
  const fd = 'fd' in source ? source.fd : -1;
  if ('fd' in source && (!Number.isInteger(fd) || fd < 0)) throw new CuzkError('E_INVALID_ARG', `readScalarsChecked: bad file descriptor ${fd}`);
  if (n === 0) return undefined;
  const defect = new Int32Array(1);
  const firstBad = new BigInt64Array(1);
  const errno = new Int32Array(1);
  await callAsync('cuzk_scalars_read_checked', (s, cb) =>
    loadCore().abi.scalars_read_checked.async(fd, image, source.offset, CURVE_ID[curve], n, into, defect, firstBad, errno, s, cb),
  );
  const at = Number(firstBad[0]);
  switch (defect[0]) {
    case DEFECT.ok: return undefined;
    case DEFECT.badScalar: return { kind: 'scalar', index: at };
    case DEFECT.ended: return { kind: 'ended', at };
    case DEFECT.io: return { kind: 'io', at, errno: errno[0]! };
    default: throw new CuzkError('E_INTERNAL', `cuzk_scalars_read_checked: unknown defect ${defect[0]}`);
  }
}
