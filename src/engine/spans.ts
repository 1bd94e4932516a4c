// Spans: every phase of every proof as a timed interval on a track (the queue, the CPU synthesis
// lane, each device), with the bytes it moved. The recorder keeps a bounded ring of recent spans
// for the trace file and hands each finished span to listeners (metrics, job timings, progress
// events). The trace is Chrome's JSON trace-event format ("X" complete events, one thread per
// track), which Perfetto and chrome://tracing open.
import { writeFileSync } from 'node:fs';
import type { Phase } from './api.js';

export interface Span {
  phase: Phase;
  jobId: string;
  partition: number;
  /** 'queue', 'witness' (computed), 'read' (a witness into its buffer), 'synthesis' (phase 1, CPU threads), 'cpu' or 'gpu:N' (phase 2 on that lane), 'finalize' */
  track: string;
  /** performance.now() ms */
  start: number;
  dur: number;
  bytes?: number;
  args?: Record<string, number | string>;
}

type Listener = (s: Span) => void;

export class SpanRecorder {
  // a true ring (head index, no shift()): a daemon running for days holds at most #cap spans, and
  // recording one stays O(1) when the ring is full
  readonly #ring: Span[] = [];
  #head = 0;
  readonly #cap: number;
  readonly #listeners: Listener[] = [];
  readonly origin = performance.now();
  readonly originEpochMs = Date.now();

  constructor(capacity = 200_000) {
    this.#cap = capacity;
  }

  onSpan(fn: Listener): void {
    this.#listeners.push(fn);
  }

  record(s: Span): void {
    if (this.#ring.length < this.#cap) this.#ring.push(s);
    else {
      this.#ring[this.#head] = s;
      this.#head = (this.#head + 1) % this.#cap;
    }
    for (const fn of this.#listeners) fn(s);
  }

  /** Times `fn` as a span that ends when it settles (also on failure). */
  async time<T>(base: Omit<Span, 'start' | 'dur'>, fn: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await fn();
    } finally {
      this.record({ ...base, start, dur: performance.now() - start });
    }
  }

  /** The recorded spans, oldest recorded first. */
  spans(): readonly Span[] {
    return this.#head === 0 ? this.#ring : [...this.#ring.slice(this.#head), ...this.#ring.slice(0, this.#head)];
  }

  /** Chrome trace JSON of the recorded spans (only those that started at or after `sincePerf`, a
   * performance.now() time, when given); tracks become named threads of one process. */
  traceJson(sincePerf?: number): string {
    const ring = sincePerf === undefined ? this.spans() : this.spans().filter((s) => s.start >= sincePerf);
    const tids = new Map<string, number>();
    const tid = (track: string) => {
      let t = tids.get(track);
      if (t === undefined) tids.set(track, (t = tids.size + 1));
      return t;
    };
    const events: object[] = ring.map((s) => ({
      name: s.phase,
      cat: s.track.startsWith('gpu') ? 'gpu' : s.track,
      ph: 'X',
      pid: 1,
      tid: tid(s.track),
      // end rounded on its own, so spans laid end to end stay end to end
      ts: Math.round((s.start - this.origin) * 1000),
      dur: Math.max(1, Math.round((s.start + s.dur - this.origin) * 1000) - Math.round((s.start - this.origin) * 1000)),
      args: { job: s.jobId, partition: s.partition, ...(s.bytes !== undefined ? { bytes: s.bytes } : {}), ...s.args },
    }));
    // queue waits overlap each other by nature: async events, one row per job, instead of X slices
    for (let i = 0; i < ring.length; i++) {
      const s = ring[i]!;
      if (s.track !== 'queue') continue;
      const e = events[i] as { ts: number; dur: number; tid: number };
      const common = { name: 'queue', cat: 'queue', id: s.jobId, pid: 1, tid: e.tid, args: { job: s.jobId } };
      events[i] = { ...common, ph: 'b', ts: e.ts };
      events.push({ ...common, ph: 'e', ts: e.ts + e.dur });
    }
    for (const [track, t] of tids) events.push({ name: 'thread_name', ph: 'M', pid: 1, tid: t, args: { name: track } });
    events.push({ name: 'process_name', ph: 'M', pid: 1, tid: 0, args: { name: 'cuzk engine' } });
    return JSON.stringify({ traceEvents: events, displayTimeUnit: 'ms', otherData: { startedAt: new Date(this.originEpochMs).toISOString() } });
  }

  writeTrace(file: string): void {
    writeFileSync(file, this.traceJson());
  }
}
