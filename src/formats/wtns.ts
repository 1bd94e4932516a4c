// .wtns v2 reader and writer (reference §2.3): section 1 {u32 n8, prime r[n8], u32 nWitness}, section 2
// nWitness × n8 standard (non-Montgomery) little-endian values, w[0] = 1. Every value is checked < r on read:
// the MSMs take these bytes as scalars as they are.

import type { FileHandle } from 'node:fs/promises';
import { FormatError, InputError } from '../errors.js';
import { BinFile, encodeBinFile, writeBinFile, type KnownTable, type SectionInput } from './binfile.js';
import { curveByName, curveByR, describePrime, type CurveName } from './curves.js';
import { dataViewOf, firstNotBelow } from './field-check.js';
import { bigintToLe } from './lem.js';
import { SectionCursor } from './section-cursor.js';
import type { ZkeyHeader } from './zkey.js';

const SPEC = { magic: 'wtns', versions: [2] } as const;
const N8 = 32;

export interface WtnsHeader {
  readonly path: string;
  readonly curve: CurveName;
  readonly n8: number;
  /** The scalar field prime r of the curve the witness is for. */
  readonly prime: bigint;
  readonly nWitness: number;
}

/** A parsed .wtns, as far as reading its values again needs (WtnsFile.openKnown): its header, where
 * its values (section 2's data) start, and the file's size when the header was read. */
export interface WtnsLayout {
  readonly header: WtnsHeader;
  readonly valuesOffset: number;
  readonly totalBytes: number;
}

function parseHeader(file: BinFile): WtnsHeader {
  const where = file.where(1);
  const s1 = file.section(1);
  if (s1.size !== 4 + N8 + 4) throw new FormatError(`${where}: expected ${4 + N8 + 4} bytes (u32 n8, prime[32], u32 nWitness), got ${s1.size}`);
  const cur = new SectionCursor(file.readSection(1), where);
  const n8 = cur.u32('n8');
  if (n8 !== N8) throw cur.fail(`n8 is ${n8}, expected ${N8}`);
  const prime = cur.bigint(n8, 'prime');
  const info = curveByR(prime);
  if (!info) throw cur.fail(`prime is ${describePrime(prime)}, not the scalar field of BN254 or BLS12-381`);
  const nWitness = cur.u32('nWitness');
  const s2 = file.section(2);
  if (s2.size !== nWitness * n8) {
    throw new FormatError(`${file.where(2)}: expected ${n8} bytes per value × ${nWitness} values = ${nWitness * n8} bytes, got ${s2.size}`);
  }
  return { path: file.name, curve: info.name, n8, prime, nWitness };
}

/** FormatError naming the first value that is not below the prime. */
export function validateWitness(h: WtnsHeader, values: Uint8Array, where = `${h.path}: wtns section 2`): void {
  if (values.length !== h.nWitness * h.n8) {
    throw new InputError('E_INVALID_ARG', `${where}: expected ${h.nWitness * h.n8} bytes of values, got ${values.length}`);
  }
  const bad = firstNotBelow(values, h.prime, h.n8, h.nWitness);
  if (bad >= 0) throw notBelowR(where, bad);
}

const notBelowR = (where: string, index: number) => new FormatError(`${where}: value ${index} is not below the scalar field prime r`);

export class WtnsFile {
  private constructor(
    private readonly file: BinFile,
    readonly header: WtnsHeader,
  ) {}

  static open(path: string): WtnsFile {
    return WtnsFile.wrap(BinFile.open(path, SPEC));
  }

  /** An in-memory image, e.g. circom_runtime's calculateWTNSBin() result; readWitness() then returns a view. */
  static fromBytes(bytes: Uint8Array, name: string): WtnsFile {
    return WtnsFile.wrap(BinFile.fromBytes(bytes, name, SPEC));
  }

  /** A file parsed before (`layout`, from WtnsFile.layout or wtnsHeaderFromPrefix), opened without
   * parsing it again: only its size is checked (FormatError when it changed). The values are still
   * checked against the prime as they are read. */
  static openKnown(path: string, layout: WtnsLayout): WtnsFile {
    return new WtnsFile(BinFile.reopen(path, SPEC, knownTable(layout)), layout.header);
  }

  /** open() and openKnown() over a file the caller opened (`name` stands in for its path); the
   * WtnsFile owns `handle` and closes it with close(). */
  static openHandle(handle: FileHandle, name: string, layout?: WtnsLayout): WtnsFile {
    return layout
      ? new WtnsFile(BinFile.reopenHandle(handle, name, SPEC, knownTable(layout)), layout.header)
      : WtnsFile.wrap(BinFile.openHandle(handle, name, SPEC));
  }

  /** An image parsed before, as openKnown() for a file. */
  static fromBytesKnown(bytes: Uint8Array, name: string, layout: WtnsLayout): WtnsFile {
    return new WtnsFile(BinFile.fromBytesKnown(bytes, name, SPEC, knownTable(layout)), layout.header);
  }

  private static wrap(file: BinFile): WtnsFile {
    try {
      return new WtnsFile(file, parseHeader(file));
    } catch (err) {
      file.close();
      throw err;
    }
  }

  /** What openKnown() needs to open this file again without parsing it. */
  get layout(): WtnsLayout {
    return { header: this.header, valuesOffset: this.file.section(2).offset, totalBytes: this.file.size };
  }

  get witnessBytes(): number {
    return this.header.nWitness * this.header.n8;
  }

  /** Where the values lie, for a reader of their own that checks them as they land (the engine's, in
   * the native core): the open file's descriptor and their byte position in it, or the image's view
   * of them. Valid until close(). */
  get valuesSource(): { fd: number; offset: number } | { bytes: Uint8Array; offset: number } {
    const fd = this.file.fd;
    if (fd !== undefined) return { fd, offset: this.file.position(2, 0, this.witnessBytes) };
    return { bytes: this.file.readRange(2, 0, this.witnessBytes), offset: 0 };
  }

  /** The FormatError for value `index` not below r, in readWitness's words. */
  valueError(index: number): FormatError {
    return notBelowR(this.file.where(2), index);
  }

  /** The FormatError for the file having ended at byte `at` (it shrank after it was opened). */
  endedError(at: number): FormatError {
    return this.file.endedError(at);
  }

  /** nWitness × 32 bytes, standard LE, validated; into `into` (≥ witnessBytes) when given. */
  readWitness(into?: Uint8Array): Uint8Array {
    const out = this.file.readSection(2, into);
    validateWitness(this.header, out, this.file.where(2));
    return out;
  }

  async readWitnessAsync(into?: Uint8Array): Promise<Uint8Array> {
    const out = await this.file.readSectionAsync(2, into);
    validateWitness(this.header, out, this.file.where(2));
    return out;
  }

  close(): void {
    this.file.close();
  }
}

function knownTable(l: WtnsLayout): KnownTable {
  return { version: 2, size: l.totalBytes, sections: [{ type: 2, offset: l.valuesOffset, size: l.header.nWitness * l.header.n8, index: 1 }] };
}

/** Bytes of a .wtns prefix that hold its whole header, as circom and snarkjs lay it out: magic,
 * version, 2 sections; section 1 (n8, prime, nWitness) first, then section 2's id and size. */
export const WTNS_PREFIX_BYTES = 12 + 12 + 4 + N8 + 4 + 12;

/** The layout of a .wtns from its first WTNS_PREFIX_BYTES bytes, before the rest has arrived (a
 * streamed upload): its header, and the file's total size; FormatError naming `name` when the
 * prefix is not such a header. */
export function wtnsHeaderFromPrefix(prefix: Uint8Array, name: string): WtnsLayout {
  const bad = (m: string) => new FormatError(`${name}: ${m}`);
  if (prefix.length < WTNS_PREFIX_BYTES) throw bad(`${prefix.length} bytes is too short for a .wtns file`);
  const v = dataViewOf(prefix);
  if (String.fromCharCode(prefix[0]!, prefix[1]!, prefix[2]!, prefix[3]!) !== SPEC.magic) throw bad('not a .wtns file (no "wtns" magic)');
  const version = v.getUint32(4, true);
  if (!(SPEC.versions as readonly number[]).includes(version)) throw bad(`.wtns version ${version} is not supported (expected 2)`);
  if (v.getUint32(8, true) !== 2) throw bad(`expected 2 sections, the header says ${v.getUint32(8, true)}`);
  if (v.getUint32(12, true) !== 1 || v.getBigUint64(16, true) !== BigInt(4 + N8 + 4)) throw bad('section 1 (the header, 40 bytes) must come first');
  const n8 = v.getUint32(24, true);
  if (n8 !== N8) throw bad(`n8 is ${n8}, expected ${N8}`);
  let prime = 0n;
  for (let i = N8 - 1; i >= 0; i--) prime = (prime << 8n) | BigInt(prefix[28 + i]!);
  const info = curveByR(prime);
  if (!info) throw bad(`prime is ${describePrime(prime)}, not the scalar field of BN254 or BLS12-381`);
  const nWitness = v.getUint32(28 + N8, true);
  const o = 32 + N8;
  if (v.getUint32(o, true) !== 2) throw bad('section 2 (the values) must follow the header');
  const size = v.getBigUint64(o + 4, true);
  if (size !== BigInt(nWitness) * BigInt(n8)) throw bad(`expected ${n8} bytes per value × ${nWitness} values = ${nWitness * n8} bytes of values, the section says ${size}`);
  return { header: { path: name, curve: info.name, n8, prime, nWitness }, valuesOffset: WTNS_PREFIX_BYTES, totalBytes: WTNS_PREFIX_BYTES + nWitness * n8 };
}

const fieldLabel = (curve: CurveName) => curveByName(curve)?.label ?? curve;

/** The checks snarkjs's groth16 prove makes (same field, nWitness = nVars), as FormatErrors naming the witness. */
export function checkWitnessMatchesKey(w: WtnsHeader, z: Pick<ZkeyHeader, 'r' | 'curve' | 'nVars'>, wtnsPath = w.path): void {
  if (w.prime !== z.r) {
    throw new FormatError(`${wtnsPath}: witness is for the ${fieldLabel(w.curve)} scalar field but the key is ${fieldLabel(z.curve)}`);
  }
  if (w.nWitness !== z.nVars) {
    throw new FormatError(`${wtnsPath}: witness has ${w.nWitness} values but the key expects ${z.nVars}: a witness of another circuit?`);
  }
}

function valuesBytes(prime: bigint, values: Uint8Array | readonly bigint[]): Uint8Array {
  if (values instanceof Uint8Array) {
    if (values.length % N8 !== 0) throw new InputError('E_INVALID_ARG', `wtns values: ${values.length} bytes is not a multiple of ${N8}`);
    const bad = firstNotBelow(values, prime, N8, values.length / N8);
    if (bad >= 0) throw new InputError('E_INVALID_ARG', `wtns values: value ${bad} is not below the prime`);
    return values;
  }
  const out = new Uint8Array(values.length * N8);
  values.forEach((v, i) => {
    if (v < 0n || v >= prime) throw new InputError('E_INVALID_ARG', `wtns values: value ${i} (${v}) is not in [0, prime)`);
    bigintToLe(v, N8, out, i * N8);
  });
  return out;
}

function sections(prime: bigint, values: Uint8Array | readonly bigint[]): SectionInput[] {
  if (!curveByR(prime)) throw new InputError('E_INVALID_ARG', `wtns prime ${describePrime(prime)} is not a supported scalar field`);
  const bytes = valuesBytes(prime, values);
  const s1 = new Uint8Array(4 + N8 + 4);
  const v = dataViewOf(s1);
  v.setUint32(0, N8, true);
  bigintToLe(prime, N8, s1, 4);
  v.setUint32(4 + N8, bytes.length / N8, true);
  return [{ type: 1, bytes: s1 }, { type: 2, bytes }];
}

/** The .wtns v2 image that snarkjs and circom write for these values. */
export function encodeWtns(prime: bigint, values: Uint8Array | readonly bigint[]): Uint8Array {
  return encodeBinFile('wtns', 2, sections(prime, values));
}

export function writeWtns(path: string, prime: bigint, values: Uint8Array | readonly bigint[]): void {
  writeBinFile(path, 'wtns', 2, sections(prime, values));
}
