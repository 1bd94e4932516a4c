// The one-shot road from files (`cuzk prove`, `cuzk fullprove`), its start-up overlapped: the native
// core is loaded first (a CUDA build without asking the driver anything: loadCore's deferGpuProbe);
// then the driver's start and GPU 0's context run on a worker thread (cuzk_gpu_warm, ~100-300 ms on
// an H200) while the key is read, checked and pinned section by section, and the witness is read into
// a buffer of its own beside it and pinned (an upload from pageable memory runs at ~7.5 GB/s, from
// pinned ~55). The key goes to the GPU once it is all in, placed as the engine places it (resident,
// chunked or streamed: a key larger than the GPU proves there too); then the proof, verified before it
// returns (prover.ts). No usable GPU after all: the CPU core proves, as oneShotDevice() would have chosen.
import { CuzkError } from '../errors.js';
import { loadCore, noUsableGpu } from '../ffi/load.js';
import { NativeBuffer } from '../ffi/native-buffer.js';
import { gpuDescribe, gpuWarmAsync } from '../ffi/native.js';
import { checkWitnessMatchesKey, type WtnsFile } from '../formats/wtns.js';
import { log } from '../log.js';
import { keyShape, placeKey } from './key-placement.js';
import { gpuLimitBytes } from './memory-shares.js';
import { oneShotDevice, proveWithKey, type ProofResult } from './prover.js';
import { ProvingKey, type KeyLoadTimings, type ProgressFn } from './proving-key.js';
import { readWitnessValues } from './witness-read.js';

/** Where a one-shot proof's time went, ms from the call (`*At`) or spans. */
export interface OneShotTimings {
  /** When the call was made, from the process's start (node's boot and the modules loaded before it). */
  startAt: number;
  /** Loading the native core: opening it (a CUDA build's device probe is deferred to the warm-up,
   * unless something loaded the core before, e.g. `--threads`). */
  coreMs: number;
  core: { openMs: number; probeMs: number };
  /** The key's load (ProvingKey.timings), beside the witness read and the context creation. */
  key: KeyLoadTimings;
  /** When the witness was read, checked (and pinned), from the call. */
  witnessAt: number;
  /** When the driver had started and GPU 0's context was made (cuzk_gpu_warm), from the call (-1: the CPU core). */
  warmAt: number;
  /** Where the key went on the GPU (key-placement.ts; undefined on the CPU core): 'resident' (its MSMs
   * in chunks of chunkPoints when only a chunk's scratch fits beside it, 0: whole) or 'streamed'. */
  placement?: { mode: 'resident' | 'streamed'; streamed: readonly string[]; chunkPoints: number };
  /** Key upload to the GPU (0 on the CPU core). */
  uploadMs: number;
  proveMs: number;
  verifyMs: number;
  totalMs: number;
}

export type OneShotPhase = 'load key' | 'upload key' | 'prove' | 'verify';

/**
 * Proves `wtns` with the key at `zkeyPath` on oneShotDevice() (`gpuBudgetBytes`: that GPU's budget,
 * default the engine's share of its memory); the caller keeps `wtns` open until this
 * settles and releases the returned key. Throws what ProvingKey.load, readWitnessValues and
 * proveWithKey throw (E_FORMAT naming a bad key, witness or mismatch).
 */
export async function proveFromFiles(zkeyPath: string, wtns: WtnsFile, opts: { onPhase?: (p: OneShotPhase) => void; onProgress?: ProgressFn; gpuBudgetBytes?: number } = {}): Promise<{ key: ProvingKey; res: ProofResult; timings: OneShotTimings }> {
  const t0 = performance.now();
  const since = () => performance.now() - t0;
  // a CUDA build is loaded without asking the driver anything yet; its start and GPU 0's context run
  // on a worker thread beside the reads, which need no GPU (pinning in place waits for the context,
  // and is nothing without a GPU)
  const core = loadCore(undefined, { deferGpuProbe: true });
  const coreMs = since();
  const { open, probe } = core.startMs;
  const cuda = core.backend === 'cuda';
  // CUZK_ONESHOT_WARM=after-read (a measuring knob): the driver's start only once the key is read,
  // its sections pinned after it, to see what the two cost each other when they run side by side
  const warmAfterRead = cuda && process.env.CUZK_ONESHOT_WARM === 'after-read';
  let startWarm!: () => void;
  const warmStarted = warmAfterRead ? new Promise<void>((res) => (startWarm = res)) : Promise.resolve();
  const warm = cuda
    ? warmStarted.then(() => gpuWarmAsync(0)).then(since, (err: unknown) => {
      if (err instanceof CuzkError && err.code === 'E_NO_DEVICE') return -1; // the CPU core proves (noUsableGpu below)
      throw err;
    })
    : Promise.resolve(-1);
  const buf = NativeBuffer.allocMapped(Math.max(64, wtns.witnessBytes));
  const witness = readWitnessValues(wtns, buf.bytes).then(async (w) => {
    if (cuda) await buf.pinAsync();
    return { w, at: since() };
  });
  const started = [warm, witness];
  for (const p of started) p.catch(() => undefined); // awaited below; a failure in the key load comes first
  let key: ProvingKey | undefined;
  try {
    opts.onPhase?.('load key');
    const pinAfterReads = warmAfterRead ? async () => { startWarm(); await warm; } : undefined;
    key = await ProvingKey.load(zkeyPath, { pinned: cuda, pinAfterReads, onProgress: opts.onProgress });
    checkWitnessMatchesKey(wtns.header, key.header); // before the upload, not after it
    const { w, at: witnessAt } = await witness;
    const warmAt = await warm;
    if (cuda && warmAt < 0) noUsableGpu();
    let device = warmAt >= 0 ? oneShotDevice() : -1;
    // the engine's placement under the engine's default budget of this GPU (key-placement.ts): resident
    // when the key fits beside a proof's scratch, else its MSMs chunked and, past that, sets streamed
    // from the pinned sections; the CPU core when not even that fits
    const placement = device >= 0 ? placeKey(keyShape(key.header), gpuLimitBytes(opts.gpuBudgetBytes ?? 0, gpuDescribe(device).memoryTotal)) : undefined;
    if (device >= 0 && !placement) {
      log.warn({ key: zkeyPath, device: `gpu:${device}` }, `${zkeyPath} does not fit gpu:${device} even streamed: the CPU core proves`);
      device = -1;
    }
    let uploadMs = 0;
    if (device >= 0 && placement) {
      opts.onPhase?.('upload key');
      const t1 = performance.now();
      await key.native.gpuUpload(device, placement);
      uploadMs = performance.now() - t1;
    }
    const res = await proveWithKey(key, w, { device, onPhase: opts.onPhase }, wtns.header);
    const gpu = placement && device >= 0 ? { mode: placement.mode, streamed: placement.streamed, chunkPoints: placement.chunkPoints } : undefined;
    return { key, res, timings: { startAt: t0, coreMs, core: { openMs: open, probeMs: probe }, key: key.timings, witnessAt, warmAt, placement: gpu, uploadMs, ...res.timings, totalMs: since() } };
  } catch (err) {
    key?.release();
    throw err;
  } finally {
    if (warmAfterRead) startWarm(); // a load that failed before its pins never started it
    await Promise.allSettled(started); // the witness read writes into `buf` until it settles
    buf.release();
  }
}
