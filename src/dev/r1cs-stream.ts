// Reads an .r1cs (reference §2.4) in 16 MiB pieces: the header, then every term of section 2 handed to a
// visitor in file order. formats/r1cs.ts's readR1cs holds the whole section plus a copy (≈ 4 GB at 2^24
// constraints); dev-setup only needs one pass, so it streams. Wire ids are checked against nWires.

import { FormatError } from '../errors.js';
import { BinFile } from '../formats/binfile.js';
import { curveByR, describePrime, type CurveInfo } from '../formats/curves.js';
import { SectionCursor } from '../formats/section-cursor.js';

const N8 = 32;
const CHUNK_BYTES = 16 << 20;
const MATRIX = ['A', 'B', 'C'] as const;

export interface R1csInfo {
  readonly curve: CurveInfo;
  readonly nWires: number;
  readonly nPubOut: number;
  readonly nPubIn: number;
  readonly nPrvIn: number;
  readonly nConstraints: number;
}

/**
 * Called once per term: `matrix` 0 = A, 1 = B, 2 = C; the coefficient (standard LE) is the 32 bytes at `offset`
 * of `view`, valid only during the call.
 */
export type TermVisitor = (matrix: number, constraint: number, wire: number, view: DataView, offset: number) => void;

export function openR1cs(path: string): { file: BinFile; info: R1csInfo } {
  const file = BinFile.open(path, { magic: 'r1cs', versions: [1] });
  try {
    const cur = new SectionCursor(file.readSection(1), file.where(1));
    const n8 = cur.u32('n8');
    if (n8 !== N8) throw cur.fail(`n8 is ${n8}, expected ${N8}`);
    const prime = cur.bigint(n8, 'prime');
    const curve = curveByR(prime);
    if (!curve) throw cur.fail(`prime is ${describePrime(prime)}, not the scalar field of BN254 or BLS12-381`);
    const info = {
      curve, nWires: cur.u32('nWires'), nPubOut: cur.u32('nPubOut'), nPubIn: cur.u32('nPubIn'), nPrvIn: cur.u32('nPrvIn'),
      nLabels: cur.u64('nLabels'), nConstraints: cur.u32('nConstraints'),
    };
    if (info.nPubOut + info.nPubIn + info.nPrvIn + 1 > info.nWires) {
      throw cur.fail(`nWires ${info.nWires} is below 1 + outputs + inputs`);
    }
    return { file, info };
  } catch (err) {
    file.close();
    throw err;
  }
}

/** Sequential reader over one section with a refillable window. */
class Window {
  private buf = new Uint8Array(0);
  view = new DataView(this.buf.buffer);
  pos = 0;
  private end = 0;
  private fileDone = 0;

  constructor(
    private readonly file: BinFile,
    private readonly size: number,
    private readonly where: string,
    private readonly chunkBytes: number,
  ) {}

  /** Makes `n` bytes available at `pos`; FormatError if the section ends first. */
  need(n: number, what: () => string): void {
    if (this.pos + n <= this.end) return;
    const keep = this.end - this.pos;
    const left = this.size - this.fileDone;
    if (keep + left < n) throw new FormatError(`${this.where}: section ends before ${what()}`);
    if (n > this.buf.length) {
      const next = new Uint8Array(Math.max(n, Math.min(this.chunkBytes, this.size)));
      next.set(this.buf.subarray(this.pos, this.end), 0);
      this.buf = next;
      this.view = new DataView(next.buffer, next.byteOffset, next.byteLength);
    } else {
      this.buf.copyWithin(0, this.pos, this.end);
    }
    const more = Math.min(this.buf.length - keep, left);
    this.file.readRange(2, this.fileDone, more, this.buf.subarray(keep, keep + more));
    this.fileDone += more;
    this.pos = 0;
    this.end = keep + more;
  }

  get atEnd(): boolean {
    return this.pos === this.end && this.fileDone === this.size;
  }
}

/** One pass over section 2; `onConstraint(i)` runs before the terms of constraint i. */
export function forEachTerm(
  file: BinFile,
  info: R1csInfo,
  onConstraint: (i: number) => void,
  visit: TermVisitor,
  chunkBytes = CHUNK_BYTES,
): void {
  const where = file.where(2);
  const win = new Window(file, file.section(2).size, where, chunkBytes);
  const { nWires } = info;
  for (let i = 0; i < info.nConstraints; i++) {
    onConstraint(i);
    for (let m = 0; m < 3; m++) {
      win.need(4, () => `the term count of constraint ${i} ${MATRIX[m]}`);
      const nTerms = win.view.getUint32(win.pos, true);
      win.pos += 4;
      for (let t = 0; t < nTerms; t++) {
        win.need(4 + N8, () => `term ${t} of constraint ${i} ${MATRIX[m]}`);
        const wire = win.view.getUint32(win.pos, true);
        if (wire >= nWires) throw new FormatError(`${where}: constraint ${i} ${MATRIX[m]} term ${t} has wire ${wire}, expected < nWires ${nWires}`);
        visit(m, i, wire, win.view, win.pos + 4);
        win.pos += 4 + N8;
      }
    }
  }
  if (!win.atEnd) throw new FormatError(`${where}: bytes left after ${info.nConstraints} constraints`);
}
