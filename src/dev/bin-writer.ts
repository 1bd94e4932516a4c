// Streaming writer for the snarkjs binary container (reference §2.1: magic, u32 version, u32 nSections, then
// {u32 type, u64 size, bytes} per section). Unlike formats/binfile.ts's writeBinFile it never holds a whole
// section: bytes go through a 4 MiB buffer, and each section's size is patched in when it ends (as
// binfileutils' endWriteSection does), so 2^24-constraint files stream in constant memory.

import * as fs from 'node:fs';
import { InternalError } from '../errors.js';

const BUFFER_BYTES = 4 << 20;

export class BinWriter {
  private readonly buf = new Uint8Array(BUFFER_BYTES);
  private readonly bufView = new DataView(this.buf.buffer);
  private used = 0;
  /** File position of buf[0]. */
  private flushedTo = 0;
  private sectionStart = -1;
  private sectionsWritten = 0;

  private constructor(
    private readonly fd: number,
    readonly path: string,
    private readonly nSections: number,
  ) {}

  static create(path: string, magic: string, version: number, nSections: number): BinWriter {
    const w = new BinWriter(fs.openSync(path, 'w'), path, nSections);
    for (let i = 0; i < 4; i++) w.u8(magic.charCodeAt(i));
    w.u32(version);
    w.u32(nSections);
    return w;
  }

  /** Current file position (bytes written so far, buffered or not). */
  get position(): number {
    return this.flushedTo + this.used;
  }

  beginSection(type: number): void {
    if (this.sectionStart >= 0) throw new InternalError('E_INTERNAL', `${this.path}: section ${type} begun inside another`);
    this.u32(type);
    this.u64(0);
    this.sectionStart = this.position;
  }

  /** Patches the section's u64 size; returns the size. */
  endSection(): number {
    const size = this.position - this.sectionStart;
    const head = new Uint8Array(8);
    new DataView(head.buffer).setBigUint64(0, BigInt(size), true);
    this.patch(this.sectionStart - 8, head);
    this.sectionStart = -1;
    this.sectionsWritten++;
    return size;
  }

  /** Room for `n` more bytes in the buffer; returns the offset to write at (then call advance(n)). */
  reserve(n: number): number {
    if (n > BUFFER_BYTES) throw new InternalError('E_INTERNAL', `BinWriter.reserve: ${n} bytes exceed the buffer`);
    if (this.used + n > BUFFER_BYTES) this.flush();
    return this.used;
  }

  advance(n: number): void {
    this.used += n;
  }

  /** The buffer and a view of it, for callers that encode records in place after reserve(). */
  get buffer(): Uint8Array {
    return this.buf;
  }

  get view(): DataView {
    return this.bufView;
  }

  u8(v: number): void {
    this.buf[this.reserve(1)] = v;
    this.used += 1;
  }

  u32(v: number): void {
    this.bufView.setUint32(this.reserve(4), v, true);
    this.used += 4;
  }

  u64(v: number): void {
    this.bufView.setBigUint64(this.reserve(8), BigInt(v), true);
    this.used += 8;
  }

  write(bytes: Uint8Array): void {
    if (bytes.length > BUFFER_BYTES / 2) {
      this.flush();
      this.writeAt(bytes, this.flushedTo);
      this.flushedTo += bytes.length;
      return;
    }
    this.buf.set(bytes, this.reserve(bytes.length));
    this.used += bytes.length;
  }

  /** Overwrites bytes already written (at an absolute file position). */
  patch(pos: number, bytes: Uint8Array): void {
    this.flush();
    if (pos + bytes.length > this.flushedTo) throw new InternalError('E_INTERNAL', `BinWriter.patch: [${pos}, ${pos + bytes.length}) not yet written`);
    this.writeAt(bytes, pos);
  }

  flush(): void {
    if (this.used === 0) return;
    this.writeAt(this.buf.subarray(0, this.used), this.flushedTo);
    this.flushedTo += this.used;
    this.used = 0;
  }

  close(): void {
    this.flush();
    fs.closeSync(this.fd);
    if (this.sectionsWritten !== this.nSections || this.sectionStart >= 0) {
      throw new InternalError('E_INTERNAL', `${this.path}: wrote ${this.sectionsWritten} complete sections, header says ${this.nSections}`);
    }
  }

  /** Error paths: closes and deletes the partial file, so no half-written key or circuit is left behind. */
  abort(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      // already closed
    }
    fs.rmSync(this.path, { force: true });
  }

  private writeAt(bytes: Uint8Array, pos: number): void {
    for (let done = 0; done < bytes.length; ) {
      done += fs.writeSync(this.fd, bytes, done, Math.min(1 << 30, bytes.length - done), pos + done);
    }
  }
}
