// devCircuit: a synthetic, satisfiable R1CS of exactly N constraints and its witness, for tests and benches
// of any size without circom. Shapes follow real circuits: bit decompositions (b·(b−1) = 0, then a packing
// LC), products of full-width values, multi-term LCs, muxes, AND/XOR of bits and IsZero, drawing operands
// from the last 64 wires of each kind (real circuits are local too). About half the witness is 0/1.
// Wires follow circom's order: 0 = 1, 1 = the public output, 2 = the public input, 3..4 private inputs.

import { InputError } from '../errors.js';
import { curveByName, type CurveName } from '../formats/curves.js';
import { CircuitWriter, Lc } from './circuit-writer.js';
import { batchInverse } from './field-bigint.js';
import { DevRng, type Seed } from './rng.js';

export type ProgressFn = (phase: string, done: number, total: number) => void;

export interface DevCircuitOptions {
  /** Exact constraint count, ≥ 1. For a zkey domain of 2^k use maxConstraintsForDomain(k). */
  readonly constraints: number;
  readonly curve: CurveName;
  readonly r1csPath: string;
  readonly wtnsPath: string;
  /** Same seed, same files. Default 0. */
  readonly seed?: Seed;
  readonly onProgress?: ProgressFn;
}

export interface DevCircuitResult {
  readonly curve: CurveName;
  readonly nConstraints: number;
  readonly nWires: number;
  readonly nPubOut: number;
  readonly nPubIn: number;
  readonly nPrvIn: number;
  /** Witness values that are 0 or 1 (wire 0 included). */
  readonly nBinaryValues: number;
  /** witness[1..nPublic] as decimal strings, as snarkjs's public.json has them. */
  readonly publicSignals: string[];
  /** log2 of the domain of its key: snarkjs adds a row per public signal and one for wire 0. */
  readonly lgDomain: number;
}

const N_PUB_OUT = 1;
const N_PUB_IN = 1;
const N_PRV_IN = 2;
const FIRST_INTERNAL = 1 + N_PUB_OUT + N_PUB_IN + N_PRV_IN;
const RING = 64;
const N_CONSTANTS = 1024;
const MAX_CONSTRAINTS = 2 ** 28;
const PROGRESS_EVERY = 1 << 16;

/** Largest constraint count whose snarkjs domain (constraints + nPublic + 1 rows) is 2^lgDomain. */
export function maxConstraintsForDomain(lgDomain: number): number {
  return 2 ** lgDomain - publicRows();
}

/** The QAP rows snarkjs adds to the constraints: one per public signal, one for wire 0. */
export function publicRows(): number {
  return N_PUB_OUT + N_PUB_IN + 1;
}

/** log2 of the snarkjs domain of a dev circuit of `constraints` constraints. */
export function lgDomainFor(constraints: number): number {
  return Math.ceil(Math.log2(constraints + publicRows()));
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
  private readonly constants: bigint[];
  private readonly full = new Ring();
  private readonly bits = new Ring();
  private readonly invPool = {
    wires: new Int32Array(RING), values: new Array<bigint>(RING), invs: new Array<bigint>(RING), scratch: new Array<bigint>(RING), size: 0,
  };
  private nextWire = FIRST_INTERNAL;
  nBinary = 1;

  constructor(private readonly out: CircuitWriter, private readonly rng: DevRng, private readonly r: bigint) {
    [this.a, this.b, this.c] = [new Lc(r), new Lc(r), new Lc(r)];
    this.constants = Array.from({ length: N_CONSTANTS }, () => rng.field(r));
  }

  private newWire(value: bigint, kind: 'full' | 'bit' | 'none'): number {
    const wire = this.nextWire++;
    this.out.value(value);
    if (value === 0n || value === 1n) this.nBinary++;
    if (kind === 'full') this.full.push(wire, value);
    else if (kind === 'bit') this.bits.push(wire, value);
    return wire;
  }

  /** Wire 0, the public output placeholder, the public input and the private inputs. */
  inputs(): bigint {
    this.out.value(1n);
    this.out.value(0n);
    const input = this.rng.field(this.r);
    this.out.value(input);
    this.full.push(2, input);
    for (let i = 0; i < N_PRV_IN; i++) {
      const v = this.rng.field(this.r);
      this.out.value(v);
      this.full.push(3 + i, v);
    }
    return input;
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

  /** The last constraint: out = x·in, tying the public input and output to the rest. */
  output(input: bigint): bigint {
    const [x, xv] = this.operand();
    const outV = (xv * input) % this.r;
    this.out.constraint(this.a.clear().add(x, 1n), this.b.clear().add(2, 1n), this.c.clear().add(1, 1n));
    this.out.patchValue(1, outV);
    if (outV === 0n || outV === 1n) this.nBinary++;
    return outV;
  }
}

/** Writes `r1csPath` and `wtnsPath` (overwriting them); `snarkjs wtns check` accepts the pair. */
export async function devCircuit(opts: DevCircuitOptions): Promise<DevCircuitResult> {
  const info = curveByName(opts.curve);
  if (!info) throw new InputError('E_INVALID_ARG', `devCircuit: unknown curve ${JSON.stringify(opts.curve)} (expected bn128 or bls12381)`);
  const n = opts.constraints;
  if (!Number.isInteger(n) || n < 1 || n > MAX_CONSTRAINTS) {
    throw new InputError('E_INVALID_ARG', `devCircuit: constraints must be an integer in [1, 2^28], got ${n}`);
  }
  // Every constraint but the last defines one new internal wire; the last defines the public output.
  const shape = { nWires: FIRST_INTERNAL + n - 1, nPubOut: N_PUB_OUT, nPubIn: N_PUB_IN, nPrvIn: N_PRV_IN, nConstraints: n };
  const out = new CircuitWriter(info, shape, opts.r1csPath, opts.wtnsPath);
  try {
    const gen = new Generator(out, new DevRng(opts.seed ?? 0), info.r);
    const input = gen.inputs();
    for (let done = 0, next = PROGRESS_EVERY; done < n - 1; ) {
      done += gen.gadget(n - 1 - done);
      if (done >= next) {
        opts.onProgress?.('constraints', done, n);
        next += PROGRESS_EVERY;
      }
    }
    const outV = gen.output(input);
    out.finish();
    opts.onProgress?.('constraints', n, n);
    return {
      curve: info.name, nConstraints: n, nWires: shape.nWires, nPubOut: N_PUB_OUT, nPubIn: N_PUB_IN, nPrvIn: N_PRV_IN,
      nBinaryValues: gen.nBinary, publicSignals: [outV.toString(), input.toString()], lgDomain: lgDomainFor(n),
    };
  } catch (err) {
    out.abort();
    throw err;
  }
}
