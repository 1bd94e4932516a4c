// The bytes of a generated circuit: constraints as .r1cs section 2 records (v1, reference §2.4) and witness
// values as .wtns section 2 slots (v2, §2.3), encoded into memory one segment at a time (SegmentWriter), then
// written to files (R1csFileWriter, WitnessFileWriter) or handed to dev-setup's accumulation, which needs no
// .r1cs file. Linear combinations merge repeated wires: snarkjs's wtns check keys an LC by wire id, so a
// repeat would silently drop a term there.

import type { CurveInfo } from '../formats/curves.js';
import { BinWriter } from './bin-writer.js';

const N8 = 32;
const MAX_TERMS = 64;

/** A reusable linear combination Σ coef·w[wire] of at most 64 terms. */
export class Lc {
  readonly wires = new Int32Array(MAX_TERMS);
  readonly coefs: bigint[] = new Array<bigint>(MAX_TERMS).fill(0n);
  n = 0;

  constructor(private readonly r: bigint) {}

  clear(): this {
    this.n = 0;
    return this;
  }

  add(wire: number, coef: bigint): this {
    for (let i = 0; i < this.n; i++) {
      if (this.wires[i] === wire) {
        this.coefs[i] = (this.coefs[i] + coef) % this.r;
        return this;
      }
    }
    if (this.n === MAX_TERMS) throw new RangeError('Lc: more than 64 terms');
    this.wires[this.n] = wire;
    this.coefs[this.n++] = coef % this.r;
    return this;
  }
}

export interface CircuitShape {
  readonly nWires: number;
  readonly nPubOut: number;
  readonly nPubIn: number;
  readonly nPrvIn: number;
  readonly nConstraints: number;
}

/** What the encoders below write through: a BinWriter, or a ByteChunk in memory. */
interface ByteSink {
  reserve(n: number): number;
  advance(n: number): void;
  readonly buffer: Uint8Array;
  readonly view: DataView;
  u32(v: number): void;
  write(bytes: Uint8Array): void;
}

/** A growable byte buffer with BinWriter's encoding calls. */
class ByteChunk implements ByteSink {
  buffer: Uint8Array;
  view: DataView;
  used = 0;

  constructor(bytes: number) {
    this.buffer = new Uint8Array(bytes);
    this.view = new DataView(this.buffer.buffer);
  }

  reserve(n: number): number {
    if (this.used + n > this.buffer.length) {
      const grown = new Uint8Array(Math.max(2 * this.buffer.length, this.used + n));
      grown.set(this.buffer.subarray(0, this.used));
      this.buffer = grown;
      this.view = new DataView(grown.buffer);
    }
    return this.used;
  }

  advance(n: number): void {
    this.used += n;
  }

  u32(v: number): void {
    this.view.setUint32(this.reserve(4), v, true);
    this.used += 4;
  }

  write(bytes: Uint8Array): void {
    this.buffer.set(bytes, this.reserve(bytes.length));
    this.used += bytes.length;
  }

  /** The bytes written, as a view of an ArrayBuffer of their own (transferable to another thread). */
  take(): Uint8Array {
    return this.used === this.buffer.length ? this.buffer : this.buffer.slice(0, this.used);
  }
}

/** One segment of a circuit: whole constraints (.r1cs section 2 bytes) and the values of the wires they define. */
export interface Segment {
  readonly index: number;
  readonly constraints: Uint8Array;
  readonly nConstraints: number;
  /** .wtns section 2 bytes of this segment's wires, in wire order. */
  readonly values: Uint8Array;
  readonly nValues: number;
  /** Values that are 0 or 1. */
  readonly nBinary: number;
  /** The public output (wire 1), known only once the last constraint is made: the last segment only. */
  readonly output?: bigint;
}

/** Encodes one segment's constraints and values in memory (about 170 + 32 bytes a constraint). */
export class SegmentWriter {
  private readonly r1cs: ByteChunk;
  private readonly wtns: ByteChunk;
  private readonly one: Uint8Array;
  private readonly minusOne: Uint8Array;
  nConstraints = 0;
  nValues = 0;

  constructor(private readonly curve: CurveInfo, expectConstraints: number) {
    this.one = le32(1n);
    this.minusOne = le32(curve.r - 1n);
    this.r1cs = new ByteChunk(Math.max(1024, 192 * expectConstraints));
    this.wtns = new ByteChunk(Math.max(1024, N8 * (expectConstraints + 8)));
  }

  /** Appends constraint A·B = C. */
  constraint(a: Lc, b: Lc, c: Lc): void {
    this.lc(a);
    this.lc(b);
    this.lc(c);
    this.nConstraints++;
  }

  private lc(lc: Lc): void {
    const w = this.r1cs;
    let n = 0;
    for (let i = 0; i < lc.n; i++) if (lc.coefs[i] !== 0n) n++;
    w.u32(n);
    for (let i = 0; i < lc.n; i++) {
      const coef = lc.coefs[i];
      if (coef === 0n) continue;
      w.u32(lc.wires[i]);
      if (coef === 1n) w.write(this.one);
      else if (coef === this.curve.r - 1n) w.write(this.minusOne);
      else putLe32(w, coef);
    }
  }

  /** Appends the next witness value (wire ids are dense, in order). */
  value(v: bigint): void {
    putLe32(this.wtns, v);
    this.nValues++;
  }

  finish(index: number, nBinary: number, output?: bigint): Segment {
    return {
      index, constraints: this.r1cs.take(), nConstraints: this.nConstraints, values: this.wtns.take(), nValues: this.nValues, nBinary,
      ...(output === undefined ? {} : { output }),
    };
  }
}

/** An .r1cs file written from segments in order: header first, section 3 (labels = wire ids) at the end. */
export class R1csFileWriter {
  private readonly w: BinWriter;
  private constraints = 0;

  constructor(curve: CurveInfo, private readonly shape: CircuitShape, path: string) {
    const w = (this.w = BinWriter.create(path, 'r1cs', 1, 3));
    try {
      w.beginSection(1);
      w.u32(N8);
      w.write(le32(curve.r));
      for (const v of [shape.nWires, shape.nPubOut, shape.nPubIn, shape.nPrvIn]) w.u32(v);
      w.u64(shape.nWires);
      w.u32(shape.nConstraints);
      w.endSection();
      w.beginSection(2);
    } catch (err) {
      w.abort();
      throw err;
    }
  }

  append(seg: Segment): void {
    this.w.write(seg.constraints);
    this.constraints += seg.nConstraints;
  }

  finish(): void {
    const { w, shape } = this;
    if (this.constraints !== shape.nConstraints) throw new RangeError(`${w.path}: wrote ${this.constraints} constraints, expected ${shape.nConstraints}`);
    w.endSection();
    w.beginSection(3);
    const labels = new BigUint64Array(Math.min(shape.nWires, 1 << 16));
    for (let wire = 0; wire < shape.nWires; wire += labels.length) {
      const m = Math.min(labels.length, shape.nWires - wire);
      for (let i = 0; i < m; i++) labels[i] = BigInt(wire + i);
      w.write(new Uint8Array(labels.buffer, 0, 8 * m));
    }
    w.endSection();
    w.close();
  }

  abort(): void {
    this.w.abort();
  }
}

/** A .wtns file written from segments in order; wire 1 (the public output) is patched in at the end. */
export class WitnessFileWriter {
  private readonly w: BinWriter;
  private readonly valuesAt: number;
  private values = 0;

  constructor(curve: CurveInfo, private readonly nWires: number, path: string) {
    const w = (this.w = BinWriter.create(path, 'wtns', 2, 2));
    try {
      w.beginSection(1);
      w.u32(N8);
      w.write(le32(curve.r));
      w.u32(nWires);
      w.endSection();
      w.beginSection(2);
      this.valuesAt = w.position;
    } catch (err) {
      w.abort();
      throw err;
    }
  }

  append(seg: Segment): void {
    this.w.write(seg.values);
    this.values += seg.nValues;
  }

  /** Overwrites the value of a wire already written (the public output is known only at the end). */
  patchValue(wire: number, v: bigint): void {
    this.w.patch(this.valuesAt + N8 * wire, le32(v));
  }

  finish(): void {
    if (this.values !== this.nWires) throw new RangeError(`${this.w.path}: wrote ${this.values} values, expected ${this.nWires}`);
    this.w.endSection();
    this.w.close();
  }

  abort(): void {
    this.w.abort();
  }
}

function le32(v: bigint): Uint8Array {
  const out = new Uint8Array(N8);
  const view = new DataView(out.buffer);
  for (let i = 0; i < 4; i++, v >>= 64n) view.setBigUint64(8 * i, BigInt.asUintN(64, v), true);
  return out;
}

function putLe32(w: ByteSink, v: bigint): void {
  const o = w.reserve(N8);
  const view = w.view;
  if (v < 0x100000000n) {
    // Half the witness is 0/1: skip the three BigInt shifts.
    w.buffer.fill(0, o + 4, o + N8);
    view.setUint32(o, Number(v), true);
    w.advance(N8);
    return;
  }
  view.setBigUint64(o, BigInt.asUintN(64, v), true);
  view.setBigUint64(o + 8, BigInt.asUintN(64, v >> 64n), true);
  view.setBigUint64(o + 16, BigInt.asUintN(64, v >> 128n), true);
  view.setBigUint64(o + 24, v >> 192n, true);
  w.advance(N8);
}
