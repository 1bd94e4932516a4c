// The idle gaps of a device lane and what the rest of the pipeline was doing during each: the lane
// waits for the job nearest to it. Per instant, in that order: a job uploading to this lane
// ('upload'), a witness being read into its buffer ('read'), a job past synthesis but not yet on a
// device ('untraced': budget, key-upload and buffer waits are not spans, so the trace cannot say
// which), synthesis running ('synthesis'), witness generation running ('witness'), a dispatched job
// in none of those ('untraced': opening its witness file, waiting for pinned buffers), jobs only in
// the scheduler's queue ('dispatch'),
// else nothing submitted that still needs a device ('queue'). A memory wait is never inferred: the
// engine records none.
import { boundariesWithin, complement, contains, union, type Interval } from './intervals.js';
import type { TraceSpan } from './trace-read.js';

export const CAUSES = ['queue', 'synthesis', 'upload', 'read', 'witness', 'dispatch', 'untraced'] as const;
export type Cause = (typeof CAUSES)[number];

export const CAUSE_TEXT: Record<Cause, string> = {
  queue: 'waiting for the queue (no job waiting for a device)',
  synthesis: 'waiting for synthesis',
  upload: 'waiting for upload',
  read: 'waiting for a witness read into its buffer',
  witness: 'waiting for witness generation',
  dispatch: 'waiting for dispatch (jobs queued, none started)',
  untraced: 'a job between traced stages (memory, key or buffer waits are not in the trace)',
};

export interface IdleGap {
  lane: string;
  start: number;
  dur: number;
  /** the cause that covers most of the gap */
  cause: Cause;
  byCause: Partial<Record<Cause, number>>;
}

export const isDeviceLane = (track: string): boolean => track === 'cpu' || /^gpu:\d+$/.test(track);

/** The pipeline's state sets, computed once per trace. */
export interface PipelineState {
  synthesis: Interval[];
  witness: Interval[];
  /** witnesses being read into their buffers ('read' spans) */
  read: Interval[];
  queued: Interval[];
  /** some job submitted and not yet on a device */
  awaiting: Interval[];
  /** some job out of the scheduler's queue and not yet on a device */
  dispatched: Interval[];
  /** some job past synthesis and not yet on a device */
  ready: Interval[];
  /** per copy track ('gpu:0:copy'): its uploads */
  uploads: Map<string, Interval[]>;
}

// A job's partitions (args.partition; -1 for the job's own spans, its queue wait) each reach a device
// on their own: per partition, it awaits a device from the job's submit until its first device span,
// so a partition held back while its siblings prove still counts as waiting for one.
const partitionOf = (s: TraceSpan): number => (typeof s.args.partition === 'number' ? s.args.partition : -1);

export function pipelineState(spans: readonly TraceSpan[]): PipelineState {
  const byJob = new Map<string, TraceSpan[]>();
  for (const s of spans) if (s.job !== undefined) (byJob.get(s.job) ?? byJob.set(s.job, []).get(s.job)!).push(s);
  const awaiting: Interval[] = [];
  const ready: Interval[] = [];
  const dispatched: Interval[] = [];
  for (const js of byJob.values()) {
    const submit = Math.min(...js.map((s) => s.start));
    const queued = js.filter((s) => s.track === 'queue').map((s) => s.end);
    const parts = new Map<number, TraceSpan[]>();
    for (const s of js) if (partitionOf(s) >= 0) (parts.get(partitionOf(s)) ?? parts.set(partitionOf(s), []).get(partitionOf(s))!).push(s);
    for (const ps of parts.size > 0 ? parts.values() : [js]) {
      const onDevice = ps.filter((s) => isDeviceLane(s.track)).map((s) => s.start);
      const devStart = onDevice.length ? Math.min(...onDevice) : Math.max(...ps.map((s) => s.end));
      awaiting.push([submit, devStart]);
      dispatched.push([queued.length ? Math.max(...queued) : submit, devStart]);
      const synth = ps.filter((s) => s.name === 'synthesis' && s.track === 'synthesis').map((s) => s.end); // CPU phase 1 only: a GPU's is on its lane
      if (synth.length) ready.push([Math.max(...synth), devStart]);
    }
  }
  const on = (pred: (s: TraceSpan) => boolean) => union(spans.filter(pred).map((s) => [s.start, s.end] as const));
  const uploads = new Map<string, Interval[]>();
  for (const track of new Set(spans.map((s) => s.track))) {
    if (track.endsWith(':copy')) uploads.set(track, on((s) => s.track === track));
  }
  return {
    synthesis: on((s) => s.track === 'synthesis'),
    witness: on((s) => s.track === 'witness'),
    read: on((s) => s.track === 'read'),
    queued: on((s) => s.track === 'queue'),
    awaiting: union(awaiting),
    dispatched: union(dispatched),
    ready: union(ready),
    uploads,
  };
}

function causeAt(st: PipelineState, upload: readonly Interval[], t: number): Cause {
  if (!contains(st.awaiting, t)) return 'queue';
  if (contains(upload, t)) return 'upload';
  if (contains(st.read, t)) return 'read';
  if (contains(st.ready, t)) return 'untraced';
  if (contains(st.synthesis, t)) return 'synthesis';
  if (contains(st.witness, t)) return 'witness';
  if (contains(st.dispatched, t)) return 'untraced';
  if (contains(st.queued, t)) return 'dispatch';
  return 'untraced';
}

/** Every hole in `busy` (the lane's merged spans) inside the window, with its causes. */
export function idleGaps(lane: string, busy: readonly Interval[], window: Interval, st: PipelineState): IdleGap[] {
  const upload = st.uploads.get(`${lane}:copy`) ?? [];
  const sets = [st.awaiting, upload, st.read, st.ready, st.synthesis, st.witness, st.dispatched, st.queued];
  return complement(busy, window[0], window[1]).map(([a, b]) => {
    const cuts = [a, b, ...sets.flatMap((set) => boundariesWithin(set, a, b))].sort((x, y) => x - y);
    const byCause: Partial<Record<Cause, number>> = {};
    for (let i = 0; i + 1 < cuts.length; i++) {
      const lo = cuts[i]!, hi = cuts[i + 1]!;
      if (hi <= lo) continue;
      const c = causeAt(st, upload, (lo + hi) / 2);
      byCause[c] = (byCause[c] ?? 0) + (hi - lo);
    }
    const cause = (Object.entries(byCause) as [Cause, number][]).reduce((m, e) => (e[1] > m[1] ? e : m))[0];
    return { lane, start: a, dur: b - a, cause, byCause };
  });
}
