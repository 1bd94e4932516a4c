// The QAP of a circuit at a known τ for dev-setup: A_j(τ), B_j(τ), C_j(τ) per wire and the zkey's coefficient
// section, in one pass over the constraints as they come (QapAccumulator): from an .r1cs section 2 read in
// 16 MiB windows (accumulateQap; formats/r1cs.ts's readR1cs would hold the whole section plus a copy, ≈ 4 GB
// at 2^24 constraints), or from a dev circuit's segments as they are made (no .r1cs at all). The row values
// L_i(τ) are made 2^20 at a time as the rows come, not all at once (2 GiB at 2^26). The arithmetic is the
// native core's (cuzk_r1cs_accumulate, threaded): in BigInt it was ~1 µs a term, over a minute at 2^24.

import { CuzkError, FormatError, InputError } from '../errors.js';
import type { BinFile } from '../formats/binfile.js';
import { coefRecordBytes, r1csAccumulate } from '../ffi/native.js';
import type { BinWriter } from './bin-writer.js';
import type { ProgressFn } from './dev-circuit.js';
import { FrVec } from './field-bigint.js';
import type { R1csInfo } from './r1cs-stream.js';

const CHUNK_BYTES = 16 << 20;
const ROW_BLOCK = 1 << 20;
const MAX_COEFS = 0xffffffff;

export interface QapSums {
  /** A_j(τ), B_j(τ), C_j(τ) per wire, in the native core's Montgomery form until cuzk_qap_combine. */
  readonly acc: readonly [FrVec, FrVec, FrVec];
  readonly nCoefs: number;
}

/** out[j] = the value of QAP row first + j for j < count, 32-byte standard slots (dev-setup: L_i(τ)). */
export type RowValuesFn = (first: number, count: number, out: Uint8Array) => void;

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
 * Section 4 (coefficients) of an open zkey and the per-wire sums, from whole constraints fed in order; `where`
 * names the source in errors. Memory: the three sums (96 bytes a wire), a block of row values (32 MiB) and the
 * records of one feed (1.22 bytes per byte fed).
 */
export class QapAccumulator {
  private readonly acc: readonly [FrVec, FrVec, FrVec];
  private readonly accBytes: readonly [Uint8Array, Uint8Array, Uint8Array];
  private readonly rows: Uint8Array;
  private rowsFrom = 0;
  private rowsTo = 0;
  private coefs = new Uint8Array(0);
  private readonly countAt: number;
  private row = 0;
  private nCoefs = 0;

  constructor(
    private readonly zk: BinWriter,
    private readonly info: R1csInfo,
    private readonly nPublic: number,
    private readonly rowValues: RowValuesFn,
    private readonly where: string,
    private readonly rowBlock = ROW_BLOCK,
  ) {
    this.acc = [new FrVec(info.nWires), new FrVec(info.nWires), new FrVec(info.nWires)];
    this.accBytes = [this.acc[0].bytes, this.acc[1].bytes, this.acc[2].bytes];
    this.rows = new Uint8Array(32 * Math.min(rowBlock, info.nConstraints + nPublic + 1));
    zk.beginSection(4);
    this.countAt = zk.position;
    zk.u32(0);
  }

  /** Constraints consumed so far. */
  get rowsDone(): number {
    return this.row;
  }

  /**
   * The whole constraints at the start of `data`, at most `maxRows`; returns the bytes and rows consumed (a
   * constraint cut by the end of `data` is left for the next call).
   */
  feed(data: Uint8Array, maxRows: number): { bytes: number; rows: number } {
    let [bytes, rows] = [0, 0];
    while (rows < maxRows) {
      if (this.row === this.rowsTo) this.nextRowBlock();
      const done = this.pass(data.subarray(bytes), Math.min(maxRows - rows, this.rowsTo - this.row));
      if (done.rows === 0) break;
      bytes += done.bytes;
      rows += done.rows;
    }
    return { bytes, rows };
  }

  /** The public rows, then section 4 closed with its record count patched in. */
  finish(): QapSums {
    if (this.row !== this.info.nConstraints) throw new FormatError(`${this.where}: ${this.row} constraints accumulated, expected ${this.info.nConstraints}`);
    const extra = publicRows(this.nPublic);
    if (this.feed(extra, this.nPublic + 1).bytes !== extra.length) throw new CuzkError('E_INTERNAL', 'dev-setup: the public rows were not all accumulated');
    this.zk.endSection();
    const count = new Uint8Array(4);
    new DataView(count.buffer).setUint32(0, this.nCoefs, true);
    this.zk.patch(this.countAt, count);
    return { acc: this.acc, nCoefs: this.nCoefs };
  }

  private nextRowBlock(): void {
    const total = this.info.nConstraints + this.nPublic + 1;
    const count = Math.min(this.rowBlock, total - this.row);
    this.rowValues(this.row, count, this.rows.subarray(0, 32 * count));
    [this.rowsFrom, this.rowsTo] = [this.row, this.row + count];
  }

  private pass(data: Uint8Array, maxRows: number): { bytes: number; rows: number } {
    if (this.coefs.length < coefRecordBytes(data.length)) this.coefs = new Uint8Array(coefRecordBytes(data.length));
    const l = this.rows.subarray(32 * (this.row - this.rowsFrom));
    try {
      const done = r1csAccumulate(this.info.curve.name, data, this.row, maxRows, this.info.nWires, l, this.accBytes, this.coefs);
      this.nCoefs += done.coefs;
      // snarkjs's section 4 counts its records in a u32 (the prover reads it so too): refuse, never wrap
      if (this.nCoefs > MAX_COEFS) throw new InputError('E_INVALID_ARG', `${this.where}: ${this.nCoefs} A and B terms by constraint ${this.row + done.rows}, more than a zkey's u32 record count holds (${MAX_COEFS})`);
      this.zk.write(this.coefs.subarray(0, 44 * done.coefs));
      this.row += done.rows;
      return done;
    } catch (err) {
      if (err instanceof CuzkError && err.code === 'E_FORMAT') throw new FormatError(`${this.where}: ${err.message.replace(/^cuzk_r1cs_accumulate: /, '')}`);
      throw err;
    }
  }
}

/** Section 4 and the per-wire sums from an .r1cs file's section 2, read in windows of `chunkBytes`. */
export function accumulateQap(zk: BinWriter, file: BinFile, info: R1csInfo, nPublic: number, rowValues: RowValuesFn, progress: ProgressFn,
  chunkBytes = CHUNK_BYTES, rowBlock = ROW_BLOCK): QapSums {
  const where = file.where(2);
  const qap = new QapAccumulator(zk, info, nPublic, rowValues, where, rowBlock);
  const size = file.section(2).size;
  let buf = new Uint8Array(Math.min(chunkBytes, Math.max(size, 1)));
  let [fileDone, kept] = [0, 0];
  while (qap.rowsDone < info.nConstraints) {
    const more = Math.min(buf.length - kept, size - fileDone);
    file.readRange(2, fileDone, more, buf.subarray(kept, kept + more));
    fileDone += more;
    const end = kept + more;
    const done = qap.feed(buf.subarray(0, end), info.nConstraints - qap.rowsDone);
    kept = end - done.bytes;
    if (done.rows === 0) {
      if (fileDone === size) throw new FormatError(`${where}: section ends inside constraint ${qap.rowsDone}`);
      const grown = new Uint8Array(2 * buf.length);
      grown.set(buf.subarray(0, kept));
      buf = grown;
    } else {
      buf.copyWithin(0, done.bytes, end);
    }
    progress('constraints', qap.rowsDone, info.nConstraints);
  }
  if (kept !== 0 || fileDone !== size) throw new FormatError(`${where}: bytes left after ${info.nConstraints} constraints`);
  return qap.finish();
}
