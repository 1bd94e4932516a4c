// Engine: the ProvingEngine of api.ts. Owns the scheduler, memory budget, pinned pool, key cache,
// device lanes, witness workers, spans and metrics, and runs each accepted job through
// pipeline.ts. Per device lane, its phase-2 slots plus one more job are in the pipeline at once, so
// the next job's CPU phase overlaps the current job's device phase; the rest wait in the priority
// queues.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { CuzkError, InputError, ResourceError } from '../errors.js';
import { WtnsFile } from '../formats/wtns.js';
import type { Logger } from '../log.js';
import {
  PRIORITIES, TRACE_MAX_SECONDS, type EngineConfig, type EngineStatus, type JobEvent, type JobInfo, type JobRequest, type KeyInfo,
  type ProvingEngine,
} from './api.js';
import type { MemoryBudget } from './budget.js';
import type { DeviceLane } from './gpu-worker.js';
import { Job } from './job.js';
import { looksLikeKeyPath } from './key-ref.js';
import type { KeyCache } from './key-cache.js';
import type { EngineMetrics } from './metrics.js';
import type { PinnedPool } from './pinned-pool.js';
import { proofBufferBytes, provePartition, type PipelineDeps } from './pipeline.js';
import { requestDigest, Scheduler } from './scheduler.js';
import type { SpanRecorder } from './spans.js';
import { generatorKind } from './generator-file.js';
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

export class Engine implements ProvingEngine {
  readonly #p: EngineParts;
  readonly #jobs = new Map<string, Job>();
  readonly #finished: string[] = [];
  readonly #scheduler: Scheduler<Job>;
  readonly #running = new Set<Job>();
  readonly #metrics: EngineMetrics;
  readonly #cpu = { tail: Promise.resolve() as Promise<unknown> };
  readonly #started = Date.now();
  readonly #totals = { submitted: 0, completed: 0, failed: 0, cancelled: 0, expired: 0, proofs: 0 };
  #draining = false;
  #paused = false;
  #closed = false;

  constructor(parts: EngineParts) {
    this.#p = parts;
    this.#scheduler = new Scheduler(parts.config.maxQueue);
    this.#metrics = parts.metrics(() => this.status());
    parts.spans.onSpan((s) => this.#metrics.span(s));
  }

  /** Jobs in the pipeline at once: per lane, its phase-2 slots plus one in phase 1. */
  get maxRunning(): number {
    // plus the witness slots: a job computing its witness is in the pipeline but on no lane
    return this.#p.lanes.reduce((n, l) => n + l.slots + 1, 0) + this.#p.witnesses.stats().slots;
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
  /** Native witness generator processes (tests kill one mid-witness). */
  witnessPids(): number[] {
    return this.#p.witnesses.pids();
  }

  submit(req: JobRequest): JobInfo {
    if (this.#closed) throw new CuzkError('E_INTERNAL', 'engine is closed');
    if (this.#draining) throw new ResourceError('E_OVERLOADED', 'the engine is shutting down and accepts no new jobs: retry on another instance', { retryable: true });
    const partitions = this.#validate(req);
    // hashing the witnesses costs a pass over them: only a request id needs it
    const digest = req.requestId === undefined ? undefined : requestDigest(req);
    const existing = digest === undefined ? undefined : this.#scheduler.lookup(req.requestId, digest);
    if (existing !== undefined) {
      const j = this.#jobs.get(existing);
      if (j) return this.#info(j);
    }
    if (req.id !== undefined && this.#jobs.has(req.id)) throw new InputError('E_INVALID_ARG', `job id ${req.id} already exists`);
    const entry = this.#p.keys.resolve(req.key);
    const job = new Job(req.id ?? randomUUID(), { ...req, key: entry.id }, partitions);
    this.#scheduler.push(job, req.requestId, digest);
    this.#p.keys.acquire(entry);
    this.#jobs.set(job.id, job);
    this.#totals.submitted++;
    if (req.deadlineMs !== undefined) {
      job.deadlineTimer = setTimeout(() => this.#stop(job, 'expired'), req.deadlineMs);
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
    const e = this.#p.keys.register(path, opts.id);
    this.#p.keys.acquire(e);
    try {
      await this.#p.keys.load(e);
      for (const lane of this.#p.lanes) {
        if (lane.device < 0) continue;
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
    return this.#p.keys.info(e)!;
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
      devices: this.#p.lanes.map((l) => l.status()),
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

  #validate(req: JobRequest): number {
    const bad = (m: string) => new InputError('E_INVALID_ARG', m);
    if (typeof req.key !== 'string' || req.key.length === 0) throw bad('key: a key id or .zkey path is required');
    if (req.priority !== undefined && !PRIORITIES.includes(req.priority)) throw bad(`priority must be one of ${PRIORITIES.join(', ')}`);
    if (req.deadlineMs !== undefined && !(Number.isFinite(req.deadlineMs) && req.deadlineMs > 0)) throw bad('deadlineMs must be a positive number');
    const w = req.witnesses, f = req.witnessFiles, i = req.inputs;
    if ([w, f, i].filter((x) => x !== undefined).length !== 1) throw bad('a job needs exactly one of witnesses, witnessFiles or inputs');
    const n = (w ?? f ?? i)!.length;
    if (!Array.isArray(w ?? f ?? i) || n === 0) throw bad('a job needs at least one witness or input');
    if (n > this.#p.config.maxPartitions) throw bad(`a job may have at most ${this.#p.config.maxPartitions} partitions, this one has ${n}`);
    if (w) w.forEach((bytes, k) => {
      if (!(bytes instanceof Uint8Array)) throw bad(`witness ${k} is not bytes`);
      WtnsFile.fromBytes(bytes, `witness ${k}`).close(); // header and sizes; values are checked against the key later
    });
    if (f) f.forEach((file, k) => {
      if (typeof file !== 'string' || file.length === 0) throw bad(`witness file ${k} is not a path`);
      WtnsFile.open(file).close();
    });
    if (i) {
      const gen = req.generator ?? req.wasm;
      if (!gen || !existsSync(gen)) throw new InputError('E_NOT_FOUND', `generator: ${gen ?? '(none)'}: circuit inputs need the circuit's witness generator (.wasm or native)`);
      generatorKind(gen); // a truncated or foreign file is refused here, naming it
      i.forEach((v, k) => { if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(`input ${k} must be a JSON object`); });
    }
    if (looksLikeKeyPath(req.key) && !existsSync(req.key) && !this.#p.keys.list().some((k) => k.id === req.key)) {
      throw new InputError('E_NOT_FOUND', `${req.key}: no such proving key file`);
    }
    return n;
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
    while (!this.#draining && !this.#paused && this.#running.size < this.maxRunning) {
      const job = this.#scheduler.next();
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
        cpu: this.#cpu, verify: this.#p.config.verify, testRandomness: this.#p.config.testRandomness, testHooks: this.#p.config.testHooks, log: this.#p.log,
        ensureOnDevice: (device, signal) => this.#p.keys.onDevice(entry, device, signal),
      };
      const parts = Array.from({ length: job.partitions }, (_, k) => provePartition(job, k, key, deps));
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
      const err = e instanceof CuzkError ? e : new CuzkError('E_INTERNAL', (e as Error)?.message ?? String(e));
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
