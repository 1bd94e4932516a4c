// Scheduler: the queue state of the engine, with no I/O so it is testable on its own. Four FIFO
// queues (critical > high > normal > low), a bound on queued jobs (a full queue refuses with
// E_OVERLOADED and says how full it is, so callers can back off), and request-id idempotency: the
// same id with the same content is the same job, the same id with other content is refused.
import { createHash } from 'node:crypto';
import { CuzkError, ResourceError } from '../errors.js';
import { PRIORITIES, type JobRequest, type Priority } from './api.js';

export class Scheduler<J extends { id: string; priority: Priority }> {
  readonly #queues: Record<Priority, J[]> = { critical: [], high: [], normal: [], low: [] };
  readonly #byRequest = new Map<string, { jobId: string; digest: string }>();
  readonly maxQueue: number;

  constructor(maxQueue: number) {
    this.maxQueue = maxQueue;
  }

  get size(): number {
    return PRIORITIES.reduce((s, p) => s + this.#queues[p].length, 0);
  }

  depths(): Record<Priority, number> {
    return { critical: this.#queues.critical.length, high: this.#queues.high.length, normal: this.#queues.normal.length, low: this.#queues.low.length };
  }

  /** The job id already holding this request id (same content), undefined for a new request; throws on a conflict. */
  lookup(requestId: string | undefined, digest: string): string | undefined {
    if (requestId === undefined) return undefined;
    const prev = this.#byRequest.get(requestId);
    if (!prev) return undefined;
    if (prev.digest !== digest) {
      throw new CuzkError('E_INVALID_ARG', `request id ${requestId} was already used for a different job (${prev.jobId}); use a new request id`, { details: { jobId: prev.jobId } });
    }
    return prev.jobId;
  }

  /** Throws E_OVERLOADED when full. */
  admit(): void {
    if (this.size >= this.maxQueue) {
      throw new ResourceError('E_OVERLOADED', `the queue is full (${this.size} of ${this.maxQueue} jobs queued): retry later`, { details: { queued: this.depths(), maxQueue: this.maxQueue } });
    }
  }

  push(job: J, requestId?: string, digest?: string): void {
    this.admit();
    this.#queues[job.priority].push(job);
    if (requestId !== undefined && digest !== undefined) this.#byRequest.set(requestId, { jobId: job.id, digest });
  }

  /** Remembers a request id for a job that did not go through push (a replayed job). */
  remember(requestId: string, digest: string, jobId: string): void {
    this.#byRequest.set(requestId, { jobId, digest });
  }

  forget(requestId: string): void {
    this.#byRequest.delete(requestId);
  }

  /** The next job by priority, FIFO within one; `accept` may skip jobs that cannot start now. */
  next(accept: (job: J) => boolean = () => true): J | undefined {
    for (const p of PRIORITIES) {
      const q = this.#queues[p];
      const i = q.findIndex(accept);
      if (i >= 0) return q.splice(i, 1)[0];
    }
    return undefined;
  }

  remove(job: J): boolean {
    const q = this.#queues[job.priority];
    const i = q.indexOf(job);
    if (i < 0) return false;
    q.splice(i, 1);
    return true;
  }

  position(job: J): number | undefined {
    let ahead = 0;
    for (const p of PRIORITIES) {
      const i = this.#queues[p].indexOf(job);
      if (i >= 0) return ahead + i;
      ahead += this.#queues[p].length;
    }
    return undefined;
  }

  all(): J[] {
    return PRIORITIES.flatMap((p) => this.#queues[p]);
  }
}

/** A digest of what a request asks for (key, witnesses or inputs, priority-independent). */
export function requestDigest(req: JobRequest): string {
  const h = createHash('sha256');
  h.update(`key:${req.key}\n`);
  for (const w of req.witnesses ?? []) {
    h.update(`w:${w.byteLength}\n`);
    h.update(w);
  }
  for (const f of req.witnessFiles ?? []) h.update(`f:${f}\n`);
  for (const i of req.inputs ?? []) h.update(`i:${JSON.stringify(i)}\n`);
  h.update(`wasm:${req.wasm ?? ''}`);
  return h.digest('hex');
}
