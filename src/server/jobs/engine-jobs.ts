// The jobs this daemon's engine runs, in either mode: handed to it under their journal ids, what the
// journal knows and the engine does not (the journaled submission time, the request id, the spool
// files) kept beside them, and each result handed to the runner to journal (`journal`) as the engine
// reports it; the spool files go once it is journaled. A job the engine gives back cancelled while
// the daemon stops (not a user's cancel) stays queued in the journal.
import { TERMINAL_STATES, type JobEvent, type JobInfo, type JobRequest, type ProvingEngine } from '../../engine/api.js';
import { errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { WitnessSpool, SpooledWitness } from '../intake/spool.js';
import type { StoredJob } from '../journal/job-store.js';

export const isTerminal = (s: string) => (TERMINAL_STATES as readonly string[]).includes(s);

/** How a runner journals a result: resolves true when it is recorded (the spool files can go), false
 * when the result is not this run's to record (a fleet's late or superseded run). */
export type JournalResult = (info: JobInfo) => Promise<boolean>;

/** The engine's request for a journaled job: no request id (the journal owns those), a deadline that
 * counts from the journaled submission time. */
export function engineRequest(s: StoredJob, now = Date.now()): JobRequest {
  const r = s.request ?? {};
  const req: JobRequest = { id: s.id, key: s.key, priority: s.priority };
  if (r.witnessFiles) req.witnessFiles = r.witnessFiles.map((f) => f.path);
  else if (r.witnesses) req.witnesses = r.witnesses; // journaled before the spool existed
  else {
    req.inputs = r.inputs;
    req.wasm = r.wasm;
  }
  if (s.deadlineMs) req.deadlineMs = Math.max(1, s.submittedAt + s.deadlineMs - now);
  return req;
}

export class EngineJobs {
  #accepting = true;
  readonly #userCancelled = new Set<string>();
  readonly #meta = new Map<string, { submittedAt: number; requestId?: string; files?: SpooledWitness[] }>();
  readonly #pending = new Set<Promise<void>>();
  #onDrained!: () => void;
  /** Resolves once the engine has drained (pending awaits then answer with the current state). */
  readonly untilDrained = new Promise<void>((r) => (this.#onDrained = r));
  /** Called after each result is journaled (the local runner refills the engine from its backlog). */
  afterResult: () => void = () => {};

  constructor(
    readonly engine: ProvingEngine,
    private readonly spool: Pick<WitnessSpool, 'release'>,
    private readonly journal: JournalResult,
    readonly log: Logger,
  ) {}

  get accepting(): boolean {
    return this.#accepting;
  }

  /** Hands a journaled job to the engine (throws what engine.submit throws: nothing is kept then). */
  start(s: StoredJob): JobInfo {
    const job = this.engine.submit(engineRequest(s));
    this.#meta.set(s.id, { submittedAt: s.submittedAt, requestId: s.requestId, files: s.request?.witnessFiles });
    const p = this.engine.await(s.id).then((info) => this.#record(info)).catch((err: unknown) => this.log.error({ jobId: s.id, err: errorMessage(err) }, 'journaling the result failed'));
    this.track(p);
    return this.withMeta(job);
  }

  /** Work the daemon must wait for before it exits (settle()). */
  track(p: Promise<void>): void {
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
      if (!(await this.journal(this.withMeta(info)))) return;
    } catch (err) {
      this.log.error({ jobId: info.id, state: info.state, err: errorMessage(err) }, 'journaling the result failed: the job runs again after a restart');
      return; // its spool files stay for that run
    }
    await this.spool.release(this.#meta.get(info.id)?.files);
    const fields = { jobId: info.id, state: info.state, ms: (info.finishedAt ?? 0) - (info.startedAt ?? info.submittedAt), device: info.device, error: info.error };
    if (info.state === 'failed') this.log.warn(fields, 'job failed');
    else this.log.info(fields, `job ${info.state}`);
    this.afterResult();
  }

  /** The engine's view of a job it holds, with the journal's submission time and request id. */
  get(id: string): JobInfo | undefined {
    const live = this.engine.get(id);
    return live && this.withMeta(live);
  }

  withMeta(info: JobInfo): JobInfo {
    const m = this.#meta.get(info.id);
    if (!m) return info;
    const out = { ...info, submittedAt: m.submittedAt };
    if (m.requestId !== undefined) out.requestId = m.requestId;
    return out;
  }

  /** Terminal, or current after `waitMs`, or current once the engine has drained. */
  async await(id: string, waitMs: number): Promise<JobInfo> {
    const info = await Promise.race([this.engine.await(id, waitMs), this.untilDrained.then(() => this.engine.get(id) ?? this.engine.await(id, 0))]);
    return this.withMeta(info);
  }

  /** A cancel asked of this daemon; `userCancel` false for a run dropped for another reason (its
   * result is then not the user's cancel). */
  cancel(id: string, userCancel = true): JobInfo {
    const live = this.engine.get(id);
    if (userCancel && live && !isTerminal(live.state)) this.#userCancelled.add(id);
    return this.withMeta(this.engine.cancel(id));
  }

  /** A job's events until it is terminal or `signal` aborts. */
  async *watch(id: string, signal: AbortSignal): AsyncGenerator<JobEvent> {
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
        if (e.type === 'state' && isTerminal(e.state)) return;
      }
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Forgets what it kept of jobs submitted before `before` (their results are purged too). */
  prune(before: number): void {
    for (const [id, m] of this.#meta) if (m.submittedAt < before) this.#meta.delete(id);
  }

  stopIntake(): void {
    this.#accepting = false;
  }

  drained(): void {
    this.#onDrained();
  }

  /** Waits until the results the engine has reported are journaled. */
  async settle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }
}
