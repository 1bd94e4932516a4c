// The QAP of an .r1cs at a known τ for dev-setup: A_j(τ), B_j(τ), C_j(τ) per wire and the zkey's
// coefficient section, in one pass over section 2 read in 16 MiB windows (formats/r1cs.ts's readR1cs would
// hold the whole section plus a copy, ≈ 4 GB at 2^24 constraints). The arithmetic is the native core's
// (cuzk_r1cs_accumulate, threaded): in BigInt it was ~1 µs a term, over a minute at 2^24.

import { CuzkError, FormatError } from '../errors.js';
import type { BinFile } from '../formats/binfile.js';
import { coefRecordBytes, r1csAccumulate } from '../ffi/native.js';
import type { BinWriter } from './bin-writer.js';
import type { ProgressFn } from './dev-circuit.js';
import { FrVec } from './field-bigint.js';
import type { R1csInfo } from './r1cs-stream.js';

const CHUNK_BYTES = 16 << 20;

export interface QapSums {
  /** A_j(τ), B_j(τ), C_j(τ) per wire, in the native core's Montgomery form until cuzk_qap_combine. */
  readonly acc: readonly [FrVec, FrVec, FrVec];
  readonly nCoefs: number;
}

/** The .r1cs bytes of one constraint per public wire s ≤ nPublic: A = 1·w_s, B = C = 0 (snarkjs's extra rows, reference §1.3). */
function publicRows(nPublic: number): Uint8Array {
  const out = new Uint8Array((nPublic + 1) * 48);
  const v = new DataView(out.buffer);
  for (let s = 0; s <= nPublic; s++) {
    v.setUint32(48 * s, 1, true);
    v.setUint32(48 * s + 4, s, true);
    out[48 * s + 8] = 1;
  }
  return out;
}

/**
 * Writes section 4 (coefficients) into the open zkey and returns the per-wire sums; `rows` holds L_i(τ) for
 * every QAP row (constraints, then nPublic + 1 public rows) as 32-byte standard slots.
 */
export function accumulateQap(zk: BinWriter, file: BinFile, info: R1csInfo, nPublic: number, rows: Uint8Array, progress: ProgressFn, chunkBytes = CHUNK_BYTES): QapSums {
  const curve = info.curve.name;
  const acc = [new FrVec(info.nWires), new FrVec(info.nWires), new FrVec(info.nWires)] as const;
  const accBytes = [acc[0].bytes, acc[1].bytes, acc[2].bytes] as const;
  const where = file.where(2);
  let nCoefs = 0;
  let coefs = new Uint8Array(0);
  const pass = (data: Uint8Array, firstRow: number, maxRows: number) => {
    if (coefs.length < coefRecordBytes(data.length)) coefs = new Uint8Array(coefRecordBytes(data.length));
    try {
      const done = r1csAccumulate(curve, data, firstRow, maxRows, info.nWires, rows.subarray(32 * firstRow), accBytes, coefs);
      zk.write(coefs.subarray(0, 44 * done.coefs));
      nCoefs += done.coefs;
      return done;
    } catch (err) {
      if (err instanceof CuzkError && err.code === 'E_FORMAT') throw new FormatError(`${where}: ${err.message.replace(/^cuzk_r1cs_accumulate: /, '')}`);
      throw err;
    }
  };
  zk.beginSection(4);
  const countAt = zk.position;
  zk.u32(0);
  const size = file.section(2).size;
  let buf = new Uint8Array(Math.min(chunkBytes, Math.max(size, 1)));
  let [fileDone, kept, row] = [0, 0, 0];
  while (row < info.nConstraints) {
    const more = Math.min(buf.length - kept, size - fileDone);
    file.readRange(2, fileDone, more, buf.subarray(kept, kept + more));
    fileDone += more;
    const end = kept + more;
    const done = pass(buf.subarray(0, end), row, info.nConstraints - row);
    row += done.rows;
    kept = end - done.bytes;
    if (done.rows === 0) {
      if (fileDone === size) throw new FormatError(`${where}: section ends inside constraint ${row}`);
      const grown = new Uint8Array(2 * buf.length);
      grown.set(buf.subarray(0, kept));
      buf = grown;
    } else {
      buf.copyWithin(0, done.bytes, end);
    }
    progress('constraints', row, info.nConstraints);
  }
  if (kept !== 0 || fileDone !== size) throw new FormatError(`${where}: bytes left after ${info.nConstraints} constraints`);
  pass(publicRows(nPublic), info.nConstraints, nPublic + 1);
  zk.endSection();
  const count = new Uint8Array(4);
  new DataView(count.buffer).setUint32(0, nCoefs, true);
  zk.patch(countAt, count);
  return { acc, nCoefs };
}
