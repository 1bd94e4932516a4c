// devSetup: an INSECURE Groth16 .zkey straight from an .r1cs, or (devSetupCircuit) from a dev circuit made as
// the key is, its witness written beside and no .r1cs on disk (the same bytes as dev-circuit then dev-setup
// for the same seed), from toxic waste τ, α, β, γ, δ that this process knows: no powers-of-tau ceremony, so fixtures of any size cost O(N) field operations (native,
// threaded: lagrange.ts, qap.ts) plus N fixed-base multiplications per point section (native batchMul, on
// the GPU when the CUDA core has one), instead of prepare phase2's group FFTs.
// Sections follow snarkjs zkey_new.js (reference §2.2): A/B1/B2 = A_j(τ), B_j(τ) in G1/G2, IC = (βA_j +
// αB_j + C_j)/γ for j ≤ nPublic, C = (...)/δ for the rest, H_j = L^(2n)_(2j+1)(τ)/δ, coefficients v·R² mod r
// ordered by constraint then the public rows. Anyone holding the toxic waste can forge proofs.

import { constants } from 'node:buffer';
import { FormatError, InputError } from '../errors.js';
import type { CurveInfo, CurveName } from '../formats/curves.js';
import { bigintToLe } from '../formats/lem.js';
import { BinWriter } from './bin-writer.js';
import { forEachSegment } from './circuit-segments.js';
import { WitnessFileWriter } from './circuit-writer.js';
import { circuitOf, circuitResult, type DevCircuitResult, type ProgressFn } from './dev-circuit.js';
import { qapCombine } from '../ffi/native.js';
import { frParams, inv, type FrParams, type FrVec } from './field-bigint.js';
import { generatorBytes } from './generators.js';
import { lagrangeValues, vanishingAt } from './lagrange.js';
import { accumulateQap, QapAccumulator, type QapSums, type RowValuesFn } from './qap.js';
import { openR1cs, type R1csInfo } from './r1cs-stream.js';
import { secretScalar, type Seed } from './rng.js';
import { nativeBatchMul, POINTS_CHUNK, writePoints, type BatchMulFn, type Group } from './points.js';

export type { BatchMulFn } from './points.js';

const MAX_ARRAY_BYTES = constants.MAX_LENGTH;

export const DEV_SETUP_WARNING =
  'INSECURE KEY: cuzk dev-setup made this zkey from toxic waste it knew (no ceremony); anyone with the waste or the seed can forge proofs. For tests and benchmarks only.';

/** Stored as the zkey's circuit hash (section 10), so the file itself says what it is. */
const CS_HASH_MARK = 'INSECURE cuzk dev-setup key: toxic waste known, do not deploy';

interface KeyOptions {
  readonly zkeyPath: string;
  /** Reproducible toxic waste (same seed, same key); without it, fresh from the OS CSPRNG. */
  readonly seed?: Seed;
  /** Return τ, α, β, γ, δ in the result (tests only). */
  readonly revealToxicWaste?: boolean;
  readonly onProgress?: ProgressFn;
  /** out[i] = scalars[i]·base as LEM points; default the native core's cuzk_batch_mul. */
  readonly batchMul?: BatchMulFn;
}

export interface DevSetupOptions extends KeyOptions {
  readonly r1csPath: string;
}

export interface DevSetupCircuitOptions extends KeyOptions {
  /** The dev circuit (dev-circuit.ts's options): `seed` is its seed too (default 0 there). */
  readonly constraints: number;
  readonly curve: CurveName;
  readonly wtnsPath: string;
  /** Threads making the circuit's segments (see DevCircuitOptions). */
  readonly workers?: number;
  readonly segmentConstraints?: number;
}

export interface ToxicWaste {
  readonly tau: bigint;
  readonly alpha: bigint;
  readonly beta: bigint;
  readonly gamma: bigint;
  readonly delta: bigint;
}

export interface DevSetupResult {
  readonly curve: CurveName;
  readonly nConstraints: number;
  readonly nVars: number;
  readonly nPublic: number;
  readonly domainSize: number;
  readonly nCoefs: number;
  /** DEV_SETUP_WARNING: callers print it. */
  readonly warning: string;
  readonly toxicWaste?: ToxicWaste;
}

interface Plan {
  readonly info: R1csInfo;
  readonly curve: CurveInfo;
  readonly fr: FrParams;
  readonly nPublic: number;
  readonly nVars: number;
  /** Rows of the QAP: constraints, then one per public wire (and wire 0). */
  readonly nRows: number;
  readonly lgDomain: number;
  readonly mul: BatchMulFn;
  readonly progress: ProgressFn;
}

function makePlan(info: R1csInfo, source: string, opts: KeyOptions): Plan {
  const fr = frParams(info.curve.name);
  const nPublic = info.nPubOut + info.nPubIn;
  const nRows = info.nConstraints + nPublic + 1;
  // snarkjs: cirPower = log2(nRows − 1) + 1, i.e. the smallest 2^k ≥ nRows (k ≥ 1).
  let lgDomain = 1;
  while (2 ** lgDomain < nRows) lgDomain++;
  if (lgDomain + 1 > fr.s) {
    throw new InputError('E_INVALID_ARG', `${source}: ${nRows} QAP rows need a 2^${lgDomain} domain; dev-setup supports up to 2^${fr.s - 1}`);
  }
  // the QAP's three accumulators are one Uint8Array each (32 bytes a wire): past what one can hold (4 GiB
  // on Node 20) say so now, not as a RangeError after the constraints were read or made
  if (32 * info.nWires > MAX_ARRAY_BYTES) {
    throw new InputError('E_INVALID_ARG', `${source}: ${info.nWires} wires need ${32 * info.nWires} bytes in one array, more than Node.js holds (${MAX_ARRAY_BYTES}); dev-setup supports up to ${MAX_ARRAY_BYTES / 32} wires`);
  }
  return {
    info, curve: info.curve, fr, nPublic, nVars: info.nWires, nRows, lgDomain,
    mul: opts.batchMul ?? nativeBatchMul, progress: opts.onProgress ?? (() => undefined),
  };
}

function drawToxicWaste(p: Plan, seed: Seed | undefined): ToxicWaste {
  const r = p.fr.r;
  let tau = 0n;
  // τ off both domains (n and 2n): τ^(2n) ≠ 1. Failing is a 2^-200 event; retry with a new label.
  for (let i = 0; tau === 0n || vanishingAt(r, tau, p.lgDomain + 1) === 0n; i++) tau = secretScalar(r, `tau#${i}`, seed);
  const [alpha, beta, gamma, delta] = ['alpha', 'beta', 'gamma', 'delta'].map((l) => secretScalar(r, l, seed));
  return { tau, alpha, beta, gamma, delta };
}

function scalarBytes(values: readonly bigint[]): Uint8Array {
  const out = new Uint8Array(32 * values.length);
  values.forEach((v, i) => bigintToLe(v, 32, out, 32 * i));
  return out;
}

async function writeHeaders(zk: BinWriter, p: Plan, t: ToxicWaste): Promise<void> {
  const { curve } = p;
  const gen = generatorBytes(curve);
  const points = async (group: Group, k: bigint[]) => {
    const out = new Uint8Array(k.length * (group === 1 ? 2 : 4) * curve.n8q);
    await p.mul(curve.name, group, group === 1 ? gen.g1 : gen.g2, scalarBytes(k), k.length, out);
    return out;
  };
  const [sG1, sG2] = [2 * curve.n8q, 4 * curve.n8q];
  const p1 = await points(1, [t.alpha, t.beta, t.delta]);
  const p2 = await points(2, [t.beta, t.gamma, t.delta]);
  const [alpha1, beta1, delta1] = [0, 1, 2].map((i) => p1.subarray(i * sG1, (i + 1) * sG1));
  writeZkeyHeader(zk, curve, { nVars: p.nVars, nPublic: p.nPublic, domainSize: 2 ** p.lgDomain },
    [alpha1, beta1, p2.subarray(0, sG2), p2.subarray(sG2, 2 * sG2), delta1, p2.subarray(2 * sG2)]);
}

/** Sections 1 (Groth16) and 2 (the header) of a zkey; |points|: alpha1, beta1, beta2, gamma2, delta1, delta2 (LEM). */
export function writeZkeyHeader(zk: BinWriter, curve: CurveInfo, sizes: { nVars: number; nPublic: number; domainSize: number },
  points: readonly Uint8Array[]): void {
  zk.beginSection(1);
  zk.u32(1); // Groth16
  zk.endSection();
  zk.beginSection(2);
  zk.u32(curve.n8q);
  zk.write(bigintToLe(curve.q, curve.n8q));
  zk.u32(curve.n8r);
  zk.write(bigintToLe(curve.r, curve.n8r));
  zk.u32(sizes.nVars);
  zk.u32(sizes.nPublic);
  zk.u32(sizes.domainSize);
  for (const b of points) zk.write(b);
  zk.endSection();
}

async function writeH(zk: BinWriter, p: Plan, t: ToxicWaste, base: Uint8Array): Promise<void> {
  const n = 2 ** p.lgDomain;
  const vec = new Uint8Array(32 * Math.min(n, POINTS_CHUNK));
  const series = { curve: p.curve.name, tau: t.tau, lgSize: p.lgDomain + 1, scale: inv(t.delta, p.fr.r) };
  const scalars = (start: number, m: number) => {
    lagrangeValues(series, 2 * start + 1, 2, m, vec);
    return vec.subarray(0, 32 * m);
  };
  zk.beginSection(9);
  await writePoints(zk, p.curve, p.mul, 1, base, scalars, n, (done) => p.progress('H', done, n));
  zk.endSection();
}

/** The zkey's row values: L_i(τ) over the 2^lgDomain domain. */
function lagrangeRows(p: Plan, t: ToxicWaste): RowValuesFn {
  const series = { curve: p.curve.name, tau: t.tau, lgSize: p.lgDomain, scale: 1n };
  return (first, count, out) => lagrangeValues(series, first, 1, count, out);
}

/** Fills section 4 from the circuit's constraints and returns the per-wire sums (QapAccumulator). */
type Accumulate = (zk: BinWriter, rows: RowValuesFn) => Promise<QapSums>;

async function writeSections(zk: BinWriter, p: Plan, t: ToxicWaste, accumulate: Accumulate): Promise<number> {
  await writeHeaders(zk, p, t);
  const { acc: [a, b, c], nCoefs } = await accumulate(zk, lagrangeRows(p, t));
  const k = (v: bigint) => bigintToLe(v, 32);
  qapCombine(p.curve.name, [a.bytes, b.bytes, c.bytes], p.nVars, p.nPublic, k(t.alpha), k(t.beta), k(t.gamma), k(t.delta));
  const gen = generatorBytes(p.curve);
  const sections: Array<[number, string, Group, FrVec, number, number]> = [
    [3, 'IC', 1, c, 0, p.nPublic + 1],
    [5, 'A', 1, a, 0, p.nVars],
    [6, 'B1', 1, b, 0, p.nVars],
    [7, 'B2', 2, b, 0, p.nVars],
    [8, 'C', 1, c, p.nPublic + 1, p.nVars],
  ];
  for (const [type, name, group, vec, from, to] of sections) {
    zk.beginSection(type);
    await writePoints(zk, p.curve, p.mul, group, group === 1 ? gen.g1 : gen.g2, vec.subarray(from, to), to - from, (done) => p.progress(name, done, to - from));
    zk.endSection();
  }
  await writeH(zk, p, t, gen.g1);
  zk.beginSection(10);
  const mark = new Uint8Array(64);
  mark.set(new TextEncoder().encode(CS_HASH_MARK).subarray(0, 64));
  zk.write(mark);
  zk.u32(0); // no contributions
  zk.endSection();
  return nCoefs;
}

/** The key of `info`'s circuit into `opts.zkeyPath`, written once in place (a failure deletes it). */
async function writeKey(info: R1csInfo, source: string, opts: KeyOptions, accumulate: Accumulate): Promise<DevSetupResult> {
  const p = makePlan(info, source, opts);
  const t = drawToxicWaste(p, opts.seed);
  const zk = BinWriter.create(opts.zkeyPath, 'zkey', 1, 10);
  let nCoefs: number;
  try {
    nCoefs = await writeSections(zk, p, t, accumulate);
    zk.close();
  } catch (err) {
    zk.abort();
    throw err;
  }
  return {
    curve: p.curve.name, nConstraints: info.nConstraints, nVars: p.nVars, nPublic: p.nPublic, domainSize: 2 ** p.lgDomain,
    nCoefs, warning: DEV_SETUP_WARNING, ...(opts.revealToxicWaste ? { toxicWaste: t } : {}),
  };
}

/** Writes `zkeyPath` (overwriting it) from the circuit in `r1csPath`. The key is INSECURE: print result.warning. */
export async function devSetup(opts: DevSetupOptions): Promise<DevSetupResult> {
  const { file, info } = openR1cs(opts.r1csPath);
  try {
    return await writeKey(info, opts.r1csPath, opts, async (zk, rows) => accumulateQap(zk, file, info, info.nPubOut + info.nPubIn, rows, opts.onProgress ?? (() => undefined)));
  } finally {
    file.close();
  }
}

/**
 * Writes `zkeyPath` and `wtnsPath` (overwriting them): the dev circuit of `constraints` constraints (seed
 * `seed ?? 0`) and its key, the same bytes as devCircuit then devSetup with the same seed, without its .r1cs
 * (tens of GB at 2^26). Host memory: 96 bytes a wire (the QAP sums) plus ~1.5 GiB with 15 worker threads (their
 * heaps and ≤ 2 segments each in flight, a block of row values, two point chunks); disk: the key and the witness. The key is INSECURE: print result.warning.
 */
export async function devSetupCircuit(opts: DevSetupCircuitOptions): Promise<DevSetupResult & { circuit: DevCircuitResult }> {
  const { spec, shape, curve } = circuitOf('dev-setup', opts);
  const info: R1csInfo = { curve, ...shape };
  const source = `dev circuit of ${shape.nConstraints} constraints`;
  // made inside writeKey, once the plan is checked: nothing is written for a circuit it refuses
  const made: { witness?: WitnessFileWriter; circuit?: DevCircuitResult } = {};
  try {
    const res = await writeKey(info, source, opts, async (zk, rows) => {
      const witness = (made.witness = new WitnessFileWriter(curve, shape.nWires, opts.wtnsPath));
      const qap = new QapAccumulator(zk, info, shape.nPubOut + shape.nPubIn, rows, source);
      const tally = await forEachSegment(spec, (seg) => {
        witness.append(seg);
        const done = qap.feed(seg.constraints, seg.nConstraints);
        if (done.rows !== seg.nConstraints || done.bytes !== seg.constraints.length) {
          throw new FormatError(`${source}: segment ${seg.index} accumulated ${done.rows} of ${seg.nConstraints} constraints`);
        }
      }, { workers: opts.workers, onProgress: opts.onProgress });
      witness.patchValue(1, tally.output);
      witness.finish();
      made.circuit = circuitResult(spec, shape, tally);
      return qap.finish();
    });
    return { ...res, circuit: made.circuit! };
  } catch (err) {
    made.witness?.abort();
    throw err;
  }
}
