// Jobs between the network and the engine: every accepted job is journaled (JobStore) before it is
// acknowledged, handed to the engine with its journal id, and its terminal state journaled when the
// engine reports it. On start, journaled jobs that never finished are resubmitted with the same id
// and request id; while stopping, jobs the engine gives back unfinished stay queued in the journal.
import { randomUUID } from 'node:crypto';
import { CuzkError, InputError, ResourceError } from '../errors.js';
import { TERMINAL_STATES, type JobEvent, type JobInfo, type JobRequest, type ProvingEngine } from '../engine/api.js';
import { requestDigest } from '../engine/scheduler.js';
import type { ServeConfig } from './config.js';
import type { JobStore, StoredJob } from './job-store.js';
import type { Logger } from './logger.js';
import { checkJobRequest, confineJobPaths } from './request-check.js';

const terminal = (s: string) => (TERMINAL_STATES as readonly string[]).includes(s);

/** A journaled job the engine has not seen (yet), as a JobInfo. */
function storedInfo(s: StoredJob): JobInfo {
  if (s.result) return s.result;
  return { id: s.id, requestId: s.requestId, key: s.key, priority: s.priority, state: 'queued', partitions: s.partitions, submittedAt: s.submittedAt, timings: {} };
}

export class JobService {
  #accepting = true;
  readonly #userCancelled = new Set<string>();
  /** Journaled jobs waiting for room in the engine's queue (after a restart with a long journal). */
  readonly #backlog: StoredJob[] = [];
  /** Submission time as journaled (the engine stamps its own a little later, or at the replay):
   * JobRequest has no field to pass it, so it is put back here. Pruned with the journal. */
  readonly #submittedAt = new Map<string, number>();
  readonly #pending = new Set<Promise<void>>();
  #onDrained!: () => void;
  readonly #drained = new Promise<void>((r) => (this.#onDrained = r));

  constructor(
    private readonly engine: ProvingEngine,
    private readonly store: JobStore,
    private readonly cfg: ServeConfig,
    private readonly log: Logger,
  ) {}

  get accepting(): boolean {
    return this.#accepting;
  }

  async submit(req: JobRequest): Promise<{ job: JobInfo; deduplicated: boolean }> {
    if (!this.#accepting) throw new ResourceError('E_OVERLOADED', 'the daemon is shutting down: not accepting jobs', { retryable: true, details: { draining: true } });
    checkJobRequest(req, { maxJobBytes: this.cfg.maxJobBytes, maxPartitions: this.cfg.maxPartitions });
    const fingerprint = requestDigest(req);
    if (req.requestId !== undefined) {
      const prior = await this.store.byRequestId(req.requestId);
      if (prior) return this.#dedup(prior, fingerprint);
    }
    const confined = await this.#confine(req);
    const id = randomUUID();
    const stored: StoredJob = { id, requestId: req.requestId, fingerprint, key: confined.key, priority: req.priority ?? 'normal', state: 'queued', partitions: (req.witnesses?.length ?? 0) + (req.inputs?.length ?? 0), submittedAt: Date.now(), deadlineMs: req.deadlineMs || undefined, request: { ...confined, id } };
    const ins = await this.store.insert(stored);
    if (!ins.inserted) return this.#dedup(ins.existing, fingerprint);
    let job: JobInfo;
    try {
      job = this.engine.submit({ ...confined, id, deadlineMs: req.deadlineMs || undefined });
    } catch (err) {
      await this.store.remove(id).catch((e: Error) => this.log.error({ jobId: id, err: e.message }, 'a refused job stays in the journal: it runs after a restart'));
      throw err;
    }
    if (job.id !== id) {
      // the engine still knew the request id (its journal row was purged): its job is the answer
      await this.store.remove(id);
      return { job: this.#withSubmittedAt(job), deduplicated: true };
    }
    this.#submittedAt.set(id, stored.submittedAt);
    this.#track(id);
    this.log.info({ jobId: id, requestId: req.requestId, key: confined.key, priority: job.priority, partitions: job.partitions }, 'job accepted');
    return { job: this.#withSubmittedAt(job), deduplicated: false };
  }

  #confine(req: JobRequest): Promise<JobRequest> {
    return confineJobPaths(req, this.cfg, (key) => this.engine.listKeys().some((k) => k.id === key));
  }

  async #dedup(prior: StoredJob, fingerprint: string): Promise<{ job: JobInfo; deduplicated: boolean }> {
    if (prior.fingerprint !== fingerprint) throw new InputError('E_INVALID_ARG', `request_id ${prior.requestId} was already used for job ${prior.id} with other content`);
    return { job: await this.get(prior.id), deduplicated: true };
  }

  #track(id: string): void {
    const p = this.engine.await(id).then((info) => this.#record(info)).catch((err) => this.log.error({ jobId: id, err }, 'journaling the result failed'));
    this.#pending.add(p);
    void p.finally(() => this.#pending.delete(p));
  }

  async #record(info: JobInfo): Promise<void> {
    if (!this.#accepting && info.state === 'cancelled' && !this.#userCancelled.has(info.id)) {
      this.log.info({ jobId: info.id }, 'job stopped by shutdown: stays queued in the journal');
      return;
    }
    this.#userCancelled.delete(info.id);
    try {
      await this.store.finish(this.#withSubmittedAt(info));
    } catch (err) {
      this.log.error({ jobId: info.id, state: info.state, err: (err as Error).message }, 'journaling the result failed: the job runs again after a restart');
    }
    const fields = { jobId: info.id, state: info.state, ms: (info.finishedAt ?? 0) - (info.startedAt ?? info.submittedAt), device: info.device, error: info.error };
    if (info.state === 'failed') this.log.warn(fields, 'job failed');
    else this.log.info(fields, `job ${info.state}`);
    this.#pumpBacklog();
  }

  async get(id: string): Promise<JobInfo> {
    const live = this.engine.get(id);
    if (live) return this.#withSubmittedAt(live);
    const s = await this.store.get(id);
    if (!s) throw new InputError('E_NOT_FOUND', `no job ${id} (unknown, or its result is older than the retention period)`);
    return storedInfo(s);
  }

  #withSubmittedAt(info: JobInfo): JobInfo {
    const at = this.#submittedAt.get(info.id);
    return at === undefined ? info : { ...info, submittedAt: at };
  }

  /** Terminal, or current after the timeout, or current once the daemon has drained (so callers get an answer before it exits). */
  async await(id: string, timeoutMs: number | undefined): Promise<JobInfo> {
    const wait = Math.min(timeoutMs ?? this.cfg.maxAwaitMs, this.cfg.maxAwaitMs);
    if (!this.engine.get(id)) return this.get(id);
    const info = await Promise.race([this.engine.await(id, wait), this.#drained.then(() => this.get(id))]);
    return this.#withSubmittedAt(info);
  }

  async cancel(id: string): Promise<JobInfo> {
    const live = this.engine.get(id);
    if (live) {
      if (!terminal(live.state)) this.#userCancelled.add(id);
      const info = this.engine.cancel(id);
      this.log.info({ jobId: id, state: info.state }, 'cancel requested');
      return this.#withSubmittedAt(info);
    }
    const s = await this.store.get(id);
    if (!s) throw new InputError('E_NOT_FOUND', `no job ${id}`);
    if (s.result) return s.result;
    const i = this.#backlog.findIndex((b) => b.id === id);
    if (i >= 0) this.#backlog.splice(i, 1);
    const info: JobInfo = { ...storedInfo(s), state: 'cancelled', finishedAt: Date.now() };
    await this.store.finish(info);
    return info;
  }

  /** A job's events until it is terminal; a job only in the journal gives its state once. */
  async *watch(id: string, signal: AbortSignal): AsyncGenerator<JobEvent> {
    if (!this.engine.get(id)) {
      const info = await this.get(id);
      yield { type: 'state', jobId: id, at: info.finishedAt ?? info.submittedAt, state: info.state, error: info.error };
      return;
    }
    const queue: JobEvent[] = [];
    let wake: (() => void) | undefined;
    const unsubscribe = this.engine.subscribe(id, (e) => {
      queue.push(e);
      wake?.();
    });
    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted) {
        const e = queue.shift();
        if (!e) {
          await new Promise<void>((r) => (wake = r));
          wake = undefined;
          continue;
        }
        yield e;
        if (e.type === 'state' && terminal(e.state)) return;
      }
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Resubmits journaled unfinished jobs (same id and request id); expired ones end as expired. */
  async recover(): Promise<{ resubmitted: number; expired: number; waiting: number }> {
    let expired = 0;
    const now = Date.now();
    for (const s of await this.store.unfinished()) {
      if (s.deadlineMs && s.submittedAt + s.deadlineMs <= now) {
        await this.store.finish({ ...storedInfo(s), state: 'expired', finishedAt: now, error: { code: 'E_TIMEOUT', message: `deadline of ${s.deadlineMs} ms passed while the daemon was down` } });
        expired++;
        continue;
      }
      try {
        // the directories may have changed since it was accepted, and the files with them
        if (s.request) s.request = await this.#confine(s.request);
      } catch (err) {
        const e = err instanceof CuzkError ? err : new CuzkError('E_INTERNAL', String(err));
        this.log.warn({ jobId: s.id, code: e.code, err: e.message }, 'journaled job could not be resubmitted');
        await this.store.finish({ ...storedInfo(s), state: 'failed', finishedAt: now, error: { code: e.code, message: `after a restart: ${e.message}` } });
        continue;
      }
      this.#backlog.push(s);
    }
    const before = this.#backlog.length;
    this.#pumpBacklog();
    return { resubmitted: before - this.#backlog.length, expired, waiting: this.#backlog.length };
  }

  #pumpBacklog(): void {
    while (this.#accepting && this.#backlog.length > 0) {
      const s = this.#backlog[0]!;
      const req = s.request ?? { key: s.key };
      const deadlineMs = s.deadlineMs ? Math.max(1, s.submittedAt + s.deadlineMs - Date.now()) : undefined;
      try {
        this.engine.submit({ ...req, id: s.id, requestId: s.requestId, priority: s.priority, deadlineMs });
      } catch (err) {
        if (err instanceof CuzkError && err.code === 'E_OVERLOADED') return; // retried when a job finishes
        this.#backlog.shift();
        const e = err instanceof CuzkError ? err : new CuzkError('E_INTERNAL', String(err));
        this.log.warn({ jobId: s.id, code: e.code, err: e.message }, 'journaled job could not be resubmitted');
        this.store.finish({ ...storedInfo(s), state: 'failed', finishedAt: Date.now(), error: { code: e.code, message: `after a restart: ${e.message}` } })
          .catch((fe: Error) => this.log.error({ jobId: s.id, err: fe.message }, 'journaling the failure failed'));
        continue;
      }
      this.#backlog.shift();
      this.#submittedAt.set(s.id, s.submittedAt);
      this.#track(s.id);
      this.log.info({ jobId: s.id, requestId: s.requestId }, 'journaled job resubmitted');
    }
  }

  /** Forgets the submission times of jobs older than `before` (their results are purged too). */
  prune(before: number): void {
    for (const [id, at] of this.#submittedAt) if (at < before) this.#submittedAt.delete(id);
  }

  /** Stops intake; results of jobs still finishing are journaled as they arrive. */
  stopIntake(): void {
    this.#accepting = false;
  }

  /** The engine has drained: pending awaits answer with the jobs' current state. */
  drained(): void {
    this.#onDrained();
  }

  /** Waits until the results the engine has reported are journaled. */
  async settle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }
}
