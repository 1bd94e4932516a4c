// Engine: the ProvingEngine of api.ts. Owns the scheduler, memory budget, pinned pool, key cache,
// device lanes, witness workers, spans and metrics, and runs each accepted job through
// pipeline.ts. Per device lane, its phase-2 slots plus one more job are in the pipeline at once, so
// the next job's witness (and on the CPU core its synthesis) is ready while the current job's device
// phase runs; the rest wait in the priority queues. A lane whose proof failed with E_DEVICE_LOST is
// unhealthy for good (gpu-worker.ts): its proofs run on the lanes still serving (pipeline.ts
// proveRetrying); with none left, jobs fail with E_DEVICE_LOST and submit() refuses with E_NO_DEVICE.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import nodePath from 'node:path';
import { CuzkError, DeviceError, InputError, ResourceError, toCuzkError } from '../errors.js';
import type { Logger } from '../log.js';
import {
  TRACE_MAX_SECONDS, type CheckedJob, type EngineConfig, type EngineStatus, type JobEvent, type JobInfo, type JobRequest, type KeyInfo, type KnownParts,
  type ProofOutput, type ProvingEngine,
} from './api.js';
import type { MemoryBudget } from './budget.js';
import { lostLanes, servingLanes, type DeviceLane } from './gpu-worker.js';
import { Job } from './job.js';
import { JobChecker } from './checked-job.js';
import type { KeyCache } from './key-cache.js';
import { checkKeyId } from './key-ref.js';
import type { EngineMetrics } from './metrics.js';
import type { PinnedPool } from './pinned-pool.js';
import { proofBufferBytes, proveRetrying, type PipelineDeps } from './pipeline.js';
import { requestDigest, Scheduler } from './scheduler.js';
import type { SpanRecorder } from './spans.js';
import { openWitnessFile } from './witness-file.js';
import type { WitnessPool } from './witness-pool.js';

export interface EngineParts {
  config: Required<Pick<EngineConfig, 'maxQueue' | 'maxPartitions' | 'verify'>> & EngineConfig;
  backend: 'cpu' | 'cuda';
  budget: MemoryBudget;
  pool: PinnedPool;
  keys: KeyCache;
  lanes: DeviceLane[];
  cpuLane: DeviceLane;
  witnesses: WitnessPool;
  spans: SpanRecorder;
  metrics: (status: () => EngineStatus) => EngineMetrics;
  log: Logger;
}

const FINISHED_KEPT = 10_000;

/** Whether two paths name one file: equal once resolved, or by their real paths. */
async function sameFile(a: string, b: string): Promise<boolean> {
  if (nodePath.resolve(a) === nodePath.resolve(b)) return true;
  const [ra, rb] = await Promise.all([realpath(a).catch(() => undefined), realpath(b).catch(() => undefined)]);
  return ra !== undefined && ra === rb;
}

export class Engine implements ProvingEngine {
  readonly #p: EngineParts;
  readonly #jobs = new Map<string, Job>();
  readonly #finished: string[] = [];
  readonly #scheduler: Scheduler<Job>;
  readonly #checker: JobChecker;
  readonly #running = new Set<Job>();
  readonly #metrics: EngineMetrics;
  readonly #cpu = { tail: Promise.resolve() as Promise<unknown> };
  readonly #reads = { tail: Promise.resolve() as Promise<unknown> };
  readonly #started = Date.now();
  readonly #totals = { submitted: 0, completed: 0, failed: 0, cancelled: 0, expired: 0, proofs: 0 };
  #draining = false;
  #paused = false;
  #closed = false;

  constructor(parts: EngineParts) {
    this.#p = parts;
    this.#scheduler = new Scheduler(parts.config.maxQueue);
    this.#checker = new JobChecker(parts.keys, parts.config.maxPartitions);
    this.#metrics = parts.metrics(() => this.status());
    parts.spans.onSpan((s) => this.#metrics.span(s));
    for (const lane of new Set([...parts.lanes, parts.cpuLane])) lane.onUnhealthy = (l) => this.#laneLost(l);
  }

  /** Jobs in the pipeline at once: per healthy lane, its phase-2 slots plus one in phase 1. */
  get maxRunning(): number {
    return this.#serving().reduce((n, l) => n + l.slots + 1, 0);
  }

  /** maxRunning plus the witness slots: jobs with `inputs` may fill those too, since a job computing
   * its witness is in the pipeline but on no lane (so witnesses are ready when lanes free up). */
  get maxRunningWithInputs(): number {
    return this.maxRunning + this.#p.witnesses.stats().slots;
  }

  #serving(): DeviceLane[] {
    return servingLanes(this.#p.lanes, this.#p.cpuLane);
  }

  #lostLanes(): string {
    return lostLanes(this.#p.lanes, this.#p.cpuLane);
  }

  #laneLost(lane: DeviceLane): void {
    const serving = this.#serving();
    this.#p.log.error({ device: lane.id, reason: lane.unhealthyReason, serving: serving.map((l) => l.id) },
      `device lane ${lane.id} marked unhealthy: it gets no more work; ${serving.length > 0 ? `its proofs move to ${serving.map((l) => l.id).join(', ')}` : 'no healthy lane is left, jobs fail with E_DEVICE_LOST'}`);
    queueMicrotask(() => this.#dispatch());
  }

  /** The pinned pool (the bench marks its warm-up) and spans (for traces). */
  get pool(): PinnedPool {
    return this.#p.pool;
  }
  get spans(): SpanRecorder {
    return this.#p.spans;
  }
  get lanes(): readonly DeviceLane[] {
    return this.#p.lanes;
  }
  /** The witness stage (the bench measures it alone). */
  get witnessPool(): WitnessPool {
    return this.#p.witnesses;
  }
  /** Native witness generator processes (tests kill one mid-witness). */
  witnessPids(): number[] {
    return this.#p.witnesses.pids();
  }

  check(req: JobRequest, known?: KnownParts): CheckedJob {
    return this.#checker.check(req, known);
  }

  submit(req: JobRequest | CheckedJob, known?: KnownParts): JobInfo {
    if (this.#closed) throw new CuzkError('E_INTERNAL', 'engine is closed');
    if (this.#draining) throw new ResourceError('E_OVERLOADED', 'the engine is shutting down and accepts no new jobs: retry on another instance');
    if (this.#serving().length === 0) throw new DeviceError('E_NO_DEVICE', `no healthy device lane is left (${this.#lostLanes()}): this engine runs no more proofs; restart it, or send jobs to another instance`);
    // a job this engine checked runs as checked; anything else (a plain request, a copy) is checked now
    const checked = this.#checker.parts(req) ? (req as CheckedJob) : this.#checker.check(req, known);
    const parts = this.#checker.parts(checked)!;
    const { partitions, deadlineMs } = checked;
    // hashing the witnesses costs a pass over them: only a request id needs it
    const digest = checked.requestId === undefined ? undefined : requestDigest(checked);
    const existing = digest === undefined ? undefined : this.#scheduler.lookup(checked.requestId, digest);
    if (existing !== undefined) {
      const j = this.#jobs.get(existing);
      if (j) return this.#info(j);
    }
    if (checked.id !== undefined && this.#jobs.has(checked.id)) throw new InputError('E_INVALID_ARG', `job id ${checked.id} already exists`);
    const entry = this.#p.keys.current(parts.entry);
    const job = new Job(checked.id ?? randomUUID(), this.#p.keys.names(entry, checked.key) ? checked : { ...checked, key: entry.id }, partitions, { ...parts, entry });
    this.#scheduler.push(job, checked.requestId, digest);
    this.#p.keys.acquire(entry);
    this.#jobs.set(job.id, job);
    this.#totals.submitted++;
    if (deadlineMs !== undefined) {
      job.deadlineTimer = setTimeout(() => this.#stop(job, 'expired'), deadlineMs);
      job.deadlineTimer.unref();
    }
    this.#p.log.debug({ jobId: job.id, keyId: entry.id, priority: job.priority, partitions }, 'job queued');
    queueMicrotask(() => this.#dispatch());
    return this.#info(job);
  }

  async await(id: string, timeoutMs?: number): Promise<JobInfo> {
    const job = this.#job(id);
    if (!job.terminal) {
      if (timeoutMs === undefined) await job.settled;
      else {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([job.settled, new Promise((r) => (timer = setTimeout(r, Math.max(0, timeoutMs))))]);
        clearTimeout(timer);
      }
    }
    return this.#info(job);
  }

  get(id: string): JobInfo | undefined {
    const j = this.#jobs.get(id);
    return j && this.#info(j);
  }

  cancel(id: string): JobInfo {
    const job = this.#job(id);
    this.#stop(job, 'cancelled');
    return this.#info(job);
  }

  pause(): void {
    if (!this.#paused) this.#p.log.info({ queued: this.#scheduler.size }, 'queue paused: queued jobs wait for resume');
    this.#paused = true;
  }

  resume(): void {
    if (this.#paused) this.#p.log.info({ queued: this.#scheduler.size }, 'queue resumed');
    this.#paused = false;
    queueMicrotask(() => this.#dispatch());
  }

  subscribe(id: string, fn: (e: JobEvent) => void): () => void {
    return this.#job(id).subscribe(fn);
  }

  async loadKey(path: string, opts: { id?: string } = {}): Promise<KeyInfo> {
    if (!existsSync(path)) throw new InputError('E_NOT_FOUND', `${path}: no such proving key file`);
    if (opts.id !== undefined) await checkKeyId(opts.id, path, sameFile);
    const e = this.#p.keys.register(path, opts.id);
    this.#p.keys.acquire(e);
    try {
      await this.#p.keys.load(e);
      for (const lane of this.#p.lanes) {
        if (lane.device < 0 || !lane.healthy) continue;
        try {
          await this.#p.keys.onDevice(e, lane.device, new AbortController().signal);
        } catch (err) {
          // too large for this GPU's budget: it stays in pinned host memory and its proofs go elsewhere
          if (!(err instanceof CuzkError && err.code === 'E_DEVICE_OOM')) throw err;
          this.#p.log.warn({ keyId: e.id, device: lane.id, error: err.message }, 'proving key stays in host memory: it does not fit this GPU');
        }
      }
    } finally {
      this.#p.keys.releaseUse(e);
    }
    return this.#p.keys.info(e, opts.id ?? nodePath.resolve(path))!;
  }

  growPool(): Promise<void> {
    const onGpu = this.#p.lanes.some((l) => l.device >= 0);
    return this.#p.pool.grow(() => this.#p.keys.list().map((k) => proofBufferBytes(k.nVars, k.domainSize, onGpu)));
  }

  evictKey(id: string): void {
    this.#p.keys.evict(id);
  }

  listKeys(): KeyInfo[] {
    return this.#p.keys.list();
  }

  status(): EngineStatus {
    const b = this.#p.budget;
    const pool = (name: 'host' | 'pinned') => {
      const s = b.status(name);
      return { limit: s.limit, used: s.used, waiters: s.waiters };
    };
    return {
      backend: this.#p.backend,
      uptimeMs: Date.now() - this.#started,
      // the CPU core too once it serves for lost GPUs
      devices: [...new Set([...this.#p.lanes, ...this.#serving()])].map((l) => l.status()),
      keys: this.#p.keys.list(),
      queues: this.#scheduler.depths(),
      running: this.#running.size,
      witness: this.#p.witnesses.stats(),
      budget: {
        host: pool('host'),
        pinned: pool('pinned'),
        gpu: this.#p.lanes.filter((l) => l.device >= 0).map((l) => {
          const s = b.status(`gpu:${l.device}`);
          return { id: l.id, limit: s.limit, used: s.used, waiters: s.waiters };
        }),
      },
      pinnedPool: this.#p.pool.stats(),
      totals: { ...this.#totals },
      draining: this.#draining,
      paused: this.#paused,
    };
  }

  metricsText(): Promise<string> {
    return this.#metrics.text();
  }

  async drain(deadlineMs: number): Promise<{ unfinished: JobInfo[] }> {
    this.#draining = true;
    const queued = this.#scheduler.all().map((j) => this.#info(j));
    let timer: NodeJS.Timeout | undefined;
    const running = [...this.#running];
    await Promise.race([Promise.all(running.map((j) => j.settled)), new Promise((r) => (timer = setTimeout(r, deadlineMs)))]);
    clearTimeout(timer);
    const late = [...this.#running];
    const unfinished = [...queued, ...late.map((j) => this.#info(j))];
    for (const j of late) this.#stop(j, 'cancelled');
    await Promise.all(late.map((j) => j.settled));
    return { unfinished };
  }

  trace(seconds: number): string {
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > TRACE_MAX_SECONDS) {
      throw new InputError('E_INVALID_ARG', `trace seconds must be an integer 1..${TRACE_MAX_SECONDS}, got ${seconds}`);
    }
    return this.#p.spans.traceJson(performance.now() - seconds * 1000);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#draining = true;
    for (const j of this.#scheduler.all()) this.#stop(j, 'cancelled');
    for (const j of this.#running) this.#stop(j, 'cancelled');
    await Promise.all([...this.#running].map((j) => j.settled));
    this.#closed = true;
    this.#p.keys.close();
    this.#p.pool.close();
    await this.#p.witnesses.close();
    if (this.#p.config.tracePath) this.#p.spans.writeTrace(this.#p.config.tracePath);
  }

  #job(id: string): Job {
    const j = this.#jobs.get(id);
    if (!j) throw new InputError('E_NOT_FOUND', `unknown job ${id}`);
    return j;
  }

  #info(j: Job): JobInfo {
    return j.info(j.state === 'queued' ? this.#scheduler.position(j) : undefined);
  }

  #stop(job: Job, as: 'cancelled' | 'expired'): void {
    if (job.terminal) return;
    if (job.state === 'queued' && this.#scheduler.remove(job)) {
      this.#end(job, as);
      return;
    }
    job.stop(as); // running: the pipeline sees the flag at its next phase boundary
  }

  #dispatch(): void {
    if (this.#serving().length === 0) {
      // nothing can run a queued job any more: each fails now rather than wait for ever
      for (const job of this.#scheduler.all()) {
        this.#scheduler.remove(job);
        this.#end(job, 'failed', { code: 'E_DEVICE_LOST', message: `job ${job.id}: no healthy device lane is left to run it (${this.#lostLanes()})` });
      }
      return;
    }
    const lanes = this.maxRunning, all = this.maxRunningWithInputs;
    while (!this.#draining && !this.#paused && this.#running.size < all) {
      // beyond the lanes' room only a job that first computes its witnesses may start
      const job = this.#scheduler.next(this.#running.size < lanes ? undefined : (j) => j.request.inputs !== undefined);
      if (!job) return;
      this.#running.add(job);
      void this.#run(job).finally(() => {
        this.#running.delete(job);
        this.#dispatch();
      });
    }
  }

  async #run(job: Job): Promise<void> {
    const entry = this.#p.keys.resolve(job.request.key);
    job.setState('running');
    const queueMs = performance.now() - job.submittedPerf;
    this.#p.spans.record({ phase: 'queue', jobId: job.id, partition: -1, track: 'queue', start: job.submittedPerf, dur: queueMs });
    job.addPhase('queue', queueMs, -1);
    try {
      const key = await this.#p.keys.load(entry, job.abort.signal);
      const deps: PipelineDeps = {
        budget: this.#p.budget, pool: this.#p.pool, spans: this.#p.spans, witnesses: this.#p.witnesses, lanes: this.#p.lanes, cpuLane: this.#p.cpuLane,
        cpu: this.#cpu, reads: this.#reads, verify: this.#p.config.verify, testRandomness: this.#p.config.testRandomness, testHooks: this.#p.config.testHooks, log: this.#p.log,
        openWitness: this.#p.config.openWitness ?? openWitnessFile,
        ensureOnDevice: (device, signal) => this.#p.keys.onDevice(entry, device, signal),
        placeOn: (device) => this.#p.keys.placement(key, device),
      };
      // partitions in order, as many in flight as the lanes' pipeline holds (their slots plus one
      // each, as for separate jobs): all at once, every partition read its witness and waited for a
      // lane together, and a 10-partition job kept an H200 51% busy (issue 32)
      const window = Math.max(1, this.maxRunning);
      const parts: Promise<ProofOutput>[] = [];
      for (let k = 0; k < job.partitions; k++) {
        const ahead = parts[k - window];
        parts.push((ahead ? ahead.then(() => undefined, () => undefined) : Promise.resolve()).then(() => {
          if (job.cancelFlag[0]) throw new CuzkError('E_CANCELLED', `job ${job.id} was ${job.stopAs ?? 'cancelled'}`);
          return proveRetrying(job, k, key, deps);
        }));
      }
      // the first partition to fail is the job's reason; it halts its siblings at their next phase
      // boundary, and every partition settles (and frees its buffers) before the job ends
      let first: unknown;
      parts.forEach((p) => p.catch((e: unknown) => {
        first ??= e;
        job.halt();
      }));
      const settled = await Promise.allSettled(parts);
      if (first !== undefined) throw first;
      job.proofs = settled.map((s) => (s as PromiseFulfilledResult<NonNullable<Job['proofs']>[number]>).value);
      this.#end(job, 'completed');
    } catch (e) {
      const err = toCuzkError(e);
      if (job.stopAs) this.#end(job, job.stopAs);
      else this.#end(job, 'failed', { code: err.code, message: err.message });
    } finally {
      this.#p.keys.releaseUse(entry);
    }
  }

  #end(job: Job, state: 'completed' | 'failed' | 'cancelled' | 'expired', error?: { code: string; message: string }): void {
    if (job.terminal) return;
    if (state === 'cancelled' || state === 'expired') error ??= { code: state === 'expired' ? 'E_TIMEOUT' : 'E_CANCELLED', message: `job ${job.id} ${state}` };
    if (job.state === 'queued') this.#p.keys.releaseUse(this.#p.keys.resolve(job.request.key));
    job.setState(state, error);
    this.#totals[state]++;
    if (state === 'completed') this.#totals.proofs += job.partitions;
    this.#metrics.jobEnded(state, job.partitions);
    // debug: the embedder reports ends (the daemon at info once the result is journaled), one line per job
    this.#p.log.debug({ jobId: job.id, ...(error ? { error: error.message } : {}), ms: (job.finishedAt ?? 0) - job.submittedAt }, `job ${state}`);
    this.#finished.push(job.id);
    while (this.#finished.length > FINISHED_KEPT) {
      const old = this.#jobs.get(this.#finished.shift()!);
      if (old) {
        this.#jobs.delete(old.id);
        if (old.requestId) this.#scheduler.forget(old.requestId);
      }
    }
  }
}
