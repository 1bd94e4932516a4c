// Groth16 .zkey reader (reference §2.2): header sections 1-2 parsed and checked on open, every big section's
// size checked against the counts in the header before anything is allocated, and the big sections read one
// at a time into caller buffers. Coefficient records are validated on read: native code indexes arrays with
// their matrix/constraint/signal fields, so this pass is the only guard against out-of-bounds writes.

import { FormatError, InputError } from '../errors.js';
import { BinFile, type SectionEntry } from './binfile.js';
import { curveByQ, describePrime, type CurveName } from './curves.js';
import { dataViewOf, makeBelowCheck } from './field-check.js';
import { SectionCursor } from './section-cursor.js';

export const ZKEY_SECTION = { header: 1, groth16: 2, IC: 3, coefs: 4, A: 5, B1: 6, B2: 7, C: 8, H: 9, contributions: 10 } as const;
export type ZkeyBigSection = 'IC' | 'coefs' | 'A' | 'B1' | 'B2' | 'C' | 'H';
export const ZKEY_BIG_SECTIONS: readonly ZkeyBigSection[] = ['IC', 'coefs', 'A', 'B1', 'B2', 'C', 'H'];

/** snarkjs uses Fr.w[28] as the largest root of unity (BN254 2-adicity); larger domains cannot come from it. */
export const MAX_DOMAIN_SIZE = 2 ** 28;
const PROTOCOLS: Readonly<Record<number, string>> = { 1: 'Groth16', 2: 'PLONK', 10: 'FFLONK' };
const MAX_GROTH16_HEADER_BYTES = 4096; // BLS12-381 needs 964

export interface ZkeyHeader {
  readonly path: string;
  readonly curve: CurveName;
  readonly n8q: number;
  readonly n8r: number;
  readonly q: bigint;
  readonly r: bigint;
  readonly nVars: number;
  /** Public outputs + public inputs, excluding wire 0. */
  readonly nPublic: number;
  readonly domainSize: number;
  readonly nCoefs: number;
  /** Raw LEM point bytes from section 2 (G1: 2·n8q bytes, G2: 4·n8q bytes). */
  readonly alpha1: Uint8Array;
  readonly beta1: Uint8Array;
  readonly beta2: Uint8Array;
  readonly gamma2: Uint8Array;
  readonly delta1: Uint8Array;
  readonly delta2: Uint8Array;
  /** Where each section lies in the file; `contributions` (10) is optional. */
  readonly sections: Readonly<Record<'header' | 'groth16' | ZkeyBigSection, SectionEntry>> & {
    readonly contributions?: SectionEntry;
  };
}

export interface SectionLayout {
  /** Bytes before the items (the u32 nCoefs of section 4); read() skips them. */
  readonly prefix: number;
  readonly itemBytes: number;
  readonly count: number;
  readonly unit: string;
}

export function zkeySectionLayout(h: ZkeyHeader, name: ZkeyBigSection): SectionLayout {
  const sG1 = 2 * h.n8q;
  const sG2 = 4 * h.n8q;
  switch (name) {
    case 'IC':
      return { prefix: 0, itemBytes: sG1, count: h.nPublic + 1, unit: 'point' };
    case 'coefs':
      return { prefix: 4, itemBytes: 12 + h.n8r, count: h.nCoefs, unit: 'record' };
    case 'A':
    case 'B1':
      return { prefix: 0, itemBytes: sG1, count: h.nVars, unit: 'point' };
    case 'B2':
      return { prefix: 0, itemBytes: sG2, count: h.nVars, unit: 'point' };
    case 'C':
      return { prefix: 0, itemBytes: sG1, count: h.nVars - h.nPublic - 1, unit: 'point' };
    case 'H':
      return { prefix: 0, itemBytes: sG1, count: h.domainSize, unit: 'point' };
  }
}

/** Bytes that read(`name`) returns: for `coefs`, the nCoefs × (12 + n8r) records without the count prefix. */
export function zkeySectionBytes(h: ZkeyHeader, name: ZkeyBigSection): number {
  const l = zkeySectionLayout(h, name);
  return l.itemBytes * l.count;
}

function checkLayout(file: BinFile, type: number, l: SectionLayout): void {
  const expected = l.prefix + l.itemBytes * l.count;
  const got = file.section(type).size;
  if (got !== expected) {
    const prefix = l.prefix ? `${l.prefix} + ` : '';
    throw new FormatError(
      `${file.where(type)}: expected ${prefix}${l.itemBytes} bytes per ${l.unit} × ${l.count} ${l.unit}s = ${expected} bytes, got ${got}`,
    );
  }
}

function readProtocol(file: BinFile): void {
  const s = file.section(ZKEY_SECTION.header);
  if (s.size !== 4) throw new FormatError(`${file.where(1)}: expected 4 bytes (u32 protocol), got ${s.size}`);
  const protocol = new SectionCursor(file.readSection(1), file.where(1)).u32('protocol');
  if (protocol !== 1) {
    const name = PROTOCOLS[protocol] ? `a ${PROTOCOLS[protocol]} key` : 'an unknown protocol';
    throw new FormatError(`${file.where(1)}: protocol ${protocol} is ${name}, expected 1 (Groth16)`);
  }
}

type Groth16Fields = Omit<ZkeyHeader, 'path' | 'nCoefs' | 'sections'>;

function readGroth16Header(file: BinFile): Groth16Fields {
  const where = file.where(2);
  const size = file.section(2).size;
  if (size > MAX_GROTH16_HEADER_BYTES) throw new FormatError(`${where}: ${size} bytes, a Groth16 header is at most ${MAX_GROTH16_HEADER_BYTES}`);
  const cur = new SectionCursor(file.readSection(2), where);
  const n8q = cur.u32('n8q');
  if (n8q === 0 || n8q > 64) throw cur.fail(`n8q is ${n8q}, expected 32 (BN254) or 48 (BLS12-381)`);
  const q = cur.bigint(n8q, 'q');
  const info = curveByQ(q);
  if (!info) throw cur.fail(`unknown base field prime q = ${q}: supported curves are BN254 and BLS12-381`);
  if (n8q !== info.n8q) throw cur.fail(`n8q is ${n8q}, expected ${info.n8q} for ${info.label}`);
  const n8r = cur.u32('n8r');
  if (n8r !== info.n8r) throw cur.fail(`n8r is ${n8r}, expected ${info.n8r} for ${info.label}`);
  const r = cur.bigint(n8r, 'r');
  if (r !== info.r) throw cur.fail(`scalar field prime r is ${describePrime(r)}, but q is ${info.label}'s`);
  const nVars = cur.u32('nVars');
  const nPublic = cur.u32('nPublic');
  const domainSize = cur.u32('domainSize');
  const below = makeBelowCheck(q, n8q);
  const point = (name: string, coords: number) => {
    const b = cur.bytesOf(coords * n8q, name).slice();
    const v = dataViewOf(b);
    for (let k = 0; k < coords; k++) if (!below(v, k * n8q)) throw cur.fail(`${name} coordinate ${k} is not below q (corrupt point)`);
    return b;
  };
  const alpha1 = point('alpha1', 2);
  const beta1 = point('beta1', 2);
  const beta2 = point('beta2', 4);
  const gamma2 = point('gamma2', 4);
  const delta1 = point('delta1', 2);
  const delta2 = point('delta2', 4);
  cur.expectEnd(`Groth16 header for ${info.label}`);
  if (domainSize < 1 || domainSize > MAX_DOMAIN_SIZE || (domainSize & (domainSize - 1)) !== 0) {
    throw cur.fail(`domainSize ${domainSize} is not a power of two in [1, 2^28]`);
  }
  if (nVars < nPublic + 1) throw cur.fail(`nVars ${nVars} is below nPublic + 1 = ${nPublic + 1}`);
  if (domainSize < nPublic + 1) throw cur.fail(`domainSize ${domainSize} is below nPublic + 1 = ${nPublic + 1}`);
  return { curve: info.name, n8q, n8r, q, r, nVars, nPublic, domainSize, alpha1, beta1, beta2, gamma2, delta1, delta2 };
}

function parseHeader(file: BinFile): ZkeyHeader {
  readProtocol(file);
  const g = readGroth16Header(file);
  const coefs = file.section(ZKEY_SECTION.coefs);
  if (coefs.size < 4) throw new FormatError(`${file.where(4)}: ${coefs.size} bytes is too short for its u32 nCoefs`);
  const nCoefs = dataViewOf(file.readRange(4, 0, 4)).getUint32(0, true);
  const sections = Object.fromEntries(
    (['header', 'groth16', ...ZKEY_BIG_SECTIONS] as const).map((k) => [k, file.section(ZKEY_SECTION[k])]),
  ) as Record<'header' | 'groth16' | ZkeyBigSection, SectionEntry>;
  const contributions = file.sections.get(ZKEY_SECTION.contributions);
  const header: ZkeyHeader = { path: file.name, ...g, nCoefs, sections: contributions ? { ...sections, contributions } : sections };
  for (const name of ZKEY_BIG_SECTIONS) checkLayout(file, ZKEY_SECTION[name], zkeySectionLayout(header, name));
  return header;
}

/**
 * Checks every coefficient record (nCoefs × {u32 matrix, u32 constraint, u32 signal, value[n8r]}): matrix is
 * 0 or 1, constraint < domainSize, signal < nVars, value < r. Throws FormatError naming the first bad record.
 */
export function validateCoefs(h: ZkeyHeader, records: Uint8Array, where = `${h.path}: zkey section 4`): void {
  const rs = 12 + h.n8r;
  if (records.length !== h.nCoefs * rs) {
    throw new InputError('E_INVALID_ARG', `${where}: expected ${h.nCoefs * rs} bytes of records, got ${records.length}`);
  }
  const view = dataViewOf(records);
  const below = makeBelowCheck(h.r, h.n8r);
  const { nCoefs, domainSize, nVars } = h;
  for (let i = 0, o = 0; i < nCoefs; i++, o += rs) {
    const m = view.getUint32(o, true);
    const c = view.getUint32(o + 4, true);
    const s = view.getUint32(o + 8, true);
    if (m > 1 || c >= domainSize || s >= nVars || !below(view, o + 12)) throw coefRecordError(h, records, i, where);
  }
}

/** The FormatError for coefficient record `i` (found bad here or by the native reader), naming its
 * first bad field; `records` holds the records from index `first` on (a window of a section too big
 * for one Uint8Array). */
export function coefRecordError(h: ZkeyHeader, records: Uint8Array, i: number, where = `${h.path}: zkey section 4`, first = 0): FormatError {
  const view = dataViewOf(records);
  const o = (i - first) * (12 + h.n8r);
  const m = view.getUint32(o, true);
  const c = view.getUint32(o + 4, true);
  const s = view.getUint32(o + 8, true);
  const what =
    m > 1 ? `matrix ${m}, expected 0 (A) or 1 (B)`
    : c >= h.domainSize ? `constraint ${c}, expected < domainSize ${h.domainSize}`
    : s >= h.nVars ? `signal ${s}, expected < nVars ${h.nVars}`
    : `a value not below the scalar field prime r`;
  return new FormatError(`${where}: coefficient record ${i} has ${what}`);
}

export class ZkeyFile {
  private constructor(
    private readonly file: BinFile,
    readonly header: ZkeyHeader,
  ) {}

  /** Reads and checks the headers and section sizes; FormatError on any mismatch (the file is then closed). */
  static open(path: string): ZkeyFile {
    return ZkeyFile.wrap(BinFile.open(path, { magic: 'zkey', versions: [1] }));
  }

  static fromBytes(bytes: Uint8Array, name: string): ZkeyFile {
    return ZkeyFile.wrap(BinFile.fromBytes(bytes, name, { magic: 'zkey', versions: [1] }));
  }

  private static wrap(file: BinFile): ZkeyFile {
    try {
      return new ZkeyFile(file, parseHeader(file));
    } catch (err) {
      file.close();
      throw err;
    }
  }

  sectionBytes(name: ZkeyBigSection): number {
    return zkeySectionBytes(this.header, name);
  }

  /**
   * Reads section `name` into `into` (at least sectionBytes(name) bytes) or a fresh buffer. Points come back as
   * raw LEM bytes; `coefs` comes back as the records alone, already validated (FormatError if one is bad).
   */
  read(name: ZkeyBigSection, into?: Uint8Array): Uint8Array {
    const l = zkeySectionLayout(this.header, name);
    const out = this.file.readRange(ZKEY_SECTION[name], l.prefix, l.itemBytes * l.count, into);
    if (name === 'coefs') validateCoefs(this.header, out, this.file.where(ZKEY_SECTION.coefs));
    return out;
  }

  async readAsync(name: ZkeyBigSection, into?: Uint8Array): Promise<Uint8Array> {
    const l = zkeySectionLayout(this.header, name);
    const out = await this.file.readRangeAsync(ZKEY_SECTION[name], l.prefix, l.itemBytes * l.count, into);
    if (name === 'coefs') validateCoefs(this.header, out, this.file.where(ZKEY_SECTION.coefs));
    return out;
  }

  /** The open file's descriptor, for the native key reader (undefined for fromBytes); valid until close(). */
  get fd(): number | undefined {
    return this.file.fd;
  }

  /** Absolute file position of the bytes read(`name`) returns (after section 4's count prefix). */
  sectionPosition(name: ZkeyBigSection): number {
    const l = zkeySectionLayout(this.header, name);
    return this.file.position(ZKEY_SECTION[name], l.prefix, l.itemBytes * l.count);
  }

  /** The error for this file having ended at byte `at` while it was read. */
  endedError(at: number): FormatError {
    return this.file.endedError(at);
  }

  /** "<path>: zkey section N", the prefix of a message about section `name`. */
  where(name: ZkeyBigSection): string {
    return this.file.where(ZKEY_SECTION[name]);
  }

  close(): void {
    this.file.close();
  }
}
