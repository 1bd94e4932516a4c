// The engine measuring itself under sustained load (`cuzk bench`, `npm run bench -- engine`): a
// stream of single-proof jobs of one key and witness, `concurrency` of them kept in flight, after
// `warmup` jobs that fill the key cache and the pinned pool (then PinnedPool.markWarm()). Every
// figure covers the measured window only (warm-up excluded): throughput, submit→completed latency,
// GPU kernel utilisation from the lanes' device-event totals, H2D GB/s from the h2d spans, and the
// issue-4 target "throughput >= 0.9 / GPU time per proof" (per GPU lane). Every proof is verified
// by the engine before it is returned; a job that fails is counted, never retried. With `inputs`
// the jobs carry circuit inputs and the engine computes each witness (its witness stage); the
// witness stage alone is measured first (`witnessStageAlone`), so the pipeline's rate can be put
// beside its slowest stage.
import { rmSync } from 'node:fs';
import type { EngineConfig, JobRequest, KeyInfo } from './api.js';
import { createEngine } from './create.js';
import type { Engine } from './engine.js';
import { generatorKind } from './generator-file.js';
import type { PinnedPoolStats } from './pinned-pool.js';
import { errorMessage } from '../errors.js';

export interface StreamOptions {
  /** .zkey path */
  zkey: string;
  /** .wtns file bytes, proved once per job */
  witness: Uint8Array;
  /** Jobs carry these circuit inputs instead, and `generator` (a .wasm or a native generator) computes each witness. */
  inputs?: StreamInputs;
  /** Partitions per job (default 1): each a copy of the witness or the inputs, the PoRep shape. */
  partitions?: number;
  jobs: number;
  /** Jobs kept in flight; default 2 × engine.maxRunning (the engine runs 2 per lane, 2 more wait
   * in its queue so a freed slot is taken at once, not after the bench's own await round trip). */
  concurrency?: number;
  /** Jobs run before the measured window; default engine.maxRunning (2 per lane): fewer leaves the
   * pool short of the buffers that many jobs in flight need, and it allocates in the window. */
  warmup?: number;
  onProgress?: (phase: string, done: number, total: number) => void;
}

export interface StreamInputs {
  input: Record<string, unknown>;
  generator: string;
}

/** What every bench run reports, in-process or through a daemon (src/dev/bench-daemon.ts). */
export interface RunCounts {
  jobs: number;
  warmup: number;
  completed: number;
  failed: number;
  /** Distinct failure reasons ("E_CODE: message"), at most 5. */
  errors: string[];
  wallMs: number;
  proofsPerSec: number;
  /** submit → completed, as the caller sees it */
  latencyMs: { p50: number; p99: number; mean: number; max: number };
}

export interface StreamStats extends RunCounts {
  /** What each job carried. */
  feed: 'witness' | 'inputs';
  /** Jobs with inputs: wall ms per computed witness, and busy = Σ witness ms / (window × slots). */
  witnessStage: { msPerWitness: number; busy: number; slots: number } | null;
  pinned: boolean;
  backend: 'cpu' | 'cuda';
  lanes: string[];
  key: Pick<KeyInfo, 'curve' | 'domainSize' | 'nVars' | 'residency' | 'placements'>;
  concurrency: number;
  /** Device time per proof: GPU kernel ms (device events) on GPUs, lane busy ms on the CPU core. */
  deviceMsPerProof: number;
  deviceTime: 'gpu-kernels' | 'lane-busy';
  /** Sum of lane kernel-ms deltas / (window wall × GPU lanes); null without a GPU. */
  gpuUtilisation: number | null;
  /** Sum of lane busy-ms deltas / (window wall × lanes). */
  laneBusyRatio: number;
  h2d: { bytes: number; ms: number; gbPerSec: number | null };
  /** Median ms per proof of its phases (the spans pipeline.ts records from the native stats):
   * synthesis (on a GPU on the device; the CPU core's phase 1 otherwise), then the transforms, then the rest of the main chain (the H MSM, and waiting
   * for the witness MSMs: msm), and the native stats' MSM time (msmSum: the witness MSMs' span on
   * their own stream, which overlaps the others, plus the H MSM). Where a streamed key's time goes. */
  phasesMs: { synthesis: number; ntt: number; msm: number; msmSum: number };
  /** Witness bytes / time inside the submit calls (in-process: validation and queueing only). */
  submit: SubmitStats;
  /** Target throughput 0.9 × lanes / device time per proof, and measured / target (>= 1 meets it). */
  targetProofsPerSec: number;
  targetRatio: number;
  /** Largest RSS sampled during this run (key load, warm-up, window). */
  peakRssMiB: number;
  pool: PinnedPoolStats;
}

export interface SubmitStats {
  bytes: number;
  /** Sum of the submit calls' durations. */
  ms: number;
  mbPerSec: number | null;
  p50Ms: number;
}

export interface BenchOptions extends StreamOptions {
  config?: EngineConfig;
  /** Also run the same stream with `pinned: false` (pageable buffers) and report the ratios. */
  comparePinnedOff?: boolean;
  /** Chrome/Perfetto trace of the main run; the pinned-off run goes beside it (-pinned-off.json). */
  tracePath?: string;
}

/** The witness stage on its own: `count` witnesses, `slots` at once, nothing proved. */
export interface WitnessAlone {
  count: number;
  slots: number;
  kind: 'wasm' | 'native';
  witnessesPerSec: number;
  msPerWitness: number;
}

export interface BenchResult {
  run: StreamStats;
  off?: StreamStats;
  /** With `inputs`: the same stream fed by inputs, and the witness stage alone before it. */
  inputs?: StreamStats;
  witnessAlone?: WitnessAlone;
  /** pinned / off, for --compare pinned:off */
  ratios?: { proofsPerSec: number; latencyP50: number; h2dGbPerSec: number | null; deviceMsPerProof: number };
}

/** The q-quantile of ascending `sorted` (nearest rank); 0 when empty. */
export const percentile = (sorted: number[], q: number): number => (sorted.length === 0 ? 0 : sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!);

/** Submit throughput from the submit calls' durations (the daemon bench uses it too). */
export function submitStats(bytesPerCall: number, callMs: number[]): SubmitStats {
  const ms = callMs.reduce((a, b) => a + b, 0);
  const bytes = bytesPerCall * callMs.length;
  return { bytes, ms, mbPerSec: ms > 0 ? bytes / 1e6 / (ms / 1000) : null, p50Ms: percentile([...callMs].sort((a, b) => a - b), 0.5) };
}

/** Runs `n` jobs with `c` in flight; returns the completed jobs' latencies, the submit calls' durations and the failures. */
async function pump(engine: Engine, job: Omit<JobRequest, 'key'>, key: string, n: number, c: number, onDone: (done: number) => void): Promise<{ latencies: number[]; submitMs: number[]; errors: string[] }> {
  const latencies: number[] = [];
  const submitMs: number[] = [];
  const errors: string[] = [];
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      const t0 = performance.now();
      try {
        const { id } = engine.submit({ key, ...job });
        submitMs.push(performance.now() - t0);
        const info = await engine.await(id);
        if (info.state === 'completed') latencies.push(performance.now() - t0);
        else errors.push(`${info.error?.code ?? info.state}: ${info.error?.message ?? ''}`);
      } catch (e) {
        errors.push(`${(e as { code?: string }).code ?? 'E_INTERNAL'}: ${errorMessage(e)}`);
      }
      onDone(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(c, n) }, worker));
  return { latencies, submitMs, errors };
}

/** Measures one stream on a running engine (the caller owns the engine and closes it). */
export async function runStream(engine: Engine, opts: StreamOptions): Promise<StreamStats> {
  // jobs with inputs may also fill the witness slots (Engine.maxRunningWithInputs)
  const slots = opts.inputs ? engine.maxRunningWithInputs : engine.maxRunning;
  const warmup = opts.warmup ?? slots;
  const concurrency = opts.concurrency ?? 2 * slots;
  const p = opts.partitions ?? 1;
  const job: Omit<JobRequest, 'key'> = opts.inputs
    ? { inputs: Array.from({ length: p }, () => opts.inputs!.input), generator: opts.inputs.generator }
    : { witnesses: Array.from({ length: p }, () => opts.witness) };
  const jobBytes = opts.inputs ? Buffer.byteLength(JSON.stringify(opts.inputs.input)) : opts.witness.length;
  const progress = opts.onProgress ?? (() => {});
  let rssMax = process.memoryUsage.rss();
  const sampler = setInterval(() => (rssMax = Math.max(rssMax, process.memoryUsage.rss())), 20);
  sampler.unref();
  try {
    const ki = await engine.loadKey(opts.zkey);
    const warm = await pump(engine, job, ki.id, warmup, concurrency, (d) => progress('warm-up', d, warmup));
    engine.pool.markWarm();
    const lanes = engine.lanes;
    const kernel0 = lanes.map((l) => l.kernelMs);
    const busy0 = lanes.map((l) => l.busyMs);
    const w0 = engine.status().witness;
    const t0 = performance.now();
    const run = await pump(engine, job, ki.id, opts.jobs, concurrency, (d) => progress('proving', d, opts.jobs));
    const wallMs = performance.now() - t0;
    rssMax = Math.max(rssMax, process.memoryUsage.rss());

    const completed = run.latencies.length;
    const gpuLanes = lanes.filter((l) => l.device >= 0).length;
    const kernelMs = lanes.reduce((s, l, i) => s + l.kernelMs - kernel0[i]!, 0);
    const busyMs = lanes.reduce((s, l, i) => s + l.busyMs - busy0[i]!, 0);
    const deviceMs = gpuLanes > 0 ? kernelMs : busyMs;
    const deviceMsPerProof = completed > 0 ? deviceMs / (completed * (opts.partitions ?? 1)) : 0;
    const runSpans = engine.spans.spans().filter((s) => s.start >= t0);
    const h2dSpans = runSpans.filter((s) => s.phase === 'h2d');
    const h2dBytes = h2dSpans.reduce((s, x) => s + (x.bytes ?? 0), 0);
    const h2dMs = h2dSpans.reduce((s, x) => s + x.dur, 0);
    const phaseMedian = (phase: string, arg?: string): number => {
      const v = runSpans.filter((s) => s.phase === phase).map((s) => (arg ? Number(s.args?.[arg] ?? 0) : s.dur));
      return percentile(v.sort((a, b) => a - b), 0.5);
    };
    const phasesMs = { synthesis: phaseMedian('synthesis'), ntt: phaseMedian('ntt'), msm: phaseMedian('msm'), msmSum: phaseMedian('msm', 'msm_stream_ms') };
    const sorted = [...run.latencies].sort((a, b) => a - b);
    const proofsPerSec = (completed * p) / (wallMs / 1000);
    const targetProofsPerSec = deviceMsPerProof > 0 ? (0.9 * lanes.length * 1000) / deviceMsPerProof : 0;
    const st = engine.status();
    const w1 = st.witness;
    const witnessed = w0 && w1 ? w1.done - w0.done : 0;
    return {
      feed: opts.inputs ? 'inputs' : 'witness',
      witnessStage: opts.inputs && w0 && w1 && witnessed > 0
        ? { msPerWitness: (w1.totalMs - w0.totalMs) / witnessed, busy: (w1.totalMs - w0.totalMs) / (wallMs * w1.slots), slots: w1.slots }
        : null,
      pinned: st.pinnedPool.enabled,
      backend: st.backend,
      lanes: lanes.map((l) => `${l.id} ${l.name}`),
      // the key as placed (after the run: its upload is done)
      key: (({ curve, domainSize, nVars, residency, placements }) => ({ curve, domainSize, nVars, residency, ...(placements ? { placements } : {}) }))(st.keys.find((k) => k.id === ki.id) ?? ki),
      jobs: opts.jobs,
      warmup,
      concurrency,
      completed,
      failed: opts.jobs - completed + (warmup - warm.latencies.length),
      errors: [...new Set([...warm.errors, ...run.errors])].slice(0, 5),
      wallMs,
      proofsPerSec,
      latencyMs: { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), mean: sorted.reduce((a, b) => a + b, 0) / Math.max(1, completed), max: sorted.at(-1) ?? 0 },
      deviceMsPerProof,
      deviceTime: gpuLanes > 0 ? 'gpu-kernels' : 'lane-busy',
      gpuUtilisation: gpuLanes > 0 ? kernelMs / (wallMs * gpuLanes) : null,
      laneBusyRatio: busyMs / (wallMs * lanes.length),
      h2d: { bytes: h2dBytes, ms: h2dMs, gbPerSec: h2dMs > 0 ? h2dBytes / 1e6 / h2dMs : null },
      phasesMs,
      submit: submitStats(jobBytes, run.submitMs),
      targetProofsPerSec,
      targetRatio: targetProofsPerSec > 0 ? proofsPerSec / targetProofsPerSec : 0,
      peakRssMiB: rssMax / 2 ** 20,
      pool: st.pinnedPool,
    };
  } finally {
    clearInterval(sampler);
  }
}

/** Where the pinned-off run's trace goes, beside the main one. */
export function offTracePath(p: string): string {
  return p.endsWith('.json') ? `${p.slice(0, -5)}-pinned-off.json` : `${p}-pinned-off`;
}

async function withEngine<T>(config: EngineConfig, run: (e: Engine) => Promise<T>): Promise<T> {
  const engine = await createEngine({ ...config, verify: true });
  try {
    return await run(engine);
  } finally {
    await engine.close(); // writes config.tracePath
  }
}

/**
 * The witness stage alone: `count` witnesses of `inputs` through the engine's witness pool, as many
 * at once as it has slots, nothing proved (native outputs deleted as they come). The first round
 * (one witness per slot: processes started, the .dat loaded) is not timed.
 */
export async function witnessStageAlone(engine: Engine, inputs: StreamInputs, count: number, nVars: number): Promise<WitnessAlone> {
  const pool = engine.witnessPool;
  const slots = pool.stats().slots;
  const one = async (k: number) => {
    const out = await pool.compute(inputs.generator, inputs.input, `bench witness ${k}`, { nVars });
    if (out.file) rmSync(out.file, { force: true });
  };
  const batch = async (n: number) => {
    let next = 0;
    await Promise.all(Array.from({ length: Math.min(slots, n) }, async () => { while (next < n) await one(next++); }));
  };
  await batch(slots);
  const t0 = performance.now();
  await batch(count);
  const ms = performance.now() - t0;
  return { count, slots, kind: generatorKind(inputs.generator).kind, witnessesPerSec: count / (ms / 1000), msPerWitness: (ms * Math.min(slots, count)) / count };
}

/** The stream on a fresh engine, and with `comparePinnedOff` again on a second engine with
 * `pinned: false`, one after the other in this process (never both alive at once). */
export async function benchEngine(opts: BenchOptions): Promise<BenchResult> {
  const base: EngineConfig = { ...opts.config };
  const witnessFed: StreamOptions = { ...opts, inputs: undefined };
  const run = await withEngine({ ...base, pinned: base.pinned ?? true, tracePath: opts.tracePath }, (e) => runStream(e, witnessFed));
  if (opts.inputs) {
    const inputs = opts.inputs;
    const fed = await withEngine({ ...base, pinned: base.pinned ?? true }, async (e) => {
      const count = Math.max(4 * e.witnessPool.stats().slots, 32);
      opts.onProgress?.('witness stage alone', 0, count);
      const alone = await witnessStageAlone(e, inputs, count, run.key.nVars);
      const stats = await runStream(e, { ...opts, onProgress: opts.onProgress && ((phase, d, t) => opts.onProgress!(`${phase} (from inputs)`, d, t)) });
      return { alone, stats };
    });
    return { run, inputs: fed.stats, witnessAlone: fed.alone };
  }
  if (!opts.comparePinnedOff) return { run };
  const off = await withEngine({ ...base, pinned: false, tracePath: opts.tracePath && offTracePath(opts.tracePath) }, (e) => runStream(e, {
    ...witnessFed,
    onProgress: opts.onProgress && ((phase, d, t) => opts.onProgress!(`${phase} (pinned off)`, d, t)),
  }));
  const ratio = (a: number, b: number) => (b > 0 ? a / b : 0);
  return {
    run,
    off,
    ratios: {
      proofsPerSec: ratio(run.proofsPerSec, off.proofsPerSec),
      latencyP50: ratio(run.latencyMs.p50, off.latencyMs.p50),
      h2dGbPerSec: run.h2d.gbPerSec !== null && off.h2d.gbPerSec !== null ? ratio(run.h2d.gbPerSec, off.h2d.gbPerSec) : null,
      deviceMsPerProof: ratio(run.deviceMsPerProof, off.deviceMsPerProof),
    },
  };
}

/** Result rows for a table: label, main run, second run (pinned off, or fed by inputs), ratio (empty strings where absent). */
export function benchRows(r: BenchResult): [string, string, string, string][] {
  const f = (x: number | null | undefined, d: number) => (x === null || x === undefined ? '-' : x.toFixed(d));
  const pct = (x: number | null | undefined) => (x === null || x === undefined ? '-' : `${(100 * x).toFixed(1)}%`);
  const second = r.off ?? r.inputs;
  // inputs-fed / witness-fed (a pinned-off run has its own ratios)
  const ratioOf = (get: (s: StreamStats) => number | null): number | null | undefined => {
    if (!r.inputs) return undefined;
    const a = get(r.inputs), b = get(r.run);
    return a === null || b === null || b === 0 ? null : a / b;
  };
  const row = (label: string, get: (s: StreamStats) => string, ratio?: number | null): [string, string, string, string] =>
    [label, get(r.run), second ? get(second) : '', second && ratio !== undefined ? (ratio === null ? '-' : `${ratio.toFixed(2)}x`) : ''];
  const dev = r.run.deviceTime === 'gpu-kernels' ? 'GPU kernel' : 'lane busy';
  const rows: [string, string, string, string][] = [
    row('jobs completed / failed', (s) => `${s.completed} / ${s.failed}`),
    row('proofs/s', (s) => f(s.proofsPerSec, 2), r.ratios?.proofsPerSec ?? ratioOf((s) => s.proofsPerSec)),
    row('latency p50 ms', (s) => f(s.latencyMs.p50, 0), r.ratios?.latencyP50 ?? ratioOf((s) => s.latencyMs.p50)),
    row('latency p99 ms', (s) => f(s.latencyMs.p99, 0)),
    row('GPU kernel utilisation', (s) => pct(s.gpuUtilisation)),
    row('lane busy', (s) => pct(s.laneBusyRatio)),
    row('H2D GB/s', (s) => f(s.h2d.gbPerSec, 1), r.ratios?.h2dGbPerSec),
    row(`${dev} ms per proof`, (s) => f(s.deviceMsPerProof, 1), r.ratios?.deviceMsPerProof),
    row('throughput / (0.9 / device time)', (s) => `${f(s.targetRatio, 2)} ${s.targetRatio >= 1 ? '(met)' : '(below)'}`),
    row('peak RSS MiB', (s) => f(s.peakRssMiB, 0)),
    row('pool allocations after warm-up', (s) => String(s.pool.allocationsAfterWarmup)),
  ];
  if (r.inputs) {
    rows.push(row('witness ms per proof', (s) => f(s.witnessStage?.msPerWitness, 0)));
    rows.push(row('witness stage busy', (s) => (s.witnessStage ? `${pct(s.witnessStage.busy)} of ${s.witnessStage.slots}` : '-')));
  }
  return rows;
}

/** With inputs: the pipeline's rate against its slowest stage, min(witness-fed rate, witness stage alone). */
export function pipelineCheck(r: BenchResult): { slowest: number; ratio: number } | undefined {
  if (!r.inputs || !r.witnessAlone) return undefined;
  const slowest = Math.min(r.run.proofsPerSec, r.witnessAlone.witnessesPerSec);
  return { slowest, ratio: slowest > 0 ? r.inputs.proofsPerSec / slowest : 0 };
}
