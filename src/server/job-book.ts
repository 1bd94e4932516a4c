// The stand-in engine's job table: jobs by id and request id, one FIFO per priority, waiters and
// event subscribers, totals. A plain state object without I/O (the proving lives in direct-engine.ts).
import { createHash, randomUUID } from 'node:crypto';
import { PRIORITIES, TERMINAL_STATES, type JobEvent, type JobInfo, type JobRequest, type JobState, type Phase, type Priority, type ProofOutput } from '../engine/api.js';

export interface Job {
  info: JobInfo;
  req: JobRequest;
  fingerprint: string;
  /** Int32 flag the native prover polls between phases. */
  cancel: Int32Array;
  /** Why a running job was stopped: its terminal state then. */
  endAs?: 'expired' | 'requeue';
  timer?: NodeJS.Timeout;
  subscribers: Set<(e: JobEvent) => void>;
  waiters: Set<() => void>;
}

export const isTerminal = (s: JobState): boolean => (TERMINAL_STATES as readonly string[]).includes(s);

/** What makes two requests with one requestId the same request: key, inputs, priority, deadline. */
export function jobFingerprint(req: JobRequest): string {
  const h = createHash('sha256');
  h.update(JSON.stringify([req.key, req.wasm ?? '', req.priority ?? 'normal', req.deadlineMs ?? 0, req.inputs ?? null, req.witnesses?.length ?? 0]));
  for (const w of req.witnesses ?? []) h.update(w);
  return h.digest('hex');
}

type Totals = { submitted: number; completed: number; failed: number; cancelled: number; expired: number; proofs: number };

export class JobBook {
  readonly #jobs = new Map<string, Job>();
  readonly #byRequestId = new Map<string, Job>();
  readonly #queues: Record<Priority, Job[]> = { critical: [], high: [], normal: [], low: [] };
  readonly totals: Totals = { submitted: 0, completed: 0, failed: 0, cancelled: 0, expired: 0, proofs: 0 };

  add(req: JobRequest, partitions: number): Job {
    const info: JobInfo = { id: req.id ?? randomUUID(), requestId: req.requestId, key: req.key, priority: req.priority ?? 'normal', state: 'queued', partitions, submittedAt: Date.now(), timings: {} };
    const job: Job = { info, req, fingerprint: jobFingerprint(req), cancel: new Int32Array(new SharedArrayBuffer(4)), subscribers: new Set(), waiters: new Set() };
    this.#jobs.set(info.id, job);
    if (req.requestId !== undefined) this.#byRequestId.set(req.requestId, job);
    this.#queues[info.priority].push(job);
    this.totals.submitted++;
    this.#emit(job, { type: 'state', jobId: info.id, at: info.submittedAt, state: 'queued' });
    return job;
  }

  get(id: string): Job | undefined {
    return this.#jobs.get(id);
  }

  byRequestId(requestId: string): Job | undefined {
    return this.#byRequestId.get(requestId);
  }

  queued(): Job[] {
    return PRIORITIES.flatMap((p) => this.#queues[p]);
  }

  queuedCount(): number {
    return PRIORITIES.reduce((s, p) => s + this.#queues[p].length, 0);
  }

  queueLengths(): Record<Priority, number> {
    return { critical: this.#queues.critical.length, high: this.#queues.high.length, normal: this.#queues.normal.length, low: this.#queues.low.length };
  }

  usersOf(key: string): number {
    let n = 0;
    for (const j of this.#jobs.values()) if (j.info.key === key && !isTerminal(j.info.state)) n++;
    return n;
  }

  /** The next job in priority order, taken off its queue. */
  next(): Job | undefined {
    for (const p of PRIORITIES) {
      const job = this.#queues[p].shift();
      if (job) return job;
    }
    return undefined;
  }

  snapshot(job: Job): JobInfo {
    const info: JobInfo = { ...job.info, timings: { ...job.info.timings } };
    if (info.state === 'queued') info.queuePosition = this.#queues[info.priority].indexOf(job);
    return info;
  }

  start(job: Job, device: string): void {
    job.info.state = 'running';
    job.info.startedAt = Date.now();
    job.info.device = device;
    job.info.timings.queue = job.info.startedAt - job.info.submittedAt;
    this.#emit(job, { type: 'state', jobId: job.info.id, at: job.info.startedAt, state: 'running' });
  }

  /** Records `ms` (default: since `t0`) for a phase; returns now, the next phase's t0. */
  phase(job: Job, phase: Phase, partition: number, t0: number, ms?: number): number {
    const now = performance.now();
    const took = ms ?? now - t0;
    job.info.timings[phase] = (job.info.timings[phase] ?? 0) + took;
    this.#emit(job, { type: 'phase', jobId: job.info.id, at: Date.now(), phase, partition, ms: took });
    return now;
  }

  finish(job: Job, state: JobState, error?: { code: string; message: string }, proofs?: ProofOutput[]): void {
    if (isTerminal(job.info.state)) return;
    const q = this.#queues[job.info.priority];
    const i = q.indexOf(job);
    if (i >= 0) q.splice(i, 1);
    clearTimeout(job.timer);
    Object.assign(job.info, { state, finishedAt: Date.now(), error, proofs });
    this.totals[state as 'completed' | 'failed' | 'cancelled' | 'expired']++;
    if (proofs) this.totals.proofs += proofs.length;
    job.req = { ...job.req, witnesses: undefined, inputs: undefined }; // the witness bytes are not needed any more
    this.#emit(job, { type: 'state', jobId: job.info.id, at: job.info.finishedAt!, state, error });
    for (const w of job.waiters) w();
    job.waiters.clear();
    job.subscribers.clear();
  }

  await(job: Job, timeoutMs?: number): Promise<JobInfo> {
    if (isTerminal(job.info.state) || timeoutMs === 0) return Promise.resolve(this.snapshot(job));
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        job.waiters.delete(done);
        resolve(this.snapshot(job));
      };
      job.waiters.add(done);
      if (timeoutMs !== undefined) timer = setTimeout(done, timeoutMs);
    });
  }

  subscribe(job: Job, fn: (e: JobEvent) => void): () => void {
    if (isTerminal(job.info.state)) {
      fn({ type: 'state', jobId: job.info.id, at: job.info.finishedAt ?? Date.now(), state: job.info.state, error: job.info.error });
      return () => undefined;
    }
    job.subscribers.add(fn);
    return () => job.subscribers.delete(fn);
  }

  #emit(job: Job, e: JobEvent): void {
    for (const fn of job.subscribers) fn(e);
  }
}
