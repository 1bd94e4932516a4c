// The snarkjs binary container (@iden3/binfileutils): magic[4], u32 version, u32 nSections, then per section
// {u32 type, u64 size, bytes}, all little-endian (reference §2.1). The reader never holds the whole file: it
// walks the section table with small reads, checks every section lies inside the file and that no type
// repeats, and reads one section at a time, into a caller's buffer when given (e.g. native-owned memory).

import * as fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { FormatError, InputError, InternalError } from '../errors.js';

export interface BinFileSpec {
  /** Four ASCII characters: "zkey", "wtns", "r1cs". */
  readonly magic: string;
  readonly versions: readonly number[];
}

export interface SectionEntry {
  readonly type: number;
  /** Byte offset of the section's data (after its 12-byte header) in the file. */
  readonly offset: number;
  readonly size: number;
  /** Position of the section in the on-disk table, which need not follow type order. */
  readonly index: number;
}

/** A section table read by an earlier open, enough to open the file again without reading it (BinFile.reopen). */
export interface KnownTable {
  readonly version: number;
  /** The file's size in bytes when the table was read. */
  readonly size: number;
  /** The sections that will be read (any subset of the file's). */
  readonly sections: readonly SectionEntry[];
}

export interface SectionInput {
  readonly type: number;
  readonly bytes: Uint8Array;
}

const HEADER_BYTES = 12;
const SECTION_HEADER_BYTES = 12;
// Real files have at most 15 sections (ptau); the cap keeps a corrupt count from costing millions of reads.
const MAX_SECTIONS = 1024;
// fs.read is limited to 2^31-1 bytes per call (kIoMaxLength); zkey sections can be tens of GB.
const IO_CHUNK_BYTES = 1 << 30;

interface ByteSource {
  readonly size: number;
  read(pos: number, into: Uint8Array): void;
  readAsync(pos: number, into: Uint8Array): Promise<void>;
  /** A view of the source's own bytes when it has them in memory, else undefined. */
  view(pos: number, length: number): Uint8Array | undefined;
  /** The open file's descriptor, for positional reads elsewhere (the native key reader); none in memory. */
  readonly fd: number | undefined;
  /** The error for a file that ended at byte `at`, before its size when opened. */
  ended(at: number): FormatError;
  close(): void;
}

function ioError(name: string, what: string, err: unknown): InternalError {
  const detail = err instanceof Error ? err.message : String(err);
  return new InternalError('E_INTERNAL', `${name}: ${what} failed: ${detail}`, { cause: err });
}

// Non-blocking: a FIFO or a device named as a file returns at once (and is refused as not a regular
// file) instead of waiting in the kernel for a writer.
const OPEN_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NONBLOCK;

function fileSource(path: string): ByteSource {
  let fd: number;
  try {
    fd = fs.openSync(path, OPEN_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const detail = err instanceof Error ? err.message : String(err);
    throw new InputError(code === 'ENOENT' ? 'E_NOT_FOUND' : 'E_INVALID_ARG', `${path}: cannot open: ${detail}`, { cause: err });
  }
  return fdSource(fd, path, () => fs.closeSync(fd));
}

/** Reads `fd` (a regular file, else it is closed and refused); `close` ends it. */
function fdSource(fd: number, path: string, close: () => void): ByteSource {
  let stat: fs.Stats;
  try {
    stat = fs.fstatSync(fd);
  } catch (err) {
    close();
    throw ioError(path, 'stat', err);
  }
  if (!stat.isFile()) {
    close();
    throw new InputError('E_INVALID_ARG', `${path}: not a regular file`);
  }
  const shrank = (at: number) =>
    new FormatError(`${path}: file ended at byte ${at}, before the ${stat.size} bytes it had when opened`);
  return {
    size: stat.size,
    read(pos, into) {
      for (let done = 0; done < into.length; ) {
        let n: number;
        try {
          n = fs.readSync(fd, into, done, Math.min(IO_CHUNK_BYTES, into.length - done), pos + done);
        } catch (err) {
          throw ioError(path, `read at byte ${pos + done}`, err);
        }
        if (n === 0) throw shrank(pos + done);
        done += n;
      }
    },
    async readAsync(pos, into) {
      for (let done = 0; done < into.length; ) {
        const n = await new Promise<number>((resolve, reject) =>
          fs.read(fd, into, done, Math.min(IO_CHUNK_BYTES, into.length - done), pos + done, (err, bytesRead) =>
            err ? reject(ioError(path, `read at byte ${pos + done}`, err)) : resolve(bytesRead),
          ),
        );
        if (n === 0) throw shrank(pos + done);
        done += n;
      }
    },
    view: () => undefined,
    fd,
    ended: shrank,
    close,
  };
}

/** A file the caller opened (the daemon opens witness files confined to its directories): the
 * BinFile owns `handle` and closes it. */
function handleSource(handle: FileHandle, name: string): ByteSource {
  return fdSource(handle.fd, name, () => void handle.close().catch(() => undefined));
}

function memorySource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    read: (pos, into) => into.set(bytes.subarray(pos, pos + into.length)),
    readAsync: async (pos, into) => into.set(bytes.subarray(pos, pos + into.length)),
    view: (pos, length) => bytes.subarray(pos, pos + length),
    fd: undefined,
    ended: (at) => new FormatError(`file image ended at byte ${at}, before its ${bytes.length} bytes`),
    close: () => undefined,
  };
}

export class BinFile {
  private closed = false;

  private constructor(
    private readonly source: ByteSource,
    /** The path (or the name given to fromBytes) that starts every error message. */
    readonly name: string,
    readonly magic: string,
    readonly version: number,
    readonly sections: ReadonlyMap<number, SectionEntry>,
  ) {}

  /** Throws FormatError for a bad container, InputError (E_NOT_FOUND, E_INVALID_ARG) if it cannot open `path`. */
  static open(path: string, spec: BinFileSpec): BinFile {
    const source = fileSource(path);
    try {
      return BinFile.parse(source, path, spec);
    } catch (err) {
      source.close();
      throw err;
    }
  }

  /** open() over a file the caller opened (`name` stands in for its path); the BinFile owns `handle`. */
  static openHandle(handle: FileHandle, name: string, spec: BinFileSpec): BinFile {
    const source = handleSource(handle, name);
    try {
      return BinFile.parse(source, name, spec);
    } catch (err) {
      source.close();
      throw err;
    }
  }

  /** Parses an in-memory file image (e.g. circom's calculateWTNSBin output); `name` stands in for the path. */
  static fromBytes(bytes: Uint8Array, name: string, spec: BinFileSpec): BinFile {
    return BinFile.parse(memorySource(bytes), name, spec);
  }

  /** A file whose section table was read before (`known`): opened without reading it again, and
   * refused (FormatError) when its size is no longer `known.size`, the one thing a file replaced or
   * grown since shows without being parsed. Only the sections in `known` can be read. */
  static reopen(path: string, spec: BinFileSpec, known: KnownTable): BinFile {
    return BinFile.known(fileSource(path), path, spec, known);
  }

  /** reopen() over a file the caller opened; the BinFile owns `handle`. */
  static reopenHandle(handle: FileHandle, name: string, spec: BinFileSpec, known: KnownTable): BinFile {
    return BinFile.known(handleSource(handle, name), name, spec, known);
  }

  /** An in-memory image whose table was read before (`known`), as reopen() for a file. */
  static fromBytesKnown(bytes: Uint8Array, name: string, spec: BinFileSpec, known: KnownTable): BinFile {
    return BinFile.known(memorySource(bytes), name, spec, known);
  }

  private static known(source: ByteSource, name: string, spec: BinFileSpec, known: KnownTable): BinFile {
    if (source.size !== known.size) {
      source.close();
      throw new FormatError(`${name}: the file is ${source.size} bytes, it was ${known.size} when its header was read: it changed since`);
    }
    const sections = new Map<number, SectionEntry>();
    for (const s of known.sections) {
      if (s.offset < 0 || s.size < 0 || s.offset + s.size > known.size) {
        source.close();
        throw new InputError('E_INVALID_ARG', `${name}: known ${spec.magic} section ${s.type} [${s.offset}, ${s.offset + s.size}) is outside the file's ${known.size} bytes`);
      }
      sections.set(s.type, s);
    }
    return new BinFile(source, name, spec.magic, known.version, sections);
  }

  private static parse(source: ByteSource, name: string, spec: BinFileSpec): BinFile {
    const head = new Uint8Array(Math.min(HEADER_BYTES, source.size));
    source.read(0, head);
    const kind = spec.magic;
    if (head.length >= 4 && String.fromCharCode(...head.subarray(0, 4)) !== kind) {
      // the file's own bytes are never quoted: a daemon would hand a client the start of any file it could name
      throw new FormatError(`${name}: not a ${kind} file (it does not start with "${kind}")`);
    }
    if (head.length < HEADER_BYTES) {
      throw new FormatError(`${name}: file is truncated: ${source.size} bytes, a ${kind} header needs ${HEADER_BYTES}`);
    }
    const hv = new DataView(head.buffer);
    const version = hv.getUint32(4, true);
    if (!spec.versions.includes(version)) {
      throw new FormatError(`${name}: ${kind} version ${version} is not supported (expected ${spec.versions.join(' or ')})`);
    }
    const nSections = hv.getUint32(8, true);
    const tableMin = HEADER_BYTES + nSections * SECTION_HEADER_BYTES;
    if (nSections > MAX_SECTIONS) {
      throw new FormatError(`${name}: corrupt ${kind} header: it declares ${nSections} sections, the limit is ${MAX_SECTIONS}`);
    }
    if (tableMin > source.size) {
      throw new FormatError(
        `${name}: file is truncated or corrupt: its ${kind} header declares ${nSections} sections, which need at least ${tableMin} bytes; the file has ${source.size}`,
      );
    }
    const sections = new Map<number, SectionEntry>();
    const sh = new Uint8Array(SECTION_HEADER_BYTES);
    const sv = new DataView(sh.buffer);
    let pos = HEADER_BYTES;
    for (let index = 0; index < nSections; index++) {
      if (pos + SECTION_HEADER_BYTES > source.size) {
        throw new FormatError(
          `${name}: file is truncated: section header ${index + 1} of ${nSections} at byte ${pos} needs ${SECTION_HEADER_BYTES} bytes, ${source.size - pos} remain`,
        );
      }
      source.read(pos, sh);
      const type = sv.getUint32(0, true);
      const size = sv.getBigUint64(4, true);
      const offset = pos + SECTION_HEADER_BYTES;
      const remain = source.size - offset;
      if (size > BigInt(remain)) {
        throw new FormatError(
          `${name}: file is truncated: ${kind} section ${type} (entry ${index + 1} of ${nSections}) declares ${size} bytes at byte ${offset}, ${remain} remain`,
        );
      }
      const prev = sections.get(type);
      if (prev) {
        throw new FormatError(`${name}: ${kind} section ${type} appears twice (entries ${prev.index + 1} and ${index + 1})`);
      }
      sections.set(type, { type, offset, size: Number(size), index });
      pos = offset + Number(size);
    }
    // Bytes after the last section are ignored, as binfileutils and rapidsnark do.
    return new BinFile(source, name, kind, version, sections);
  }

  /** Bytes of the file (or image) as opened. */
  get size(): number {
    return this.source.size;
  }

  /** Prefix for messages about one section: "<path>: zkey section 4". */
  where(type: number): string {
    return `${this.name}: ${this.magic} section ${type}`;
  }

  has(type: number): boolean {
    return this.sections.has(type);
  }

  section(type: number): SectionEntry {
    const s = this.sections.get(type);
    if (!s) {
      const present = [...this.sections.keys()].sort((a, b) => a - b).join(', ') || 'none';
      throw new FormatError(`${this.where(type)} is missing (the file has sections: ${present})`);
    }
    return s;
  }

  /** Absolute file position of the range, after checking it and `into`. */
  private locate(type: number, start: number, length: number, into?: Uint8Array): number {
    if (this.closed) throw new InputError('E_INVALID_ARG', `${this.name}: read after close`);
    const s = this.section(type);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(length) || start < 0 || length < 0 || start + length > s.size) {
      throw new InputError('E_INVALID_ARG', `${this.where(type)}: range [${start}, ${start + length}) is outside its ${s.size} bytes`);
    }
    if (into && into.byteLength < length) {
      throw new InputError('E_INVALID_ARG', `${this.where(type)}: needs a ${length}-byte buffer, got ${into.byteLength} bytes`);
    }
    return s.offset + start;
  }

  /**
   * Reads `length` bytes from `start` within section `type` into `into` (at least `length` bytes; the returned
   * view covers exactly `length`). Without `into` it allocates, except that a fromBytes file returns a view of
   * its own bytes (no copy).
   */
  readRange(type: number, start: number, length: number, into?: Uint8Array): Uint8Array {
    const pos = this.locate(type, start, length, into);
    const shared = into ? undefined : this.source.view(pos, length);
    if (shared) return shared;
    const out = into ? into.subarray(0, length) : new Uint8Array(length);
    this.source.read(pos, out);
    return out;
  }

  async readRangeAsync(type: number, start: number, length: number, into?: Uint8Array): Promise<Uint8Array> {
    const pos = this.locate(type, start, length, into);
    const shared = into ? undefined : this.source.view(pos, length);
    if (shared) return shared;
    const out = into ? into.subarray(0, length) : new Uint8Array(length);
    await this.source.readAsync(pos, out);
    return out;
  }

  /** The open file's descriptor (undefined for a fromBytes image): valid until close(). */
  get fd(): number | undefined {
    if (this.closed) throw new InputError('E_INVALID_ARG', `${this.name}: read after close`);
    return this.source.fd;
  }

  /** The error for this file having ended at byte `at` (it shrank after it was opened). */
  endedError(at: number): FormatError {
    return this.source.ended(at);
  }

  /** Absolute file position of `length` bytes from `start` in section `type`, checked as a read would be. */
  position(type: number, start: number, length: number): number {
    return this.locate(type, start, length);
  }

  readSection(type: number, into?: Uint8Array): Uint8Array {
    return this.readRange(type, 0, this.section(type).size, into);
  }

  readSectionAsync(type: number, into?: Uint8Array): Promise<Uint8Array> {
    return this.readRangeAsync(type, 0, this.section(type).size, into);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.source.close();
  }
}

function assertSections(magic: string, sections: readonly SectionInput[]): void {
  if (!/^[\x20-\x7e]{4}$/.test(magic)) throw new InputError('E_INVALID_ARG', `binfile magic must be 4 ASCII characters, got ${JSON.stringify(magic)}`);
  for (const s of sections) {
    if (!Number.isInteger(s.type) || s.type < 0 || s.type > 0xffffffff) {
      throw new InputError('E_INVALID_ARG', `binfile section type must be a u32, got ${s.type}`);
    }
  }
}

function fileHeader(magic: string, version: number, nSections: number): Uint8Array {
  const out = new Uint8Array(HEADER_BYTES);
  const v = new DataView(out.buffer);
  for (let i = 0; i < 4; i++) out[i] = magic.charCodeAt(i);
  v.setUint32(4, version, true);
  v.setUint32(8, nSections, true);
  return out;
}

function sectionHeader(s: SectionInput): Uint8Array {
  const out = new Uint8Array(SECTION_HEADER_BYTES);
  const v = new DataView(out.buffer);
  v.setUint32(0, s.type, true);
  v.setBigUint64(4, BigInt(s.bytes.length), true);
  return out;
}

/** The file image, sections in the order given (duplicates allowed, so tests can build bad files). */
export function encodeBinFile(magic: string, version: number, sections: readonly SectionInput[]): Uint8Array {
  assertSections(magic, sections);
  const total = sections.reduce((n, s) => n + SECTION_HEADER_BYTES + s.bytes.length, HEADER_BYTES);
  const out = new Uint8Array(total);
  out.set(fileHeader(magic, version, sections.length), 0);
  let pos = HEADER_BYTES;
  for (const s of sections) {
    out.set(sectionHeader(s), pos);
    out.set(s.bytes, pos + SECTION_HEADER_BYTES);
    pos += SECTION_HEADER_BYTES + s.bytes.length;
  }
  return out;
}

/** Writes the file piece by piece (no concatenated copy of big sections). */
export function writeBinFile(path: string, magic: string, version: number, sections: readonly SectionInput[]): void {
  assertSections(magic, sections);
  const fd = fs.openSync(path, 'w');
  try {
    const put = (b: Uint8Array) => {
      for (let done = 0; done < b.length; ) done += fs.writeSync(fd, b, done, Math.min(IO_CHUNK_BYTES, b.length - done));
    };
    put(fileHeader(magic, version, sections.length));
    for (const s of sections) {
      put(sectionHeader(s));
      put(s.bytes);
    }
  } finally {
    fs.closeSync(fd);
  }
}
