// The journal's thread (journal-thread.ts): owns the SqliteJobStore, so each commit's fsync
// (synchronous=FULL) is waited for here, not on the daemon's event loop. Calls run one at a time in
// the order they arrive; each is answered { seq, value } or { seq, error } (the error as
// errorToWire describes it). The open is answered as seq 0. The thread ends when journal-thread.ts
// terminates it, after `close` has closed the database.
import { parentPort, workerData } from 'node:worker_threads';
import { errorToWire, type WireError } from '../../errors.js';
import type { JobStore } from './job-store.js';
import { SqliteJobStore } from './sqlite-store.js';

export type JournalMethod = keyof JobStore;

/** Every JobStore method (the type makes a new one a compile error until it is listed). */
const METHODS: Record<JournalMethod, true> = {
  insert: true, remove: true, get: true, byRequestId: true, finish: true, unfinished: true, purge: true, counts: true,
  putKey: true, deleteKey: true, keys: true, writeProblem: true, close: true,
};

export interface JournalCall {
  seq: number;
  method: JournalMethod;
  args: unknown[];
}

export type JournalReply = { seq: number; value: unknown } | { seq: number; error: WireError };

export interface JournalWorkerData {
  file: string;
  /** Tests only, read before each call: 0 runs it, 1 waits until it changes, 2 crashes the thread
   * (an uncaught exception, as a bug in here would). */
  testControl?: Int32Array;
}

const port = parentPort!;
const { file, testControl } = workerData as JournalWorkerData;

function open(): SqliteJobStore | undefined {
  try {
    const s = new SqliteJobStore(file);
    port.postMessage({ seq: 0, value: undefined } satisfies JournalReply);
    return s;
  } catch (err) {
    port.postMessage({ seq: 0, error: errorToWire(err) } satisfies JournalReply);
    return undefined; // the thread waits, its port open, for journal-thread.ts to end it
  }
}

const store = open();

/** Waits while a test holds the thread; never resolves when it crashes the thread. */
async function held(control: Int32Array): Promise<void> {
  for (let v = Atomics.load(control, 0); v !== 0; v = Atomics.load(control, 0)) {
    if (v === 2) {
      setImmediate(() => {
        throw new Error('journal thread: crashed on purpose by a test');
      });
      await new Promise(() => undefined);
    }
    Atomics.wait(control, 0, v);
  }
}

async function answer(store: SqliteJobStore, m: JournalCall): Promise<void> {
  if (testControl) await held(testControl);
  let reply: JournalReply;
  try {
    if (!Object.hasOwn(METHODS, m.method)) throw new TypeError(`journal thread: no method ${String(m.method)}`);
    const fn = store[m.method] as (...a: unknown[]) => Promise<unknown>;
    reply = { seq: m.seq, value: await fn.apply(store, m.args) };
  } catch (err) {
    reply = { seq: m.seq, error: errorToWire(err) };
  }
  try {
    port.postMessage(reply);
  } catch (err) {
    port.postMessage({ seq: m.seq, error: errorToWire(err) } satisfies JournalReply); // a value that cannot be cloned
  }
}

let last = Promise.resolve();
port.on('message', (m: JournalCall) => {
  if (store) last = last.then(() => answer(store, m));
});
