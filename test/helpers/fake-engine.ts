// A ProvingEngine that proves nothing: jobs wait in `jobs` until the test ends them (`finish`), so a
// runner's state can be driven step by step without a prover (TGI's scheduler tests). It refuses
// submits past `maxQueue` (E_OVERLOADED) and requests it is told to refuse (`refuse`), as the engine does.
import { CuzkError, ResourceError } from '../../src/errors.js';
import { TERMINAL_STATES, type CheckedJob, type JobEvent, type JobInfo, type JobRequest, type JobState, type KeyInfo, type KnownParts, type ProvingEngine } from '../../src/engine/api.js';

interface FakeJob {
  info: JobInfo;
  request: JobRequest;
  settle: () => void;
  settled: Promise<void>;
  listeners: Set<(e: JobEvent) => void>;
}

export class FakeEngine implements ProvingEngine {
  readonly jobs = new Map<string, FakeJob>();
  readonly submitted: JobRequest[] = [];
  /** What each submit was told of its key and witnesses (KnownParts), in order. */
  readonly known: (KnownParts | undefined)[] = [];
  maxQueue = Infinity;
  refuse: CuzkError | undefined;
  keys: KeyInfo[] = [];

  /** No check: the runners' requests as they made them, frozen. */
  check(req: JobRequest): CheckedJob {
    return Object.freeze({ ...req, priority: req.priority ?? 'normal', partitions: (req.witnessFiles ?? req.witnesses ?? req.inputs ?? []).length });
  }

  submit(req: JobRequest, known?: KnownParts): JobInfo {
    if (this.refuse) throw this.refuse;
    const open = [...this.jobs.values()].filter((j) => !TERMINAL_STATES.includes(j.info.state as never)).length;
    if (open >= this.maxQueue) throw new ResourceError('E_OVERLOADED', 'queue full');
    let settle!: () => void;
    const settled = new Promise<void>((r) => (settle = r));
    const info: JobInfo = { id: req.id!, key: req.key, priority: req.priority ?? 'normal', state: 'queued', partitions: (req.witnessFiles ?? req.witnesses ?? req.inputs ?? []).length, submittedAt: Date.now(), timings: {} };
    this.jobs.set(info.id, { info, request: req, settle, settled, listeners: new Set() });
    this.submitted.push(req);
    this.known.push(known);
    return { ...info };
  }

  /** Moves a job to `state` (a terminal one settles its awaits), telling its subscribers. */
  finish(id: string, state: JobState, error?: { code: string; message: string }): void {
    const j = this.#job(id);
    j.info = { ...j.info, state, error, finishedAt: TERMINAL_STATES.includes(state as never) ? Date.now() : undefined };
    for (const fn of j.listeners) fn({ type: 'state', jobId: id, at: Date.now(), state, error });
    if (TERMINAL_STATES.includes(state as never)) j.settle();
  }

  #job(id: string): FakeJob {
    const j = this.jobs.get(id);
    if (!j) throw new CuzkError('E_NOT_FOUND', `no job ${id}`);
    return j;
  }

  async await(id: string, timeoutMs?: number): Promise<JobInfo> {
    const j = this.#job(id);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([j.settled, ...(timeoutMs === undefined ? [] : [new Promise((r) => (timer = setTimeout(r, timeoutMs)))])]);
    clearTimeout(timer);
    return { ...j.info };
  }

  get(id: string): JobInfo | undefined {
    const j = this.jobs.get(id);
    return j && { ...j.info };
  }

  cancel(id: string): JobInfo {
    const j = this.#job(id);
    if (!TERMINAL_STATES.includes(j.info.state as never)) this.finish(id, 'cancelled');
    return { ...j.info };
  }

  subscribe(id: string, fn: (e: JobEvent) => void): () => void {
    const j = this.#job(id);
    j.listeners.add(fn);
    return () => j.listeners.delete(fn);
  }

  listKeys(): KeyInfo[] {
    return this.keys;
  }

  pause(): void {}
  resume(): void {}
  async growPool(): Promise<void> {}
  async drain(): Promise<{ unfinished: JobInfo[] }> {
    return { unfinished: [] };
  }
  async close(): Promise<void> {}
  loadKey(): Promise<KeyInfo> {
    throw new Error('FakeEngine: loadKey is not used by the runners');
  }
  evictKey(): void {}
  status(): never {
    throw new Error('FakeEngine: status is not used by the runners');
  }
  async metricsText(): Promise<string> {
    return '';
  }
  trace(): string {
    return '{}';
  }
}
