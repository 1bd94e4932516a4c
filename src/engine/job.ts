// Job: the engine's record of one accepted request, from queued to a terminal state. Owns the
// cancel flag the native calls poll between phases and the AbortSignal that memory waits honour;
// notifies awaiters and subscribers exactly once per state change.
import { CuzkError } from '../errors.js';
import {
  TERMINAL_STATES, type JobEvent, type JobInfo, type JobRequest, type JobState, type Phase, type PhaseTimings,
  type Priority, type ProofOutput,
} from './api.js';
import type { CheckedParts } from './checked-job.js';

export class Job {
  readonly id: string;
  readonly request: JobRequest;
  readonly requestId?: string;
  readonly priority: Priority;
  readonly partitions: number;
  readonly submittedAt = Date.now();
  /** performance.now() at submission, for the queue span */
  readonly submittedPerf = performance.now();
  /** Polled by the native core between phases (1 = stop). */
  readonly cancelFlag = new Int32Array(1);
  readonly abort = new AbortController();
  /** Settles once the partition that took the last turn (takeReadTurn) has queued its witness read. */
  #readTurn: Promise<void> = Promise.resolve();
  state: JobState = 'queued';
  startedAt?: number;
  finishedAt?: number;
  error?: { code: string; message: string };
  proofs?: ProofOutput[];
  device?: string;
  readonly timings: PhaseTimings = {};
  /** Set by cancel()/expiry: the state the job ends in once its running phases stop. */
  stopAs?: 'cancelled' | 'expired';
  deadlineTimer?: NodeJS.Timeout;
  readonly #listeners = new Set<(e: JobEvent) => void>();
  readonly #settled: Promise<void>;
  #resolveSettled!: () => void;

  constructor(
    id: string,
    request: JobRequest,
    partitions: number,
    /** What the engine's check learnt (checked-job.ts): the key entry, each witness's layout. */
    readonly checked: CheckedParts,
  ) {
    this.id = id;
    this.request = request;
    this.requestId = request.requestId;
    this.priority = request.priority ?? 'normal';
    this.partitions = partitions;
    this.#settled = new Promise((r) => (this.#resolveSettled = r));
  }

  get terminal(): boolean {
    return (TERMINAL_STATES as readonly string[]).includes(this.state);
  }

  /** Resolves when the job reaches a terminal state. */
  get settled(): Promise<void> {
    return this.#settled;
  }

  /** Asks running native phases and memory waits to stop; the job ends as `as`. */
  stop(as: 'cancelled' | 'expired'): void {
    this.stopAs ??= as;
    this.halt();
  }

  /** Stops the job's remaining work without deciding how it ends (a partition failed). */
  halt(): void {
    this.cancelFlag[0] = 1;
    if (!this.abort.signal.aborted) this.abort.abort(new CuzkError('E_CANCELLED', `job ${this.id} stopped`));
  }

  /** A partition's place among this job's witness reads, taken in the order its partitions start:
   * `prior` settles once the partition before it queued its read (or gave up), `done` says this one
   * has (call it on every road: idempotent). */
  takeReadTurn(): { prior: Promise<void>; done: () => void } {
    const prior = this.#readTurn;
    let done!: () => void;
    this.#readTurn = new Promise<void>((resolve) => (done = resolve));
    return { prior, done };
  }

  addPhase(phase: Phase, ms: number, partition: number, bytes?: number): void {
    this.timings[phase] = (this.timings[phase] ?? 0) + ms;
    this.emit({ type: 'phase', jobId: this.id, at: Date.now(), phase, partition, ms, bytes });
  }

  setState(state: JobState, error?: { code: string; message: string }): void {
    if (this.terminal) return;
    this.state = state;
    if (state === 'running') this.startedAt = Date.now();
    if (error) this.error = error;
    if (this.terminal) {
      this.finishedAt = Date.now();
      if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    }
    this.emit({ type: 'state', jobId: this.id, at: Date.now(), state, error });
    if (this.terminal) {
      this.#listeners.clear();
      this.#resolveSettled();
    }
  }

  subscribe(fn: (e: JobEvent) => void): () => void {
    if (this.terminal) {
      fn({ type: 'state', jobId: this.id, at: this.finishedAt ?? Date.now(), state: this.state, error: this.error });
      return () => undefined;
    }
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  emit(e: JobEvent): void {
    for (const fn of this.#listeners) {
      try {
        fn(e);
      } catch {
        // a subscriber's failure is its own; the job goes on
      }
    }
  }

  info(queuePosition?: number): JobInfo {
    return {
      id: this.id,
      requestId: this.requestId,
      key: this.request.key,
      priority: this.priority,
      state: this.state,
      partitions: this.partitions,
      submittedAt: this.submittedAt,
      startedAt: this.startedAt,
      finishedAt: this.finishedAt,
      queuePosition,
      error: this.error,
      proofs: this.proofs,
      timings: { ...this.timings },
      device: this.device,
    };
  }
}
