// .r1cs v1 reader and writer (reference §2.4; r1csfile): header section 1, constraints section 2 as
// (LC_A, LC_B, LC_C) with LC = u32 nTerms, nTerms × {u32 wireId, coeff[n8] standard LE}, wire labels section 3.
// Constraints land in flat typed arrays (CSR layout) so 2^20+ constraints cost three allocations, not millions
// of objects; every wire id is checked < nWires and every coefficient < prime before anyone indexes with them.

import { FormatError, InputError } from '../errors.js';
import { BinFile, encodeBinFile, writeBinFile, type SectionInput } from './binfile.js';
import { curveByR, describePrime, type CurveName } from './curves.js';
import { dataViewOf, makeBelowCheck } from './field-check.js';
import { bigintToLe, leToBigint } from './lem.js';
import { SectionCursor } from './section-cursor.js';

const SPEC = { magic: 'r1cs', versions: [1] } as const;
const N8 = 32;
const MATRIX = ['A', 'B', 'C'] as const;

export interface R1csHeader {
  readonly path: string;
  readonly curve: CurveName;
  readonly n8: number;
  readonly prime: bigint;
  readonly nWires: number;
  readonly nPubOut: number;
  readonly nPubIn: number;
  readonly nPrvIn: number;
  readonly nLabels: number;
  readonly nConstraints: number;
}

/** Constraint i, matrix m (0 = A, 1 = B, 2 = C) is linear combination k = 3i + m; its terms are t ∈ [lcStart[k], lcStart[k+1]). */
export interface R1csConstraints {
  readonly nConstraints: number;
  readonly n8: number;
  /** 3·nConstraints + 1 term offsets. */
  readonly lcStart: Uint32Array;
  readonly wires: Uint32Array;
  /** Coefficient of term t: bytes [t·n8, (t+1)·n8), standard (non-Montgomery) LE. */
  readonly coeffs: Uint8Array;
}

export interface R1cs {
  readonly header: R1csHeader;
  readonly constraints: R1csConstraints;
}

export type Lc = ReadonlyArray<readonly [wire: number, coeff: bigint]>;
export type R1csConstraint = readonly [a: Lc, b: Lc, c: Lc];

export interface R1csInput {
  readonly prime: bigint;
  readonly nWires: number;
  readonly nPubOut: number;
  readonly nPubIn: number;
  readonly nPrvIn: number;
  /** Defaults to nWires. */
  readonly nLabels?: number;
  readonly constraints: readonly R1csConstraint[];
}

function parseHeader(file: BinFile): R1csHeader {
  const where = file.where(1);
  const size = file.section(1).size;
  if (size !== 4 + N8 + 28) throw new FormatError(`${where}: expected ${4 + N8 + 28} bytes (n8 = 32), got ${size}`);
  const cur = new SectionCursor(file.readSection(1), where);
  const n8 = cur.u32('n8');
  if (n8 !== N8) throw cur.fail(`n8 is ${n8}, expected ${N8}`);
  const prime = cur.bigint(n8, 'prime');
  const info = curveByR(prime);
  if (!info) throw cur.fail(`prime is ${describePrime(prime)}, not the scalar field of BN254 or BLS12-381`);
  const h = {
    path: file.name, curve: info.name, n8, prime,
    nWires: cur.u32('nWires'), nPubOut: cur.u32('nPubOut'), nPubIn: cur.u32('nPubIn'), nPrvIn: cur.u32('nPrvIn'),
    nLabels: cur.u64('nLabels'), nConstraints: cur.u32('nConstraints'),
  };
  const io = h.nPubOut + h.nPubIn + h.nPrvIn;
  if (io + 1 > h.nWires) throw cur.fail(`nWires ${h.nWires} is below 1 + outputs + inputs = ${io + 1}`);
  const s3 = file.sections.get(3);
  if (s3 && s3.size !== h.nWires * 8) {
    throw new FormatError(`${file.where(3)}: expected 8 bytes per wire × ${h.nWires} wires = ${h.nWires * 8} bytes, got ${s3.size}`);
  }
  return h;
}

/** Pass 1: walk the LC headers to size the arrays, checking every length against the section. */
function countTerms(bytes: Uint8Array, h: R1csHeader, where: string): number {
  const view = dataViewOf(bytes);
  const termBytes = 4 + h.n8;
  if (h.nConstraints * 12 > bytes.length) {
    throw new FormatError(`${where}: ${h.nConstraints} constraints need at least 12 bytes each = ${h.nConstraints * 12} bytes, got ${bytes.length}`);
  }
  let pos = 0;
  let total = 0;
  for (let i = 0; i < h.nConstraints; i++) {
    for (let m = 0; m < 3; m++) {
      if (pos + 4 > bytes.length) throw new FormatError(`${where}: constraint ${i} ${MATRIX[m]}: section ends at byte ${bytes.length}, before its term count`);
      const n = view.getUint32(pos, true);
      pos += 4;
      if (n * termBytes > bytes.length - pos) {
        throw new FormatError(`${where}: constraint ${i} ${MATRIX[m]}: ${n} terms need ${n * termBytes} bytes, ${bytes.length - pos} remain`);
      }
      pos += n * termBytes;
      total += n;
    }
  }
  if (pos !== bytes.length) throw new FormatError(`${where}: expected ${pos} bytes for ${h.nConstraints} constraints, got ${bytes.length}`);
  if (total > 0xffffffff) throw new FormatError(`${where}: ${total} terms exceed the 2^32 supported`);
  return total;
}

function parseConstraints(bytes: Uint8Array, h: R1csHeader, where: string): R1csConstraints {
  const total = countTerms(bytes, h, where);
  const { n8, nWires } = h;
  const view = dataViewOf(bytes);
  const below = makeBelowCheck(h.prime, n8);
  const lcStart = new Uint32Array(3 * h.nConstraints + 1);
  const wires = new Uint32Array(total);
  const coeffs = new Uint8Array(total * n8);
  const coeffView = dataViewOf(coeffs);
  let pos = 0;
  let t = 0;
  for (let k = 0; k < 3 * h.nConstraints; k++) {
    const n = view.getUint32(pos, true);
    pos += 4;
    lcStart[k] = t;
    for (let j = 0; j < n; j++, t++, pos += 4 + n8) {
      const wire = view.getUint32(pos, true);
      const bad = wire >= nWires ? `wire ${wire}, expected < nWires ${nWires}` : below(view, pos + 4) ? '' : 'a coefficient not below the prime';
      if (bad) throw new FormatError(`${where}: constraint ${Math.floor(k / 3)} ${MATRIX[k % 3]} term ${j} has ${bad}`);
      wires[t] = wire;
      // 32-bit word copies: a byte loop or a subarray + set per term is ~4x slower (2^22 terms: 250 vs 1000 ms).
      for (let b = 0, src = pos + 4, dst = t * n8; b < n8; b += 4) coeffView.setUint32(dst + b, view.getUint32(src + b, true), true);
    }
  }
  lcStart[3 * h.nConstraints] = t;
  return { nConstraints: h.nConstraints, n8, lcStart, wires, coeffs };
}

function load(file: BinFile): R1cs {
  try {
    const header = parseHeader(file);
    const constraints = parseConstraints(file.readSection(2), header, file.where(2));
    return { header, constraints };
  } finally {
    file.close();
  }
}

/** Reads the header and all constraints; FormatError on any inconsistency. Section 3 is size-checked, not loaded. */
export function readR1cs(path: string): R1cs {
  return load(BinFile.open(path, SPEC));
}

export function parseR1cs(bytes: Uint8Array, name: string): R1cs {
  return load(BinFile.fromBytes(bytes, name, SPEC));
}

/** Constraint `i` as BigInt terms: for tests and small circuits, not for hot paths. */
export function r1csConstraintAt(c: R1csConstraints, i: number): R1csConstraint {
  const lc = (k: number): Lc => {
    const terms: Array<readonly [number, bigint]> = [];
    for (let t = c.lcStart[k]; t < c.lcStart[k + 1]; t++) terms.push([c.wires[t], leToBigint(c.coeffs, t * c.n8, c.n8)]);
    return terms;
  };
  return [lc(3 * i), lc(3 * i + 1), lc(3 * i + 2)];
}

function u32Field(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new InputError('E_INVALID_ARG', `r1cs ${name} must be a u32, got ${v}`);
}

function sections(input: R1csInput): SectionInput[] {
  const { prime, nWires, constraints } = input;
  if (!curveByR(prime)) throw new InputError('E_INVALID_ARG', `r1cs prime ${describePrime(prime)} is not a supported scalar field`);
  for (const k of ['nWires', 'nPubOut', 'nPubIn', 'nPrvIn'] as const) u32Field(k, input[k]);
  u32Field('constraints.length', constraints.length);
  const nLabels = input.nLabels ?? nWires;
  if (!Number.isSafeInteger(nLabels) || nLabels < 0) throw new InputError('E_INVALID_ARG', `r1cs nLabels must be a u64 below 2^53, got ${nLabels}`);
  const nTerms = constraints.reduce((n, c) => n + c[0].length + c[1].length + c[2].length, 0);
  const s2 = new Uint8Array(constraints.length * 12 + nTerms * (4 + N8));
  const v2 = dataViewOf(s2);
  let pos = 0;
  constraints.forEach((c, i) =>
    c.forEach((lc, m) => {
      v2.setUint32(pos, lc.length, true);
      pos += 4;
      for (const [wire, coeff] of lc) {
        if (!(wire >= 0 && wire < nWires) || coeff < 0n || coeff >= prime) {
          throw new InputError('E_INVALID_ARG', `r1cs constraint ${i} ${MATRIX[m]}: term (${wire}, ${coeff}) is out of range`);
        }
        v2.setUint32(pos, wire, true);
        bigintToLe(coeff, N8, s2, pos + 4);
        pos += 4 + N8;
      }
    }),
  );
  const s1 = new Uint8Array(4 + N8 + 28);
  const v1 = dataViewOf(s1);
  v1.setUint32(0, N8, true);
  bigintToLe(prime, N8, s1, 4);
  [nWires, input.nPubOut, input.nPubIn, input.nPrvIn].forEach((x, k) => v1.setUint32(4 + N8 + 4 * k, x, true));
  v1.setBigUint64(4 + N8 + 16, BigInt(nLabels), true);
  v1.setUint32(4 + N8 + 24, constraints.length, true);
  const s3 = new Uint8Array(nWires * 8);
  const v3 = dataViewOf(s3);
  for (let w = 0; w < nWires; w++) v3.setBigUint64(8 * w, BigInt(w), true);
  // circom's order (reference §2.4), so readers that assume numeric order get caught by our own tests.
  return [{ type: 2, bytes: s2 }, { type: 1, bytes: s1 }, { type: 3, bytes: s3 }];
}

export function encodeR1cs(input: R1csInput): Uint8Array {
  return encodeBinFile('r1cs', 1, sections(input));
}

export function writeR1cs(path: string, input: R1csInput): void {
  writeBinFile(path, 'r1cs', 1, sections(input));
}
