// The gadgets of a dev circuit and one segment of it (generateSegment): a synthetic, satisfiable R1CS for tests
// and benches of any size without circom. Shapes follow real circuits: bit decompositions (b·(b−1) = 0, then a
// packing LC), products of full-width values, multi-term LCs, muxes, AND/XOR of bits and IsZero, drawing
// operands from the last 64 wires of each kind (real circuits are local too). About half the witness is 0/1.
// Wires follow circom's order: 0 = 1, 1 = the public output, 2 = the public input, 3..4 private inputs.
// A circuit is cut in segments of `segmentConstraints` constraints, each from its own seeded RNG and drawing
// only on its own wires and the inputs, so segments are made in parallel (circuit-segments.ts) and the circuit
// is the same whatever the number of threads. Every constraint but the last defines exactly one new wire, so
// segment k's first wire is known before the segments before it are made.

import { curveByName, type CurveName } from '../formats/curves.js';
import { Lc, SegmentWriter, type Segment } from './circuit-writer.js';
import { batchInverse } from './field-bigint.js';
import { DevRng, type Seed } from './rng.js';

export const N_PUB_OUT = 1;
export const N_PUB_IN = 1;
export const N_PRV_IN = 2;
export const FIRST_INTERNAL = 1 + N_PUB_OUT + N_PUB_IN + N_PRV_IN;
const RING = 64;
const N_CONSTANTS = 1024;
/** Constraints a segment holds (the last may hold fewer); 2^16 is ~13 MB of encoded bytes. */
export const SEGMENT_CONSTRAINTS = 1 << 16;

/** What fixes a dev circuit: the same spec gives the same bytes. */
export interface CircuitSpec {
  readonly curve: CurveName;
  readonly constraints: number;
  readonly seed: Seed;
  /** Test knob: constraints per segment (default SEGMENT_CONSTRAINTS); changes the circuit. */
  readonly segmentConstraints?: number;
}

export function segmentConstraintsOf(spec: CircuitSpec): number {
  return spec.segmentConstraints ?? SEGMENT_CONSTRAINTS;
}

/** Segments of the circuit: its n − 1 gadget constraints cut in pieces, the output constraint in the last one. */
export function segmentCount(spec: CircuitSpec): number {
  return Math.max(1, Math.ceil((spec.constraints - 1) / segmentConstraintsOf(spec)));
}

/** Recent wires of one kind with their values, for operand picks. */
class Ring {
  readonly wires = new Int32Array(RING);
  readonly values = new Array<bigint>(RING).fill(0n);
  size = 0;
  private head = 0;

  push(wire: number, value: bigint): void {
    this.wires[this.head] = wire;
    this.values[this.head] = value;
    this.head = (this.head + 1) % RING;
    if (this.size < RING) this.size++;
  }

  /** Index of a random entry (size must be > 0). */
  pick(rng: DevRng): number {
    return (this.head - 1 - rng.below(this.size) + 2 * RING) % RING;
  }
}

class Generator {
  private readonly a: Lc;
  private readonly b: Lc;
  private readonly c: Lc;
  private readonly full = new Ring();
  private readonly bits = new Ring();
  private readonly invPool = {
    wires: new Int32Array(RING), values: new Array<bigint>(RING), invs: new Array<bigint>(RING), scratch: new Array<bigint>(RING), size: 0,
  };
  private nextWire: number;
  nBinary = 0;

  constructor(
    private readonly out: SegmentWriter,
    private readonly rng: DevRng,
    private readonly r: bigint,
    private readonly constants: readonly bigint[],
    firstWire: number,
    inputs: ReadonlyArray<readonly [number, bigint]>,
  ) {
    [this.a, this.b, this.c] = [new Lc(r), new Lc(r), new Lc(r)];
    this.nextWire = firstWire;
    for (const [wire, value] of inputs) this.full.push(wire, value);
  }

  private newWire(value: bigint, kind: 'full' | 'bit' | 'none'): number {
    const wire = this.nextWire++;
    this.out.value(value);
    if (value === 0n || value === 1n) this.nBinary++;
    if (kind === 'full') this.full.push(wire, value);
    else if (kind === 'bit') this.bits.push(wire, value);
    return wire;
  }

  /** A full-width constant from a fixed table, as real circuits reuse theirs (e.g. Poseidon round constants). */
  private constant(): bigint {
    return this.constants[this.rng.below(N_CONSTANTS)];
  }

  private operand(): [number, bigint] {
    const i = this.full.pick(this.rng);
    return [this.full.wires[i], this.full.values[i]];
  }

  private bit(): [number, bigint] {
    const i = this.bits.pick(this.rng);
    return [this.bits.wires[i], this.bits.values[i]];
  }

  /** One gadget using at most `room` constraints; returns the number used. */
  gadget(room: number): number {
    const p = this.rng.u32() / 4294967296;
    if (p < 0.08 && room >= 5) return this.decompose(Math.min(room - 1, 4 + this.rng.below(13)));
    if (p < 0.16 && room >= 2) return this.isZero();
    const haveBits = this.bits.size >= 2;
    if (p < 0.23 && haveBits) return this.and();
    if (p < 0.30 && haveBits) return this.xor();
    if (p < 0.45 && haveBits) return this.mux();
    if (p < 0.70) return this.lcMul();
    return this.mul();
  }

  /** k bits b_i with b_i·(b_i − 1) = 0, then (Σ 2^i·b_i)·1 = z: k + 1 constraints. */
  private decompose(k: number): number {
    const { a, b, c, r } = this;
    const first = this.nextWire;
    let z = 0n;
    for (let i = 0; i < k; i++) {
      const bit = BigInt(this.rng.below(2));
      z += bit << BigInt(i);
      const w = this.newWire(bit, 'bit');
      this.out.constraint(a.clear().add(w, 1n), b.clear().add(w, 1n).add(0, r - 1n), c.clear());
    }
    a.clear();
    for (let i = 0; i < k; i++) a.add(first + i, 1n << BigInt(i));
    const zw = this.newWire(z, 'full');
    this.out.constraint(a, b.clear().add(0, 1n), c.clear().add(zw, 1n));
    return k + 1;
  }

  /** A recent full-width wire with its inverse (0 for 0), from batches inverted together (≈ 4 µs each, 150 alone). */
  private invertible(): [number, bigint, bigint] {
    const pool = this.invPool;
    if (pool.size === 0) {
      for (let i = 0; i < this.full.size; i++) {
        const v = this.full.values[i];
        pool.wires[pool.size] = this.full.wires[i];
        pool.values[pool.size] = v;
        pool.invs[pool.size++] = v === 0n ? 1n : v;
      }
      batchInverse(pool.invs, pool.size, this.r, pool.scratch);
    }
    const i = --pool.size;
    return [pool.wires[i], pool.values[i], pool.values[i] === 0n ? 0n : pool.invs[i]];
  }

  /** circomlib IsZero: x·inv = 1 − o and x·o = 0 (o is 1 iff x = 0). */
  private isZero(): number {
    const { a, b, c, r } = this;
    const [x, xv, invV] = this.invertible();
    const o = xv === 0n ? 1n : 0n;
    const inv = this.newWire(invV, 'full');
    const ow = this.newWire(o, 'bit');
    this.out.constraint(a.clear().add(x, 1n), b.clear().add(inv, 1n), c.clear().add(0, 1n).add(ow, r - 1n));
    this.out.constraint(a.clear().add(x, 1n), b.clear().add(ow, 1n), c.clear());
    return 2;
  }

  private and(): number {
    const [x, xv] = this.bit();
    const [y, yv] = this.bit();
    const w = this.newWire(xv * yv, 'bit');
    this.out.constraint(this.a.clear().add(x, 1n), this.b.clear().add(y, 1n), this.c.clear().add(w, 1n));
    return 1;
  }

  /** w = x + y − 2xy, as (2x)·y = x + y − w. */
  private xor(): number {
    const { a, b, c, r } = this;
    const [x, xv] = this.bit();
    const [y, yv] = this.bit();
    const w = this.newWire((xv + yv - 2n * xv * yv + r) % r, 'bit');
    this.out.constraint(a.clear().add(x, 2n), b.clear().add(y, 1n), c.clear().add(x, 1n).add(y, 1n).add(w, r - 1n));
    return 1;
  }

  /** w = s ? x : y, as s·(x − y) = w − y. */
  private mux(): number {
    const { a, b, c, r } = this;
    const [s, sv] = this.bit();
    const [x, xv] = this.operand();
    const [y, yv] = this.operand();
    const w = this.newWire(sv === 1n ? xv : yv, 'full');
    this.out.constraint(a.clear().add(s, 1n), b.clear().add(x, 1n).add(y, r - 1n), c.clear().add(w, 1n).add(y, r - 1n));
    return 1;
  }

  /** w = (k1·x1 + k2·x2 + x3 + k0)·(y + k3) with full-width constants. */
  private lcMul(): number {
    const { a, b, c, r } = this;
    a.clear();
    let av = 0n;
    for (const k of [this.constant(), this.constant(), 1n]) {
      const [x, xv] = this.operand();
      a.add(x, k);
      av += k * xv;
    }
    const k0 = this.constant();
    const k3 = this.constant();
    a.add(0, k0);
    const [y, yv] = this.operand();
    b.clear().add(y, 1n).add(0, k3);
    const w = this.newWire((((av + k0) % r) * ((yv + k3) % r)) % r, 'full');
    this.out.constraint(a, b, c.clear().add(w, 1n));
    return 1;
  }

  private mul(): number {
    const [x, xv] = this.operand();
    const [y, yv] = this.operand();
    const w = this.newWire((xv * yv) % this.r, 'full');
    this.out.constraint(this.a.clear().add(x, 1n), this.b.clear().add(y, 1n), this.c.clear().add(w, 1n));
    return 1;
  }

  /** The last constraint: out = x·in, tying the public input and output to the rest; returns out. */
  output(input: bigint): bigint {
    const [x, xv] = this.operand();
    const outV = (xv * input) % this.r;
    this.out.constraint(this.a.clear().add(x, 1n), this.b.clear().add(2, 1n), this.c.clear().add(1, 1n));
    if (outV === 0n || outV === 1n) this.nBinary++;
    return outV;
  }
}

interface Head {
  readonly constants: bigint[];
  readonly input: bigint;
  readonly privateInputs: bigint[];
  /** The master RNG after the constants and inputs: segment 0 goes on drawing from it. */
  readonly rng: DevRng;
}

/** The constant table and the inputs, drawn first from the seed's RNG (every segment draws them again: ~1 ms). */
function head(spec: CircuitSpec, r: bigint): Head {
  const rng = new DevRng(spec.seed);
  const constants = Array.from({ length: N_CONSTANTS }, () => rng.field(r));
  const input = rng.field(r);
  const privateInputs = Array.from({ length: N_PRV_IN }, () => rng.field(r));
  return { constants, input, privateInputs, rng };
}

/** The circuit's public input (wire 2). */
export function publicInput(spec: CircuitSpec): bigint {
  return head(spec, curveByName(spec.curve)!.r).input;
}

/** Segment k of the circuit `spec` (0 ≤ k < segmentCount(spec)); segment 0 also holds the values of wires 0..4. */
export function generateSegment(spec: CircuitSpec, k: number): Segment {
  const info = curveByName(spec.curve)!;
  const r = info.r;
  const per = segmentConstraintsOf(spec);
  const last = k === segmentCount(spec) - 1;
  const gadgets = Math.min(per, spec.constraints - 1 - k * per);
  const h = head(spec, r);
  const out = new SegmentWriter(info, gadgets + (last ? 1 : 0));
  const inputs: Array<[number, bigint]> = [[2, h.input], ...h.privateInputs.map((v, i): [number, bigint] => [3 + i, v])];
  let nBinary = 0;
  if (k === 0) {
    out.value(1n);
    out.value(0n); // the public output, patched in once the last segment is made
    for (const [, v] of inputs) out.value(v);
    nBinary = 1;
  }
  const rng = k === 0 ? h.rng : new DevRng(`${typeof spec.seed}:${spec.seed}/segment ${k}`);
  const gen = new Generator(out, rng, r, h.constants, FIRST_INTERNAL + k * per, inputs);
  for (let done = 0; done < gadgets; ) done += gen.gadget(gadgets - done);
  const output = last ? gen.output(h.input) : undefined;
  return out.finish(k, nBinary + gen.nBinary, output);
}
