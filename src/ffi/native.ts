// Typed wrappers over the C ABI: one function per cuzk.h entry point, Uint8Array in and out,
// CuzkError on failure. Arguments are checked here before any pointer crosses the boundary
// (sizes only: callers validate contents such as ranges and curve membership).
import { CuzkError, type ErrorCode } from '../errors.js';
import { loadCore } from './load.js';
import { check, NATIVE_STATUS, newErrorSlot } from './status.js';

export const CURVE_ID = { bn128: 1, bls12381: 2 } as const;
export type CurveName = keyof typeof CURVE_ID;
export const FIELD = { fr: 0, fq: 1, fq2: 2 } as const;
export const GROUP = { g1: 1, g2: 2 } as const;
export const FIELD_OP = { add: 0, sub: 1, mul: 2, sqr: 3, neg: 4, inv: 5, toMont: 6, fromMont: 7 } as const;
export const CURVE_OP = { add: 0, dbl: 1, neg: 2, mul: 3, onCurve: 4 } as const;
export const NTT_INVERSE = 1;
export const NTT_COSET = 2;

/** Byte sizes of one element for a curve: n8q (base field), n8r (scalar), G1/G2 LEM points. */
export function sizesOf(curve: CurveName) {
  const n8q = curve === 'bn128' ? 32 : 48;
  return { n8q, n8r: 32, g1: 2 * n8q, g2: 4 * n8q, fq2: 2 * n8q, fq12: 12 * n8q };
}

function need(buf: Uint8Array | null, bytes: number, what: string): void {
  if (!buf || buf.byteLength < bytes) {
    throw new CuzkError('E_INVALID_ARG', `${what}: need ${bytes} bytes, got ${buf ? buf.byteLength : 'none'}`);
  }
}

function call(op: string, fn: (slot: ReturnType<typeof newErrorSlot>) => number): void {
  const stack = new Error();
  const slot = newErrorSlot();
  check(fn(slot), slot, op, stack);
}

/** Runs a koffi async call and settles with its status turned into a CuzkError (shared by the key wrappers). */
export function callAsync(op: string, fn: (slot: ReturnType<typeof newErrorSlot>, cb: (err: unknown, res: number) => void) => void): Promise<void> {
  const stack = new Error();
  const slot = newErrorSlot();
  return new Promise((resolve, reject) => {
    fn(slot, (err, status) => {
      if (err) return reject(err);
      try {
        check(status, slot, op, stack);
        resolve();
      } catch (e) {
        reject(e);
      }
    });
  });
}

export function backend(): 'cpu' | 'cuda' {
  return loadCore().backend;
}

/** The host field arithmetic in use: mulx/adx assembly or the portable C++ (CUZK_NO_ASM=1). */
export function fieldImpl(): 'x86-64-adx' | 'generic' {
  return loadCore().abi.field_impl() as 'x86-64-adx' | 'generic';
}

/** Test hook: whether the MSM's batch-affine flush runs on AVX-512 IFMA (cpuid; CUZK_NO_IFMA=1 turns it off). */
export function debugIfma(): boolean {
  return loadCore().abi.debug_ifma() === 1;
}

/**
 * Test hook: BN254 Fq op |op| (0 +, 1 -, 2 ·, 3 a·a, 4 (a+b)(a-b), 5 (a+b)^2) on 8-lane IFMA, or Fq2
 * (6 ·, 7 (a+b)(a-b); n counts Fq coefficients, c0 c1 adjacent), Montgomery-form LEM in and out;
 * 8: a^-1 by the scalar divsteps inversion (any CPU).
 */
export function debugFq8Op(op: number, a: Uint8Array, b: Uint8Array, out: Uint8Array, n: number): void {
  for (const [buf, what] of [[a, 'a'], [b, 'b'], [out, 'out']] as const) need(buf, 32 * n, `debugFq8Op ${what}`);
  call('cuzk_debug_fq8_op', (s) => loadCore().abi.debug_fq8_op(op, a, b, out, n, s));
}

/** Test hook (the test libraries, libcuzk_*_test.so): the next `calls` phase-2 prove calls (cuzk_groth16_prove_ab,
 * on any device) fail with `code`, a native status such as E_DEVICE_LOST or E_DEVICE_OOM, their
 * message saying it was injected; `calls` 0 disarms. */
export function debugFailNext(code: ErrorCode, calls = 1): void {
  const status = NATIVE_STATUS.indexOf(code);
  if (status <= 0) throw new CuzkError('E_INVALID_ARG', `debugFailNext: ${code} is not a native status (one of ${NATIVE_STATUS.slice(1).join(', ')})`);
  call('cuzk_debug_fail_next', (s) => loadCore().abi.debug_fail_next(status, calls, s));
}

/** Test hook: a count the CUDA core keeps of the kernel variants it ran (0: batch-affine bucket passes); 0 on the CPU build. */
export function debugGpuCounter(which: 0): number {
  return Number(loadCore().abi.debug_gpu_counter(which));
}

/**
 * Test hook: the GPU MSM's binary-GCD inversion (native/field/inv_bingcd.hpp) compiled for the host, on
 * n Montgomery images of |field| (0 BN254 Fq, 1 BN254 Fr, 2 BLS12-381 Fq, 3 BLS12-381 Fr); out = images of a^-1.
 */
export function debugBingcdInv(field: 0 | 1 | 2 | 3, a: Uint8Array, out: Uint8Array, n: number): void {
  const n8 = field === 2 ? 48 : 32;
  need(a, n8 * n, 'debugBingcdInv a');
  need(out, n8 * n, 'debugBingcdInv out');
  call('cuzk_debug_bingcd_inv', (s) => loadCore().abi.debug_bingcd_inv(field, a, out, n, s));
}

/** The sorted pairs and chunking of one run of the batch-affine lanes (debugAffineLanes). */
export interface AffineLanesJob {
  curve: CurveName;
  group: 'g1' | 'g2';
  /** LEM affine points, all-zero = infinity. */
  points: Uint8Array;
  keys: Uint32Array;
  /** Point index, bit 31 = negated. */
  vals: Uint32Array;
  chunkLen: number;
  threads: number;
  lanes: number;
  buckets: number;
}

/**
 * Test hook: the GPU MSM's batch-affine accumulation (native/msm/affine_lanes.hpp) compiled for the host,
 * every thread in turn. Returns the XYZZ images (X‖Y‖ZZ‖ZZZ) of the buckets and of the lanes·threads
 * heads and tails; slots it does not write stay all-zero (infinity).
 */
export function debugAffineLanes(job: AffineLanesJob): { buckets: Uint8Array; heads: Uint8Array; tails: Uint8Array } {
  const z = sizesOf(job.curve);
  const pt = job.group === 'g1' ? z.g1 : z.g2;
  if (job.points.byteLength % pt !== 0 || job.keys.length !== job.vals.length) {
    throw new CuzkError('E_INVALID_ARG', 'debugAffineLanes: points must be whole points, keys and vals of one length');
  }
  const chunks = job.lanes * job.threads;
  const buckets = new Uint8Array(2 * pt * job.buckets);
  const heads = new Uint8Array(2 * pt * chunks);
  const tails = new Uint8Array(2 * pt * chunks);
  call('cuzk_debug_affine_lanes', (s) =>
    loadCore().abi.debug_affine_lanes(CURVE_ID[job.curve], GROUP[job.group], job.points, job.points.byteLength / pt,
      job.keys, job.vals, job.keys.length, job.chunkLen, job.threads, job.lanes, buckets, job.buckets,
      heads, tails, s));
  return { buckets, heads, tails };
}

export function setThreads(n: number): void {
  call('cuzk_set_threads', (s) => loadCore().abi.set_threads(n, s));
}

/** Ends the process with `status` now (cuzk_exit_now: no exit handlers, no CUDA runtime teardown);
 * for a command whose output is written. `deferTeardown`: the kernel's release of the process's
 * memory, pins and GPU context happens after the process has ended (CUZK_EXIT_DEFER_TEARDOWN).
 * Never returns. */
export function exitNow(status: number, opts: { deferTeardown?: boolean } = {}): never {
  loadCore().abi.exit_now(status, opts.deferTeardown ? 1 : 0);
  throw new Error('cuzk_exit_now returned'); // it does not
}

export function getThreads(): number {
  return loadCore().abi.get_threads();
}

export function statusName(code: number): string {
  return loadCore().abi.status_name(code);
}

function fieldBytes(curve: CurveName, field: number): number {
  const z = sizesOf(curve);
  return field === FIELD.fr ? z.n8r : field === FIELD.fq ? z.n8q : z.fq2;
}

export function fieldOp(curve: CurveName, field: number, op: number, a: Uint8Array, b: Uint8Array | null, out: Uint8Array, n: number): void {
  const w = fieldBytes(curve, field) * n;
  need(a, w, 'fieldOp a');
  if (op <= FIELD_OP.mul) need(b, w, 'fieldOp b');
  need(out, w, 'fieldOp out');
  call('cuzk_field_op', (s) => loadCore().abi.field_op(CURVE_ID[curve], field, op, a, b, out, n, s));
}

export function curveOp(curve: CurveName, group: number, op: number, a: Uint8Array, b: Uint8Array | null, out: Uint8Array, n: number): void {
  const z = sizesOf(curve);
  const p = group === GROUP.g1 ? z.g1 : z.g2;
  need(a, p * n, 'curveOp a');
  if (op === CURVE_OP.add) need(b, p * n, 'curveOp b');
  if (op === CURVE_OP.mul) need(b, 32 * n, 'curveOp scalars');
  need(out, (op === CURVE_OP.onCurve ? 1 : p) * n, 'curveOp out');
  call('cuzk_curve_op', (s) => loadCore().abi.curve_op(CURVE_ID[curve], group, op, a, b, out, n, s));
}

function checkMsm(curve: CurveName, group: number, points: Uint8Array, scalars: Uint8Array, n: number, out: Uint8Array): void {
  const z = sizesOf(curve);
  const p = group === GROUP.g1 ? z.g1 : z.g2;
  need(points, p * n, 'msm points');
  need(scalars, 32 * n, 'msm scalars');
  need(out, p, 'msm out');
}

export function msm(curve: CurveName, group: number, points: Uint8Array, scalars: Uint8Array, n: number, out: Uint8Array): void {
  checkMsm(curve, group, points, scalars, n, out);
  call('cuzk_msm', (s) => loadCore().abi.msm(CURVE_ID[curve], group, points, scalars, n, out, s));
}

/** msm() on a native worker thread, so the event loop stays free. Buffers must not change meanwhile. */
export function msmAsync(curve: CurveName, group: number, points: Uint8Array, scalars: Uint8Array, n: number, out: Uint8Array): Promise<void> {
  checkMsm(curve, group, points, scalars, n, out);
  return callAsync('cuzk_msm', (s, cb) => loadCore().abi.msm.async(CURVE_ID[curve], group, points, scalars, n, out, s, cb));
}

export type PointDefect = 'has a coordinate not below q' | 'is not on the curve' | 'is not in the subgroup';
const DEFECTS: readonly PointDefect[] = ['has a coordinate not below q', 'is not on the curve', 'is not in the subgroup'];
/** The defect of cuzk_points_check's `why` code (1-3). */
export const pointDefectOf = (why: number): PointDefect => DEFECTS[why - 1]!;

/**
 * The first of `n` LEM points that is not canonical, not on its curve, or (with `subgroup`) not in
 * the r-torsion, or undefined when all are good; on a native worker thread (a 2^20 key's sections
 * are millions of points). Buffers must not change meanwhile.
 */
export async function pointsCheckAsync(curve: CurveName, group: number, points: Uint8Array, n: number, subgroup: boolean): Promise<{ index: number; defect: PointDefect } | undefined> {
  const z = sizesOf(curve);
  need(points, (group === GROUP.g1 ? z.g1 : z.g2) * n, 'pointsCheck points');
  const firstBad = new BigInt64Array(1);
  const why = new Int32Array(1);
  await callAsync('cuzk_points_check', (s, cb) => loadCore().abi.points_check.async(CURVE_ID[curve], group, points, n, subgroup ? 1 : 0, firstBad, why, s, cb));
  return firstBad[0]! < 0n ? undefined : { index: Number(firstBad[0]), defect: DEFECTS[why[0]! - 1]! };
}

export function batchMul(curve: CurveName, group: number, base: Uint8Array, scalars: Uint8Array, n: number, out: Uint8Array): void {
  const z = sizesOf(curve);
  const p = group === GROUP.g1 ? z.g1 : z.g2;
  need(base, p, 'batchMul base');
  need(scalars, 32 * n, 'batchMul scalars');
  need(out, p * n, 'batchMul out');
  call('cuzk_batch_mul', (s) => loadCore().abi.batch_mul(CURVE_ID[curve], group, base, scalars, n, out, s));
}

/** batchMul on a koffi worker thread (dev-setup overlaps a chunk's multiplications with the last chunk's write). Buffers must not change meanwhile. */
export function batchMulAsync(curve: CurveName, group: number, base: Uint8Array, scalars: Uint8Array, n: number, out: Uint8Array): Promise<void> {
  const z = sizesOf(curve);
  const p = group === GROUP.g1 ? z.g1 : z.g2;
  need(base, p, 'batchMul base');
  need(scalars, 32 * n, 'batchMul scalars');
  need(out, p * n, 'batchMul out');
  return callAsync('cuzk_batch_mul', (s, cb) => loadCore().abi.batch_mul.async(CURVE_ID[curve], group, base, scalars, n, out, s, cb));
}

/** Dev-setup: out[j] = scale·L_{first + j·stride}(τ) over the 2^lgN domain (32-byte standard scalars). */
export function lagrangeEval(curve: CurveName, tau: Uint8Array, scale: Uint8Array, lgN: number, first: number, stride: number, count: number, out: Uint8Array): void {
  need(tau, 32, 'lagrangeEval tau');
  need(scale, 32, 'lagrangeEval scale');
  need(out, 32 * count, 'lagrangeEval out');
  call('cuzk_lagrange_eval', (s) => loadCore().abi.lagrange_eval(CURVE_ID[curve], tau, scale, lgN, first, stride, count, out, s));
}

export interface R1csPass {
  /** bytes of `data` consumed (whole constraints), constraints, coefficient records written */
  bytes: number;
  rows: number;
  coefs: number;
}

/** Bytes of coefficient records cuzkR1csAccumulate may write for `len` bytes of constraints (a term is ≥ 36 bytes). */
export const coefRecordBytes = (len: number) => 44 * Math.floor(len / 36);

/** Dev-setup: one pass of cuzk_r1cs_accumulate (cuzk.h) over whole constraints at the start of `data`. */
export function r1csAccumulate(curve: CurveName, data: Uint8Array, firstRow: number, maxRows: number, nWires: number, l: Uint8Array, acc: readonly [Uint8Array, Uint8Array, Uint8Array], coefs: Uint8Array): R1csPass {
  acc.forEach((v, m) => need(v, 32 * nWires, `r1csAccumulate acc[${m}]`));
  need(l, 32 * Math.min(maxRows, Math.floor(data.byteLength / 12)), 'r1csAccumulate l');
  need(coefs, coefRecordBytes(data.byteLength), 'r1csAccumulate coefs');
  const done = new Uint8Array(24);
  call('cuzk_r1cs_accumulate', (s) => loadCore().abi.r1cs_accumulate(CURVE_ID[curve], data, data.byteLength, firstRow, maxRows, nWires, l, acc[0], acc[1], acc[2], coefs, Math.floor(data.byteLength / 36), done, s));
  const v = new DataView(done.buffer);
  return { bytes: Number(v.getBigUint64(0, true)), rows: Number(v.getBigUint64(8, true)), coefs: Number(v.getBigUint64(16, true)) };
}

/** Dev-setup: cuzk_qap_combine over the accumulators of r1csAccumulate (then standard form: A, B, and the IC/C scalars). */
export function qapCombine(curve: CurveName, acc: readonly [Uint8Array, Uint8Array, Uint8Array], nWires: number, nPublic: number, alpha: Uint8Array, beta: Uint8Array, gamma: Uint8Array, delta: Uint8Array): void {
  acc.forEach((v, m) => need(v, 32 * nWires, `qapCombine acc[${m}]`));
  for (const [v, what] of [[alpha, 'alpha'], [beta, 'beta'], [gamma, 'gamma'], [delta, 'delta']] as const) need(v, 32, `qapCombine ${what}`);
  call('cuzk_qap_combine', (s) => loadCore().abi.qap_combine(CURVE_ID[curve], acc[0], acc[1], acc[2], nWires, nPublic, alpha, beta, gamma, delta, s));
}

export function ntt(curve: CurveName, data: Uint8Array, lgN: number, flags: number): void {
  if (!Number.isInteger(lgN) || lgN < 0 || lgN > 28) throw new CuzkError('E_INVALID_ARG', `ntt: lgN ${lgN} out of range 0..28`);
  need(data, 32 * 2 ** lgN, 'ntt data');
  call('cuzk_ntt', (s) => loadCore().abi.ntt(CURVE_ID[curve], data, lgN, flags, s));
}

export function pairing(curve: CurveName, g1: Uint8Array, g2: Uint8Array, n: number, out: Uint8Array): void {
  const z = sizesOf(curve);
  need(g1, z.g1 * n, 'pairing g1');
  need(g2, z.g2 * n, 'pairing g2');
  need(out, z.fq12, 'pairing out');
  call('cuzk_pairing', (s) => loadCore().abi.pairing(CURVE_ID[curve], g1, g2, n, out, s));
}

/** vk = alpha1 ‖ beta2 ‖ gamma2 ‖ delta2 ‖ IC[nPublic+1]; proof = A ‖ B ‖ C (LEM). */
export function groth16Verify(curve: CurveName, vk: Uint8Array, publics: Uint8Array, nPublic: number, proof: Uint8Array): boolean {
  const z = sizesOf(curve);
  need(vk, z.g1 + 3 * z.g2 + z.g1 * (nPublic + 1), 'verify vk');
  need(publics, 32 * nPublic, 'verify publics');
  need(proof, 2 * z.g1 + z.g2, 'verify proof');
  const valid = [0];
  call('cuzk_groth16_verify', (s) => loadCore().abi.groth16_verify(CURVE_ID[curve], vk, publics, nPublic, proof, valid, s));
  return valid[0] === 1;
}

/** groth16Verify on a worker thread (a pairing check takes 10-40 ms: too long for the event loop). */
export async function groth16VerifyAsync(curve: CurveName, vk: Uint8Array, publics: Uint8Array, nPublic: number, proof: Uint8Array): Promise<boolean> {
  const z = sizesOf(curve);
  need(vk, z.g1 + 3 * z.g2 + z.g1 * (nPublic + 1), 'verify vk');
  need(publics, 32 * nPublic, 'verify publics');
  need(proof, 2 * z.g1 + z.g2, 'verify proof');
  const valid = new Int32Array(1);
  await callAsync('cuzk_groth16_verify', (s, cb) => loadCore().abi.groth16_verify.async(CURVE_ID[curve], vk, publics, nPublic, proof, valid, s, cb));
  return valid[0] === 1;
}

export interface GpuDescription {
  index: number;
  name: string;
  memoryTotal: number;
  memoryFree: number;
  smCount: number;
  computeCapability: string;
}

/** Usable GPUs of the loaded core (0 for the CPU build). */
export function gpuCount(): number {
  return loadCore().abi.gpu_count() as number;
}

/** Creates GPU `device`'s CUDA context on a koffi worker thread (cuzk_gpu_warm), so the first real
 * GPU call does not pay for it; E_NO_DEVICE without that GPU. */
export function gpuWarmAsync(device: number): Promise<void> {
  return callAsync('cuzk_gpu_warm', (s, cb) => loadCore().abi.gpu_warm.async(device, s, cb));
}

export function gpuDescribe(index: number): GpuDescription {
  const out: Record<string, unknown> = {};
  call('cuzk_gpu_describe', (slot) => loadCore().abi.gpu_describe(index, out, slot));
  return {
    index,
    name: String(out.name),
    memoryTotal: Number(out.memory_total),
    memoryFree: Number(out.memory_free),
    smCount: Number(out.sm_count),
    computeCapability: `${out.cc_major}.${out.cc_minor}`,
  };
}

/** Where the automatic entry points send work: 'off' never the GPU, 'auto' by size, 'force' always. */
export function setGpuMode(mode: 'off' | 'auto' | 'force'): void {
  const code = mode === 'off' ? 0 : mode === 'auto' ? 1 : 2;
  call('cuzk_set_gpu_mode', (slot) => loadCore().abi.set_gpu_mode(code, slot));
}
