// One partition (one proof) of a job through the pipeline:
//   witness (worker thread, when inputs were sent) → witness into a pooled pinned buffer (read or
//   copied and checked by the native pool, witness-read.ts: nothing of it on the event loop) →
//   on the CPU core only, synthesis: A·w ‖ B·w into a pooled pinned buffer (native CPU threads, one
//   at a time; a GPU synthesizes on the device inside phase 2, from the key's resident coefficients) →
//   phase 2 on the least-loaded device lane (H2D, synthesis on a GPU, NTT, MSM; GPU scratch reserved
//   for the call) → finalize (decode) → verify → buffers back to the pool.
// Every large buffer is reserved before it exists and released as soon as its phase ends; a stop
// request (cancel, deadline) ends the partition at the next phase boundary with E_CANCELLED. Only
// healthy lanes get a proof; one lost with its lane (E_DEVICE_LOST) runs again elsewhere (proveRetrying).
import { rmSync } from 'node:fs';
import { CuzkError, DeviceError, ProofError } from '../errors.js';
import { scalarToLe } from '../formats/lem.js';
import { proofToJson, publicToJson } from '../formats/proof-json.js';
import { checkWitnessMatchesKey, WtnsFile } from '../formats/wtns.js';
import type { ProveStats } from '../ffi/groth16-key.js';
import type { Logger } from '../log.js';
import type { EngineConfig, ProofOutput } from './api.js';
import { checkKeyUnchanged } from './checked-job.js';
import type { MemoryBudget, Request } from './budget.js';
import { lostLanes, servingLanes, type DeviceLane } from './gpu-worker.js';
import type { Job } from './job.js';
import { deviceScratchBytes, type KeyPlacement } from './key-placement.js';
import type { PinnedPool, PooledBuffer } from './pinned-pool.js';
import { decodeProof, proofBuffer, publicSignalsOf, randomScalar } from './proof-bytes.js';
import type { ProvingKey } from './proving-key.js';
import type { SpanRecorder } from './spans.js';
import { verifyGroth16Async } from './verifier.js';
import { readWitnessValues } from './witness-read.js';
import type { WitnessOpener } from './witness-file.js';
import type { WitnessPool } from './witness-pool.js';

export interface PipelineDeps {
  budget: MemoryBudget;
  pool: PinnedPool;
  spans: SpanRecorder;
  witnesses: WitnessPool;
  lanes: DeviceLane[];
  /** The CPU core's lane, for keys too large for a GPU's memory budget. */
  cpuLane: DeviceLane;
  /** Serialises phase 1 (the native thread pool runs one parallel region at a time anyway). */
  cpu: { tail: Promise<unknown> };
  /** Serialises the witness reads into their buffers, in the order the partitions asked: the pool
   * runs one at a time anyway, and in arrival order a job's first partition is never behind its next. */
  reads: { tail: Promise<unknown> };
  /** Uploads the key to a device once (KeyCache.onDevice). */
  ensureOnDevice: (device: number, signal: AbortSignal) => Promise<void>;
  /** The key's placement on GPU `device` under its budget (KeyCache.placement), undefined when it
   * fits there neither resident nor streamed. */
  placeOn: (device: number) => KeyPlacement | undefined;
  verify: boolean;
  testRandomness?: { r: bigint; s: bigint };
  testHooks?: EngineConfig['testHooks'];
  /** Opens a caller's witness file (EngineConfig.openWitness, else witness-file.ts). */
  openWitness: WitnessOpener;
  log: Logger;
}

export { deviceScratchBytes };

/** Device bytes of a key's coefficients in the GPU synthesis layout, as native synth_layout_bytes
 * counts them (part of cuzk_gpu_key_bytes): row offsets, a u32 wire and 32-byte value per record, and
 * the long-row list at its largest (rows of more than 8 records). */
export function deviceCoefBytes(domainSize: number, nCoefs: number): number {
  return (2 * domainSize + 1) * 4 + nCoefs * 36 + Math.floor(nCoefs / 9) * 4;
}

/** The pooled buffers one proof checks out: the witness (nVars × 32) and, for the CPU core's phase 1,
 * A‖B (NativeKey.abBytes); a GPU synthesizes on the device and needs no A‖B. */
export function proofBufferBytes(nVars: number, domainSize: number, onGpu: boolean): number[] {
  return onGpu ? [nVars * 32] : [nVars * 32, 2 * domainSize * 32];
}

/** Host scratch of one phase-2 call on the CPU core: the C vector and MSM buckets. */
export function cpuScratchBytes(domainSize: number): number {
  return domainSize * 32 + (64 << 20);
}

const warnedTooBig = new WeakSet<ProvingKey>();

// The healthy lanes whose memory budget can hold the key beside a proof's scratch, resident or
// streamed (placeOn: key-placement.ts): GPUs, or the CPU core alone (on a machine without GPUs, for a
// key no GPU can hold even streamed, said once per key in the log, or once every GPU is unhealthy).
// Which of them runs the proof is chosen at phase 2, the least loaded. No healthy lane left: E_DEVICE_LOST.
export function lanesFor(deps: Pick<PipelineDeps, 'lanes' | 'cpuLane' | 'budget' | 'log' | 'placeOn'>, key: ProvingKey): DeviceLane[] {
  const h = key.header;
  const healthy = deps.lanes.filter((l) => l.healthy);
  const fits = healthy.filter((l) => l.device < 0 || deps.placeOn(l.device) !== undefined);
  if (fits.length > 0) return fits;
  if (!deps.cpuLane.healthy) {
    throw new DeviceError('E_DEVICE_LOST', `no healthy device lane left for ${h.path} (${lostLanes(deps.lanes, deps.cpuLane)})`, { details: { ran: false } });
  }
  if (healthy.length > 0 && !warnedTooBig.has(key)) {
    warnedTooBig.add(key);
    deps.log.warn({
      path: h.path, gpuBytes: key.native.gpuBytes + deviceScratchBytes(h.domainSize, h.nVars, h.n8q),
      gpuBudget: deps.lanes.map((l) => deps.budget.status(`gpu:${l.device}`).limit),
    }, 'proving key too large for GPU memory, even streamed: its proofs run on the CPU core');
  }
  return [deps.cpuLane];
}

export async function provePartition(job: Job, part: number, key: ProvingKey, deps: PipelineDeps): Promise<ProofOutput> {
  const { spans, pool } = deps;
  const signal = job.abort.signal;
  const h = key.header;
  const stopped = () => {
    if (job.cancelFlag[0]) throw new CuzkError('E_CANCELLED', `job ${job.id} was ${job.stopAs ?? 'cancelled'}`);
  };
  const span = { jobId: job.id, partition: part };

  // witness: sent as a .wtns image, or computed from the circuit inputs in a worker thread
  const name = job.partitions > 1 ? `job ${job.id} witness ${part}` : `job ${job.id} witness`;
  let image = job.request.witnesses?.[part];
  let file = job.request.witnessFiles?.[part];
  let generated: string | undefined;  // a native generator's .wtns: deleted once read
  if (!image && !file) {
    const t0 = performance.now();
    const out = await deps.witnesses.compute(job.request.generator ?? job.request.wasm!, job.request.inputs![part], name, { nVars: h.nVars, signal });
    image = out.bytes;
    file = generated = out.file;
    const dur = performance.now() - t0;
    spans.record({ ...span, phase: 'witness', track: 'witness', start: t0, dur });
    job.addPhase('witness', dur, part);
  }
  // a witness file is read from disk straight into the pooled (pinned) buffer, never into the JS heap;
  // one the engine's check parsed is opened from its layout (its size checked, not its header parsed
  // again), one computed from inputs is parsed and matched with the key here, once
  // a caller's file is opened off the event loop through the engine's opener (the daemon's confines
  // it again now: it may have become a FIFO or a symlink since submit); one computed here is ours
  const layout = job.checked.witnesses?.[part];
  // a job's buffers and reads are taken in partition order: this one's turn is taken now, before the
  // open below, whose await could let a later partition of the job overtake it
  const turn = job.takeReadTurn();
  let wtns: WtnsFile;
  try {
    stopped();
    wtns = file && !generated
      ? WtnsFile.openHandle(await deps.openWitness(file, name), `${name} ${file}`, layout)
      : layout
        ? (file ? WtnsFile.openKnown(file, layout) : WtnsFile.fromBytesKnown(image!, name, layout))
        : (file ? WtnsFile.open(file) : WtnsFile.fromBytes(image!, name));
  } catch (err) {
    turn.done();
    if (generated) rmSync(generated, { force: true }); // a generated witness is deleted on every road
    throw err;
  }
  const lanes = lanesFor(deps, key);
  const onGpu = lanes[0]!.device >= 0;
  let wBuf: PooledBuffer | undefined, abBuf: PooledBuffer | undefined;
  let witness: Uint8Array;
  try {
    if (layout) checkKeyUnchanged(job.checked.keyShape, h);
    else checkWitnessMatchesKey(wtns.header, h, name);
    // buffers after the partition before has taken its own (a later one holding buffers while it
    // waited for an earlier one's turn could leave that one no memory to take them)
    await turn.prior;
    [wBuf, abBuf] = await pool.checkoutMany(proofBufferBytes(h.nVars, h.domainSize, onGpu), `${name} buffers`, signal);
    const into = wBuf.bytes;
    const read = deps.reads.tail.then(async () => {
      stopped();
      const t0 = performance.now();
      const w = await readWitnessValues(wtns, into);
      spans.record({ ...span, phase: 'witness', track: 'read', start: t0, dur: performance.now() - t0, bytes: w.byteLength });
      return w;
    });
    deps.reads.tail = read.catch(() => undefined);
    turn.done();
    witness = await read;
  } catch (err) {
    turn.done();
    abBuf?.release();
    wBuf?.release();
    throw err;
  } finally {
    wtns.close();
    if (generated) rmSync(generated, { force: true });
  }
  try {
    const publicSignals = publicSignalsOf(witness, h.nPublic);
    stopped();

    // phase 1 on the CPU threads, one at a time, for the CPU core (a GPU synthesizes in phase 2)
    const ab = abBuf?.bytes ?? null;
    if (ab) {
      const run1 = deps.cpu.tail.then(async () => {
        stopped();
        const t0 = performance.now();
        const st = await key.native.synthesize(witness, ab, job.cancelFlag);
        spans.record({ ...span, phase: 'synthesis', track: 'synthesis', start: t0, dur: performance.now() - t0 });
        job.addPhase('synthesis', st.synthMs, part);
      });
      deps.cpu.tail = run1.catch(() => undefined);
      await run1;
    }
    if (deps.testHooks?.beforeDevicePhase) {
      await deps.testHooks.beforeDevicePhase({ jobId: job.id, partition: part }, signal);
      stopped();
    }

    // phase 2 on a device lane (one that went unhealthy since lanesFor refuses the proof: the engine retries it)
    const ready = lanes.filter((l) => l.healthy);
    const lane = (ready.length > 0 ? ready : lanes).reduce((a, b) => (b.load < a.load ? b : a));
    // a GPU proof's scratch as its key's placement there counts it (a streamed key's MSMs run by chunks)
    const scratch: Request = lane.device < 0 ? { host: cpuScratchBytes(h.domainSize) }
      : { [`gpu:${lane.device}`]: deps.placeOn(lane.device)?.scratchBytes ?? deviceScratchBytes(h.domainSize, h.nVars, h.n8q) };
    const r = deps.testRandomness?.r ?? randomScalar(h.r);
    const s = deps.testRandomness?.s ?? randomScalar(h.r);
    const out = proofBuffer(key);
    const t2 = { start: 0 };
    const stats = await lane.run(job.id, async (): Promise<ProveStats> => {
      stopped();
      if (lane.device >= 0) await deps.ensureOnDevice(lane.device, signal);
      const res = await deps.budget.reserve(scratch, `job ${job.id} ${lane.id} scratch`, signal);
      try {
        t2.start = performance.now();
        return await key.native.proveAb(witness, ab, lane.device, scalarToLe(r % h.r), scalarToLe(s % h.r), out, job.cancelFlag);
      } finally {
        res.release();
      }
    });
    abBuf?.release();
    wBuf!.release();
    job.device = lane.id;
    recordPhase2(job, part, lane.id, t2.start, stats, spans);

    // finalize and verify: a wrong proof is never returned
    let t0 = performance.now();
    const proof = decodeProof(key, out);
    const result = { proof: proofToJson(proof), publicSignals: publicToJson(publicSignals) };
    let dur = performance.now() - t0;
    spans.record({ ...span, phase: 'finalize', track: 'finalize', start: t0, dur });
    job.addPhase('finalize', dur, part);
    if (deps.verify) {
      t0 = performance.now();
      const ok = await verifyGroth16Async(key.vk, publicSignals, proof, key.vkBytes);
      dur = performance.now() - t0;
      spans.record({ ...span, phase: 'verify', track: 'finalize', start: t0, dur });
      job.addPhase('verify', dur, part);
      if (!ok) throw new ProofError('E_PROOF_INVALID', `${name}: the proof does not verify: the witness does not satisfy the circuit of ${h.path}`);
    }
    return result;
  } finally {
    abBuf?.release();
    wBuf!.release();
  }
}

/** provePartition, run again on a lane still serving after E_DEVICE_LOST: once after it failed on a
 * lane, and each time it was bounced unrun (details.ran false) from a lane that went unhealthy (lanes
 * never come back, so that is bounded by their number). Not once the job is stopping, nor with no
 * lane left. Throws what the last attempt threw. */
export async function proveRetrying(job: Job, part: number, key: ProvingKey, deps: PipelineDeps): Promise<ProofOutput> {
  for (let failures = 0; ;) {
    try {
      return await provePartition(job, part, key, deps);
    } catch (err) {
      if (!(err instanceof CuzkError) || err.code !== 'E_DEVICE_LOST' || job.cancelFlag[0]) throw err;
      if (err.details?.ran !== false && ++failures > 1) throw err;
      const serving = servingLanes(deps.lanes, deps.cpuLane);
      if (serving.length === 0) {
        if (err.details?.ran === false) throw err; // it says why already
        throw new DeviceError('E_DEVICE_LOST', `${err.message}; no healthy device lane is left to retry on`, { details: err.details, cause: err });
      }
      deps.log.warn({ jobId: job.id, partition: part, error: err.message, on: serving.map((l) => l.id) }, 'proof retried on another device lane');
    }
  }
}

// Phase-2 spans laid out from the native stats: H2D first, then (after any wait for the device's
// compute region) on a GPU the synthesis, then NTT, then the MSMs (on the GPU the witness MSMs
// overlap synthesis and NTTs on a second stream; kernelMs counts that overlap once).
function recordPhase2(job: Job, part: number, track: string, start: number, st: ProveStats, spans: SpanRecorder): void {
  const base = { jobId: job.id, partition: part, track };
  let t = start;
  if (st.device >= 0) {
    // own track: the next proof's upload overlaps this lane's kernels
    spans.record({ ...base, track: `${track}:copy`, phase: 'h2d', start: t, dur: st.h2dMs, bytes: st.h2dBytes, args: { gbps: +(st.h2dBytes / 1e6 / Math.max(st.h2dMs, 1e-3)).toFixed(1) } });
    job.addPhase('h2d', st.h2dMs, part, st.h2dBytes);
    t += st.h2dMs + st.waitMs; // then it waited for the device's compute region
    spans.record({ ...base, phase: 'synthesis', start: t, dur: st.synthMs });
    job.addPhase('synthesis', st.synthMs, part);
    t += st.synthMs;
  }
  spans.record({ ...base, phase: 'ntt', start: t, dur: st.nttMs });
  job.addPhase('ntt', st.nttMs, part);
  t += st.nttMs;
  const msmWall = Math.max(0, st.totalMs - st.finishMs - (t - start));
  spans.record({ ...base, phase: 'msm', start: t, dur: msmWall, args: { kernel_ms: +st.kernelMs.toFixed(2), msm_stream_ms: +st.msmMs.toFixed(2) } });
  job.addPhase('msm', msmWall, part);
  if (st.device >= 0) {
    spans.record({ ...base, phase: 'd2h', start: t + msmWall, dur: st.d2hMs });
    job.addPhase('d2h', st.d2hMs, part);
  }
}
