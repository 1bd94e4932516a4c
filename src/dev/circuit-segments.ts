// The segments of a dev circuit (gadgets.ts), made on worker threads and handed to `consume` in order, so a
// 2^26-constraint circuit is made at the cores' pace instead of one thread's (~2.5 µs a constraint in
// BigInt). At most `2 × workers` segments are in flight (each ~13 MB at 2^16 constraints), so memory stays
// flat whatever the circuit's size; the consumer runs on this thread while the workers make the next ones.

import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { InternalError, errorMessage } from '../errors.js';
import { startModuleWorker } from '../engine/module-worker.js';
import type { Segment } from './circuit-writer.js';
import { generateSegment, segmentCount, type CircuitSpec } from './gadgets.js';

export type ProgressFn = (phase: string, done: number, total: number) => void;

/** What the segments of a circuit add up to, once all are consumed. */
export interface CircuitTally {
  nBinary: number;
  /** The public output (wire 1), from the last segment. */
  output: bigint;
}

export interface SegmentOptions {
  /** Worker threads (default: the cores but one, at most the segments but one); 0 makes them on this thread. */
  readonly workers?: number;
  readonly onProgress?: ProgressFn;
}

/** Calls `consume` with every segment of `spec` in order (awaiting it); returns what they add up to. */
export async function forEachSegment(spec: CircuitSpec, consume: (seg: Segment) => void | Promise<void>, opts: SegmentOptions = {}): Promise<CircuitTally> {
  const n = segmentCount(spec);
  const workers = Math.min(opts.workers ?? Math.max(1, availableParallelism() - 1), n - 1);
  const tally: CircuitTally = { nBinary: 0, output: 0n };
  let constraints = 0;
  const take = async (seg: Segment) => {
    await consume(seg);
    tally.nBinary += seg.nBinary;
    if (seg.output !== undefined) tally.output = seg.output;
    constraints += seg.nConstraints;
    opts.onProgress?.('constraints', constraints, spec.constraints);
  };
  if (workers <= 0) {
    for (let k = 0; k < n; k++) await take(generateSegment(spec, k));
  } else {
    await inWorkers(spec, n, workers, take);
  }
  return tally;
}

async function inWorkers(spec: CircuitSpec, n: number, count: number, take: (seg: Segment) => Promise<void>): Promise<void> {
  const pool: Worker[] = [];
  const ready = new Map<number, Segment>();
  let wake: (() => void) | undefined;
  let failure: Error | undefined;
  let next = 0;
  let consumed = 0;
  const fail = (err: Error) => {
    failure ??= err;
    wake?.();
  };
  // a worker gets its next segment when it hands one back, while fewer than 2 × count wait to be consumed
  const feed = (w: Worker) => {
    if (next < n && next < consumed + 2 * count) w.postMessage(next++);
    else idle.push(w);
  };
  const idle: Worker[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const w = startModuleWorker(import.meta.url, 'segment-worker', { workerData: spec });
      pool.push(w);
      w.on('message', (seg: Segment) => {
        ready.set(seg.index, seg);
        wake?.();
        feed(w);
      });
      w.on('error', (err) => fail(new InternalError('E_INTERNAL', `dev circuit segment worker: ${errorMessage(err)}`)));
      w.on('exit', (code) => { if (consumed < n) fail(new InternalError('E_INTERNAL', `dev circuit segment worker exited (${code}) early`)); });
      feed(w);
    }
    while (consumed < n) {
      const seg = ready.get(consumed);
      if (failure) throw failure;
      if (!seg) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      ready.delete(consumed);
      await take(seg);
      consumed++;
      while (idle.length > 0 && next < n && next < consumed + 2 * count) feed(idle.pop()!);
    }
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
}
