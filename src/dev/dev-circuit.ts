// devCircuit: a synthetic, satisfiable R1CS of exactly N constraints and its witness, written as .r1cs and
// .wtns files (the gadgets: gadgets.ts; made in parallel segments: circuit-segments.ts). dev-setup's
// one-step road (devSetupCircuit) feeds the same segments to its accumulation without the .r1cs file.

import { InputError } from '../errors.js';
import { curveByName, type CurveInfo, type CurveName } from '../formats/curves.js';
import { forEachSegment, type CircuitTally, type ProgressFn } from './circuit-segments.js';
import { R1csFileWriter, WitnessFileWriter, type CircuitShape } from './circuit-writer.js';
import { FIRST_INTERNAL, N_PRV_IN, N_PUB_IN, N_PUB_OUT, publicInput, type CircuitSpec } from './gadgets.js';
import type { Seed } from './rng.js';

export type { ProgressFn } from './circuit-segments.js';

export interface DevCircuitOptions {
  /** Exact constraint count, ≥ 1. For a zkey domain of 2^k use maxConstraintsForDomain(k). */
  readonly constraints: number;
  readonly curve: CurveName;
  readonly r1csPath: string;
  readonly wtnsPath: string;
  /** Same seed, same files. Default 0. */
  readonly seed?: Seed;
  readonly onProgress?: ProgressFn;
  /** Threads making segments (default: the cores but one; 0 = this thread). The files do not depend on it. */
  readonly workers?: number;
  /** Test knob (see CircuitSpec). */
  readonly segmentConstraints?: number;
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

const MAX_CONSTRAINTS = 2 ** 28;

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

/** The checked spec and shape of a dev circuit of `constraints` constraints; E_INVALID_ARG naming `what` otherwise. */
export function circuitOf(what: string, opts: Pick<DevCircuitOptions, 'constraints' | 'curve' | 'seed' | 'segmentConstraints'>): { spec: CircuitSpec; shape: CircuitShape; curve: CurveInfo } {
  const curve = curveByName(opts.curve);
  if (!curve) throw new InputError('E_INVALID_ARG', `${what}: unknown curve ${JSON.stringify(opts.curve)} (expected bn128 or bls12381)`);
  const n = opts.constraints;
  if (!Number.isInteger(n) || n < 1 || n > MAX_CONSTRAINTS) {
    throw new InputError('E_INVALID_ARG', `${what}: constraints must be an integer in [1, 2^28], got ${n}`);
  }
  const spec = { curve: curve.name, constraints: n, seed: opts.seed ?? 0, ...(opts.segmentConstraints ? { segmentConstraints: opts.segmentConstraints } : {}) };
  // Every constraint but the last defines one new internal wire; the last defines the public output.
  const shape = { nWires: FIRST_INTERNAL + n - 1, nPubOut: N_PUB_OUT, nPubIn: N_PUB_IN, nPrvIn: N_PRV_IN, nConstraints: n };
  return { spec, shape, curve };
}

/** The result of devCircuit for a circuit whose segments summed to `tally`. */
export function circuitResult(spec: CircuitSpec, shape: CircuitShape, tally: CircuitTally): DevCircuitResult {
  const { output } = tally;
  const input = publicInput(spec);
  return {
    curve: spec.curve, nConstraints: shape.nConstraints, nWires: shape.nWires, nPubOut: N_PUB_OUT, nPubIn: N_PUB_IN, nPrvIn: N_PRV_IN,
    nBinaryValues: tally.nBinary, publicSignals: [output.toString(), input.toString()], lgDomain: lgDomainFor(shape.nConstraints),
  };
}

/** Writes `r1csPath` and `wtnsPath` (overwriting them); `snarkjs wtns check` accepts the pair. */
export async function devCircuit(opts: DevCircuitOptions): Promise<DevCircuitResult> {
  const { spec, shape, curve } = circuitOf('devCircuit', opts);
  const r1cs = new R1csFileWriter(curve, shape, opts.r1csPath);
  let wtns: WitnessFileWriter;
  try {
    wtns = new WitnessFileWriter(curve, shape.nWires, opts.wtnsPath);
  } catch (err) {
    r1cs.abort();
    throw err;
  }
  try {
    const tally = await forEachSegment(spec, (seg) => {
      r1cs.append(seg);
      wtns.append(seg);
    }, { workers: opts.workers, onProgress: opts.onProgress });
    wtns.patchValue(1, tally.output);
    r1cs.finish();
    wtns.finish();
    return circuitResult(spec, shape, tally);
  } catch (err) {
    r1cs.abort();
    wtns.abort();
    throw err;
  }
}
