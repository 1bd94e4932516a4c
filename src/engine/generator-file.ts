// Witness generator files: circom's .wasm, or a native generator built by `cuzk witness build`
// (an ELF executable, cuzk's driver linked with circom's --c output, followed by a trailer that
// carries the circuit's .dat and a JSON manifest; native/witness/generator.cpp reads it back).
// Trailer: [dat][manifest][u64 datBytes][u64 manifestBytes][u64 fileBytes]["CUZKGEN1"].
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { InputError } from '../errors.js';

export const GENERATOR_MAGIC = 'CUZKGEN1';
export const TRAILER_BYTES = 32;

export interface GeneratorManifest {
  format: 1;
  /** The circuit's name (circom's CIRCUIT in CIRCUIT_cpp/). */
  circuit: string;
  /** sha256 of circom's generated sources and .dat the generator was built from. */
  sourceSha256: string;
  /** The main component's input names (from the circuit's .sym), for "signal x is missing". */
  names: string[];
}

export type GeneratorKind = { kind: 'wasm' } | { kind: 'native'; manifest: GeneratorManifest; bytes: number };

/** Reads a generator's kind from its bytes; InputError (E_INVALID_ARG / E_NOT_FOUND) naming the file. */
export function generatorKind(path: string): GeneratorKind {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (cause) {
    throw new InputError('E_NOT_FOUND', `${path}: cannot read the witness generator (${(cause as NodeJS.ErrnoException).code ?? cause})`, { cause });
  }
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(4);
    readSync(fd, head, 0, 4, 0);
    if (head.equals(Buffer.from([0, 0x61, 0x73, 0x6d]))) return { kind: 'wasm' };
    if (!head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))) throw new InputError('E_INVALID_ARG', `${path}: not a witness generator (neither circom's .wasm nor built by \`cuzk witness build\`)`);
    const t = Buffer.alloc(TRAILER_BYTES);
    if (size < TRAILER_BYTES || readSync(fd, t, 0, TRAILER_BYTES, size - TRAILER_BYTES) !== TRAILER_BYTES || t.toString('latin1', 24) !== GENERATOR_MAGIC) {
      throw new InputError('E_INVALID_ARG', `${path}: a native witness generator without its circuit trailer (truncated, or not built by \`cuzk witness build\`)`);
    }
    const datBytes = Number(t.readBigUInt64LE(0)), manBytes = Number(t.readBigUInt64LE(8)), fileBytes = Number(t.readBigUInt64LE(16));
    if (fileBytes !== size || datBytes + manBytes + TRAILER_BYTES > size) {
      throw new InputError('E_INVALID_ARG', `${path}: native witness generator is ${size} bytes, its trailer says ${fileBytes} (truncated or modified)`);
    }
    const man = Buffer.alloc(manBytes);
    readSync(fd, man, 0, manBytes, size - TRAILER_BYTES - manBytes);
    let manifest: GeneratorManifest;
    try {
      manifest = JSON.parse(man.toString('utf8')) as GeneratorManifest;
    } catch {
      throw new InputError('E_INVALID_ARG', `${path}: native witness generator's manifest is not JSON (corrupt)`);
    }
    if (manifest.format !== 1) throw new InputError('E_INVALID_ARG', `${path}: native witness generator format ${String(manifest.format)}, this cuzk reads format 1 (rebuild it)`);
    return { kind: 'native', manifest, bytes: size };
  } finally {
    closeSync(fd);
  }
}

/** The trailer that follows the driver's ELF image (padded to 8 bytes so the .dat is u32-aligned). */
export function generatorTrailer(elfBytes: number, dat: Uint8Array, manifest: GeneratorManifest): Buffer {
  const pad = (8 - (elfBytes % 8)) % 8;
  const man = Buffer.from(JSON.stringify(manifest), 'utf8');
  const total = elfBytes + pad + dat.byteLength + man.byteLength + TRAILER_BYTES;
  const t = Buffer.alloc(TRAILER_BYTES);
  t.writeBigUInt64LE(BigInt(dat.byteLength), 0);
  t.writeBigUInt64LE(BigInt(man.byteLength), 8);
  t.writeBigUInt64LE(BigInt(total), 16);
  t.write(GENERATOR_MAGIC, 24, 'latin1');
  return Buffer.concat([Buffer.alloc(pad), dat, man, t]);
}
