// Bounds-checked sequential reads of one small header section (zkey §2, wtns §1, r1cs §1), so a
// short or corrupt section becomes a FormatError naming the file, the section and the field.

import { FormatError } from '../errors.js';
import { leToBigint } from './lem.js';

export class SectionCursor {
  pos = 0;
  private readonly view: DataView;

  /** `where` starts every message, e.g. "<path>: zkey section 2". */
  constructor(
    readonly bytes: Uint8Array,
    readonly where: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  fail(message: string): FormatError {
    return new FormatError(`${this.where}: ${message}`);
  }

  private need(n: number, field: string): number {
    if (this.pos + n > this.bytes.length) {
      throw this.fail(`${this.bytes.length} bytes is too short: ${field} needs bytes [${this.pos}, ${this.pos + n})`);
    }
    const at = this.pos;
    this.pos += n;
    return at;
  }

  u32(field: string): number {
    return this.view.getUint32(this.need(4, field), true);
  }

  /** A u64 that must be a safe JS integer (counts, labels). */
  u64(field: string): number {
    const v = this.view.getBigUint64(this.need(8, field), true);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw this.fail(`${field} is ${v}, above 2^53`);
    return Number(v);
  }

  bytesOf(n: number, field: string): Uint8Array {
    const at = this.need(n, field);
    return this.bytes.subarray(at, at + n);
  }

  bigint(n8: number, field: string): bigint {
    return leToBigint(this.bytes, this.need(n8, field), n8);
  }

  /** Exact-size sections: anything left over means the layout was misread or the file is corrupt. */
  expectEnd(layout: string): void {
    if (this.pos !== this.bytes.length) {
      throw this.fail(`expected ${this.pos} bytes (${layout}), got ${this.bytes.length}`);
    }
  }
}
