// Streams an .r1cs (v1, reference §2.4) and its .wtns (v2, §2.3) side by side, one constraint and one
// witness value at a time, so a 2^24-constraint circuit needs no per-constraint objects and constant memory.
// Linear combinations merge repeated wires: snarkjs's wtns check keys an LC by wire id, so a repeat would
// silently drop a term there.

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

export class CircuitWriter {
  private readonly r1cs: BinWriter;
  private readonly wtns: BinWriter;
  private readonly one: Uint8Array;
  private readonly minusOne: Uint8Array;
  private witnessStart = 0;
  private nextValue = 0;
  private constraints = 0;

  constructor(private readonly curve: CurveInfo, private readonly shape: CircuitShape, r1csPath: string, wtnsPath: string) {
    this.one = le32(1n);
    this.minusOne = le32(curve.r - 1n);
    this.r1cs = BinWriter.create(r1csPath, 'r1cs', 1, 3);
    try {
      this.wtns = BinWriter.create(wtnsPath, 'wtns', 2, 2);
    } catch (err) {
      this.r1cs.abort();
      throw err;
    }
    this.writeHeaders();
  }

  private writeHeaders(): void {
    const { r1cs, wtns, shape } = this;
    r1cs.beginSection(1);
    r1cs.u32(N8);
    r1cs.write(le32(this.curve.r));
    for (const v of [shape.nWires, shape.nPubOut, shape.nPubIn, shape.nPrvIn]) r1cs.u32(v);
    r1cs.u64(shape.nWires);
    r1cs.u32(shape.nConstraints);
    r1cs.endSection();
    r1cs.beginSection(2);

    wtns.beginSection(1);
    wtns.u32(N8);
    wtns.write(le32(this.curve.r));
    wtns.u32(shape.nWires);
    wtns.endSection();
    wtns.beginSection(2);
    this.witnessStart = wtns.position;
  }

  /** Appends constraint A·B = C. */
  constraint(a: Lc, b: Lc, c: Lc): void {
    this.lc(a);
    this.lc(b);
    this.lc(c);
    this.constraints++;
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
    this.nextValue++;
  }

  /** Overwrites the value of a wire already written (the public output is known only at the end). */
  patchValue(wire: number, v: bigint): void {
    this.wtns.patch(this.witnessStart + N8 * wire, le32(v));
  }

  get valuesWritten(): number {
    return this.nextValue;
  }

  get constraintsWritten(): number {
    return this.constraints;
  }

  finish(): void {
    const { r1cs, wtns, shape } = this;
    if (this.nextValue !== shape.nWires || this.constraints !== shape.nConstraints) {
      this.abort();
      throw new RangeError(`dev circuit: wrote ${this.constraints} constraints and ${this.nextValue} values, expected ${shape.nConstraints} and ${shape.nWires}`);
    }
    r1cs.endSection();
    r1cs.beginSection(3);
    for (let wire = 0; wire < shape.nWires; wire++) r1cs.u64(wire);
    r1cs.endSection();
    r1cs.close();
    wtns.endSection();
    wtns.close();
  }

  abort(): void {
    this.r1cs.abort();
    this.wtns.abort();
  }
}

function le32(v: bigint): Uint8Array {
  const out = new Uint8Array(N8);
  const view = new DataView(out.buffer);
  for (let i = 0; i < 4; i++, v >>= 64n) view.setBigUint64(8 * i, BigInt.asUintN(64, v), true);
  return out;
}

function putLe32(w: BinWriter, v: bigint): void {
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
