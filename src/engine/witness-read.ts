// A witness's values from its .wtns (a file, or an image in memory) into the buffer a proof uses (the
// pooled pinned buffer the GPU uploads from) by the native pool, read or copied and checked below r in
// one pass (ffi/scalars-read.ts), so the event loop neither copies nor checks them: done there, a
// 10-partition job's first proof waited ~132 ms at 2^22 for its witness and the lanes' completions
// waited behind each next copy (H200, issue 32). The one road every proof's witness takes.
import { getSystemErrorName } from 'node:util';
import { InternalError } from '../errors.js';
import type { WtnsFile } from '../formats/wtns.js';
import { readScalarsChecked } from '../ffi/scalars-read.js';

/** The values of `wtns` into `into` (at least witnessBytes; returned as a view of exactly that many).
 * Throws FormatError for a value not below r (naming it) or a file that shrank since it was opened. */
export async function readWitnessValues(wtns: WtnsFile, into: Uint8Array): Promise<Uint8Array> {
  const h = wtns.header;
  const out = into.subarray(0, wtns.witnessBytes);
  const d = await readScalarsChecked(wtns.valuesSource, h.curve, h.nWitness, out);
  if (d === undefined) return out;
  if (d.kind === 'scalar') throw wtns.valueError(d.index);
  if (d.kind === 'ended') throw wtns.endedError(d.at);
  throw new InternalError('E_INTERNAL', `${h.path}: read at byte ${d.at} failed: ${getSystemErrorName(-d.errno)}`);
}
