// The journal off the event loop: a JobStore whose calls run on a thread of their own
// (journal-worker.ts, which owns the SqliteJobStore), so the fsync each commit waits for
// (synchronous=FULL: a job is durable before it is acknowledged) blocks no upload or RPC. (H200,
// `cuzk serve` at 15 proofs/s: 2.9 s of 31 s of the main thread was SQLite's insert and finish.)
// Calls are answered in order. Errors keep their class, code, message and retryable flag
// (errorToWire); if the thread dies, every pending and later call fails with E_UNAVAILABLE naming
// the journal, and writeProblem() says so (/readyz 503), never a hang.
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../engine/module-worker.js';
import { errorFromWire, ResourceError } from '../../errors.js';
import type { JobInfo } from '../../engine/api.js';
import type { InsertResult, JobStore, StoredJob } from './job-store.js';
import type { JournalCall, JournalMethod, JournalReply, JournalWorkerData } from './journal-worker.js';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** The journal at `file` opened on its thread; rejects as SqliteJobStore's constructor throws
 * (E_INVALID_ARG naming the file and the fault). `testControl`: see JournalWorkerData. */
export async function openJournalThread(file: string, opts: { testControl?: Int32Array } = {}): Promise<JobStore> {
  const data: JournalWorkerData = { file, testControl: opts.testControl };
  const thread = new JournalThread(file, startModuleWorker(import.meta.url, 'journal-worker', { workerData: data }));
  try {
    await thread.opened;
  } catch (err) {
    await thread.close();
    throw err;
  }
  return thread;
}

class JournalThread implements JobStore {
  readonly opened: Promise<unknown>;
  readonly #pending = new Map<number, Pending>();
  #seq = 0;
  /** Why calls fail now: the thread stopped, or the journal was closed. */
  #gone: string | undefined;
  #crash: Error | undefined;
  #isOpen = false;
  #died = false;
  #closing: Promise<void> | undefined;

  constructor(
    private readonly file: string,
    private readonly worker: Worker,
  ) {
    this.opened = new Promise((resolve, reject) => this.#pending.set(0, { resolve, reject })).then(() => (this.#isOpen = true));
    worker.on('message', (r: JournalReply) => {
      const p = this.#pending.get(r.seq);
      if (!p) return;
      this.#pending.delete(r.seq);
      if (this.#pending.size === 0) worker.unref(); // an idle journal never keeps the process up
      if ('error' in r) p.reject(errorFromWire(r.error));
      else p.resolve(r.value);
    });
    worker.on('error', (err) => (this.#crash = err));
    worker.on('exit', (code) => this.#stopped(code));
  }

  insert(job: StoredJob): Promise<InsertResult> {
    return this.#call('insert', [job]);
  }
  remove(id: string): Promise<void> {
    return this.#call('remove', [id]);
  }
  get(id: string): Promise<StoredJob | undefined> {
    return this.#call('get', [id]);
  }
  byRequestId(requestId: string): Promise<StoredJob | undefined> {
    return this.#call('byRequestId', [requestId]);
  }
  finish(info: JobInfo): Promise<void> {
    return this.#call('finish', [info]);
  }
  unfinished(): Promise<StoredJob[]> {
    return this.#call('unfinished', []);
  }
  purge(before: number): Promise<number> {
    return this.#call('purge', [before]);
  }
  counts(): Promise<Record<string, number>> {
    return this.#call('counts', []);
  }
  putKey(id: string, keyPath: string): Promise<void> {
    return this.#call('putKey', [id, keyPath]);
  }
  deleteKey(id: string): Promise<void> {
    return this.#call('deleteKey', [id]);
  }
  keys(): Promise<{ id: string; path: string }[]> {
    return this.#call('keys', []);
  }

  /** Also the reason when the thread is gone (readiness never rejects or waits on a dead thread). */
  async writeProblem(): Promise<string | undefined> {
    if (this.#gone) return this.#gone;
    return this.#call<string | undefined>('writeProblem', []).catch((err: Error) => err.message);
  }

  /** Closes the database on its thread, then ends the thread; idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const closed = this.#gone || !this.#isOpen ? undefined : this.#call('close', []);
    this.#gone ??= `journal ${this.file}: closed`; // calls after close() fail at once
    let failure: unknown;
    await closed?.catch((err: unknown) => {
      if (!this.#died) failure = err; // a dead thread has nothing left to close
    });
    await this.worker.terminate();
    if (failure) throw failure;
  }

  #call<T>(method: JournalMethod, args: unknown[]): Promise<T> {
    if (this.#gone) return Promise.reject(this.#unavailable());
    const seq = ++this.#seq;
    return new Promise<T>((resolve, reject) => {
      this.worker.postMessage({ seq, method, args } satisfies JournalCall); // throws (DataCloneError) before anything is pending
      this.#pending.set(seq, { resolve: resolve as (v: unknown) => void, reject });
      if (this.#pending.size === 1) this.worker.ref(); // a commit in flight is waited for
    });
  }

  #stopped(code: number): void {
    this.#gone ??= `journal ${this.file}: the journal thread stopped (${this.#crash ? `crashed: ${this.#crash.message}` : `exit code ${code}`}): nothing more can be journaled; restart the daemon`;
    this.#died = true;
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const p of pending) p.reject(this.#unavailable());
  }

  #unavailable(): ResourceError {
    return new ResourceError('E_UNAVAILABLE', this.#gone!);
  }
}
