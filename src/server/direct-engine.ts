// STAND-IN for the pipelined engine (src/engine/engine.ts, being written): a ProvingEngine that
// proves one job at a time with ProvingKey.load + proveWithKey, behind the same contract
// (src/engine/api.ts), so the daemon, its journal and its tests run before the real engine lands.
// Priority queue, cancel, deadlines, request-id idempotency and drain follow api.ts; there is no
// memory budget, no pinned pool and no GPU scheduling. `createDaemon` takes any ProvingEngine.
import { existsSync } from 'node:fs';
import os from 'node:os';
import { CuzkError, InputError, ResourceError } from '../errors.js';
import { proofToJson } from '../formats/proof-json.js';
import { checkWitnessMatchesKey, WtnsFile } from '../formats/wtns.js';
import { PRIORITIES, type EngineConfig, type EngineStatus, type JobEvent, type JobInfo, type JobRequest, type KeyInfo, type ProofOutput, type ProvingEngine } from '../engine/api.js';
import { proveWithKey } from '../engine/prover.js';
import { ProvingKey } from '../engine/proving-key.js';
import { computeWitness } from '../engine/witness.js';
import { backend } from '../ffi/native.js';
import { isTerminal, JobBook, jobFingerprint, type Job } from './job-book.js';
import { engineMetricsText } from './engine-metrics.js';

interface LoadedKey {
  key: ProvingKey;
  info: KeyInfo;
}

export class DirectEngine implements ProvingEngine {
  readonly #cfg: Required<Pick<EngineConfig, 'maxQueue' | 'maxPartitions' | 'verify'>> & EngineConfig;
  readonly #book = new JobBook();
  readonly #keys = new Map<string, LoadedKey>();
  readonly #loading = new Map<string, Promise<KeyInfo>>();
  readonly #startedAt = Date.now();
  #running: Job | undefined;
  #draining = false;
  #closed = false;
  #idle: Promise<void> = Promise.resolve();

  constructor(cfg: EngineConfig = {}) {
    this.#cfg = { maxQueue: 1024, maxPartitions: 64, verify: true, ...cfg };
  }

  submit(req: JobRequest): JobInfo {
    if (this.#draining || this.#closed) throw new ResourceError('E_OVERLOADED', 'the engine is draining: not accepting jobs', { retryable: true, details: { draining: true } });
    const n = this.#validate(req);
    if (req.requestId !== undefined) {
      const prior = this.#book.byRequestId(req.requestId);
      if (prior) {
        if (prior.fingerprint !== jobFingerprint(req)) throw new InputError('E_INVALID_ARG', `requestId ${req.requestId} was used for job ${prior.info.id} with other content`);
        return { ...prior.info };
      }
    }
    if (req.id !== undefined && this.#book.get(req.id)) throw new InputError('E_INVALID_ARG', `job id ${req.id} already exists`);
    const queued = this.#book.queuedCount();
    if (queued >= this.#cfg.maxQueue) {
      throw new ResourceError('E_OVERLOADED', `queue full: ${queued} jobs queued (maxQueue ${this.#cfg.maxQueue}); retry later`, { retryable: true, details: { queued, maxQueue: this.#cfg.maxQueue, queues: this.#book.queueLengths(), running: this.#running ? 1 : 0 } });
    }
    const job = this.#book.add(req, n);
    const key = this.#keys.get(req.key);
    if (key) key.info.users++;
    if (req.deadlineMs) job.timer = setTimeout(() => this.#expire(job), req.deadlineMs).unref();
    queueMicrotask(() => this.#pump());
    return this.#book.snapshot(job);
  }

  #validate(req: JobRequest): number {
    if (typeof req.key !== 'string' || req.key === '') throw new InputError('E_INVALID_ARG', 'key is required (a key id or a .zkey path)');
    if (!this.#keys.has(req.key) && !existsSync(req.key)) throw new InputError('E_NOT_FOUND', `key "${req.key}" is neither a loaded key id nor a readable .zkey path`);
    const nw = req.witnesses?.length ?? 0;
    const ni = req.inputs?.length ?? 0;
    if ((nw > 0) === (ni > 0)) throw new InputError('E_INVALID_ARG', `exactly one of witnesses or inputs is required (got ${nw} witnesses, ${ni} inputs)`);
    if (ni > 0 && !req.wasm) throw new InputError('E_INVALID_ARG', 'inputs need wasm (the circuit witness generator)');
    const n = nw + ni;
    if (n > this.#cfg.maxPartitions) throw new InputError('E_INVALID_ARG', `${n} partitions is more than maxPartitions ${this.#cfg.maxPartitions}`);
    if (req.priority !== undefined && !PRIORITIES.includes(req.priority)) throw new InputError('E_INVALID_ARG', `priority must be one of ${PRIORITIES.join(', ')}, got ${String(req.priority)}`);
    return n;
  }

  #expire(job: Job): void {
    if (isTerminal(job.info.state)) return;
    if (job.info.state === 'running') {
      job.endAs = 'expired';
      Atomics.store(job.cancel, 0, 1);
    } else this.#finish(job, 'expired', { code: 'E_TIMEOUT', message: `deadline of ${job.req.deadlineMs} ms passed while queued` });
  }

  #finish(job: Job, state: JobInfo['state'], error?: { code: string; message: string }, proofs?: ProofOutput[]): void {
    const key = this.#keys.get(job.req.key);
    if (key && key.info.users > 0) key.info.users--;
    this.#book.finish(job, state, error, proofs);
  }

  #pump(): void {
    if (this.#running || this.#closed) return;
    const job = this.#book.next();
    if (!job) return;
    this.#running = job;
    this.#idle = this.#run(job).finally(() => {
      this.#running = undefined;
      this.#pump();
    });
  }

  async #run(job: Job): Promise<void> {
    this.#book.start(job, backend() === 'cuda' ? 'gpu:0' : 'cpu');
    try {
      const key = await this.#keyFor(job.req.key);
      const proofs: ProofOutput[] = [];
      for (let p = 0; p < job.info.partitions; p++) proofs.push(await this.#provePartition(job, key, p));
      this.#finish(job, 'completed', undefined, proofs);
    } catch (err) {
      const e = err instanceof CuzkError ? err : new CuzkError('E_INTERNAL', String((err as Error)?.message ?? err), { cause: err });
      if (e.code === 'E_CANCELLED') {
        const expired = job.endAs === 'expired';
        this.#finish(job, expired ? 'expired' : 'cancelled', expired ? { code: 'E_TIMEOUT', message: `deadline of ${job.req.deadlineMs} ms passed while running` } : undefined);
      } else this.#finish(job, 'failed', { code: e.code, message: e.message });
    }
  }

  async #provePartition(job: Job, key: LoadedKey, p: number): Promise<ProofOutput> {
    let t = performance.now();
    let bytes = job.req.witnesses?.[p];
    if (!bytes) {
      bytes = await computeWitness(job.req.wasm!, job.req.inputs![p], `inputs[${p}]`);
      t = this.#book.phase(job, 'witness', p, t);
    }
    if (Atomics.load(job.cancel, 0)) throw new CuzkError('E_CANCELLED', 'cancelled');
    const wtns = WtnsFile.fromBytes(bytes, `witnesses[${p}]`);
    try {
      checkWitnessMatchesKey(wtns.header, key.key.header);
      const witness = wtns.readWitness();
      const res = await proveWithKey(key.key, witness, { cancel: job.cancel, skipVerify: !this.#cfg.verify, randomness: this.#cfg.testRandomness });
      this.#book.phase(job, 'msm', p, t, res.timings.proveMs);
      this.#book.phase(job, 'verify', p, t, res.timings.verifyMs);
      key.info.lastUsedAt = Date.now();
      return { proof: proofToJson(res.proof), publicSignals: res.publicSignals.map(String) };
    } finally {
      wtns.close();
    }
  }

  async #keyFor(id: string): Promise<LoadedKey> {
    if (!this.#keys.has(id)) await this.loadKey(id);
    const k = this.#keys.get(id);
    if (!k) throw new InputError('E_NOT_FOUND', `key "${id}" was evicted`);
    return k;
  }

  await(id: string, timeoutMs?: number): Promise<JobInfo> {
    return this.#book.await(this.#must(id), timeoutMs);
  }

  get(id: string): JobInfo | undefined {
    const job = this.#book.get(id);
    return job && this.#book.snapshot(job);
  }

  #must(id: string): Job {
    const job = this.#book.get(id);
    if (!job) throw new InputError('E_NOT_FOUND', `no job ${id}`);
    return job;
  }

  cancel(id: string): JobInfo {
    const job = this.#must(id);
    if (job.info.state === 'queued') this.#finish(job, 'cancelled');
    else if (job.info.state === 'running') Atomics.store(job.cancel, 0, 1);
    return this.#book.snapshot(job);
  }

  subscribe(id: string, fn: (e: JobEvent) => void): () => void {
    return this.#book.subscribe(this.#must(id), fn);
  }

  loadKey(path: string, opts: { id?: string } = {}): Promise<KeyInfo> {
    const id = opts.id ?? path;
    const have = this.#keys.get(id);
    if (have) return Promise.resolve({ ...have.info });
    let p = this.#loading.get(id);
    if (!p) {
      p = ProvingKey.load(path).then((key) => {
        const h = key.header;
        const now = Date.now();
        const info: KeyInfo = { id, path, curve: h.curve, nVars: h.nVars, nPublic: h.nPublic, domainSize: h.domainSize, bytes: key.bytes, residency: 'host', users: this.#book.usersOf(id), loadedAt: now, lastUsedAt: now };
        this.#keys.set(id, { key, info });
        return { ...info };
      });
      this.#loading.set(id, p);
      void p.catch(() => undefined).finally(() => this.#loading.delete(id));
    }
    return p;
  }

  evictKey(id: string): void {
    const k = this.#keys.get(id);
    if (!k) throw new InputError('E_NOT_FOUND', `no loaded key ${id}`);
    if (k.info.users > 0) throw new InputError('E_INVALID_ARG', `key ${id} is used by ${k.info.users} queued or running jobs`);
    this.#keys.delete(id);
    k.key.release();
  }

  listKeys(): KeyInfo[] {
    return [...this.#keys.values()].map((k) => ({ ...k.info }));
  }

  status(): EngineStatus {
    const mem = { total: os.totalmem(), free: os.freemem() };
    return {
      backend: backend(),
      uptimeMs: Date.now() - this.#startedAt,
      devices: [{ id: 'cpu', name: `${os.cpus()[0]?.model ?? 'cpu'} (${os.cpus().length} threads)`, memoryTotal: mem.total, memoryFree: mem.free, currentJob: this.#running?.info.id, utilisation: null }],
      keys: this.listKeys(),
      queues: this.#book.queueLengths(),
      running: this.#running ? 1 : 0,
      budget: { host: { limit: mem.total, used: this.listKeys().reduce((s, k) => s + k.bytes, 0), waiters: 0 }, pinned: { limit: 0, used: 0, waiters: 0 }, gpu: [] },
      pinnedPool: { enabled: false, buffers: 0, bytes: 0, inUse: 0, allocations: 0, allocationsAfterWarmup: 0 },
      totals: { ...this.#book.totals },
      draining: this.#draining,
    };
  }

  metricsText(): Promise<string> {
    return Promise.resolve(engineMetricsText(this.status()));
  }

  async drain(deadlineMs: number): Promise<{ unfinished: JobInfo[] }> {
    this.#draining = true;
    const running = this.#running;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), deadlineMs)));
    const unfinished: JobInfo[] = [];
    this.#closed = true; // nothing new starts: queued jobs stay queued
    if (running && (await Promise.race([this.#idle.then(() => 'done' as const), late])) === 'late') {
      running.endAs = 'requeue';
      Atomics.store(running.cancel, 0, 1);
      await this.#idle;
      unfinished.push(this.#book.snapshot(running));
    }
    clearTimeout(timer);
    unfinished.push(...this.#book.queued().map((j) => this.#book.snapshot(j)));
    return { unfinished };
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#draining = true;
    for (const job of this.#book.queued()) this.#finish(job, 'cancelled');
    if (this.#running) Atomics.store(this.#running.cancel, 0, 1);
    await this.#idle;
    for (const { key } of this.#keys.values()) key.release();
    this.#keys.clear();
  }
}
