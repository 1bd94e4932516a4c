// What the dashboard draws from the engine's recent spans: the trace GetTrace answers (the same
// ring), read back by the report's reader, put on the wall clock, and reduced to per-second series
// (each device lane's busy fraction, H2D GB/s, proofs finished), the Gantt's spans on its lanes, and
// the ids of the jobs seen, newest first. The maths is the report's (src/report/intervals.ts).
import { isDeviceLane } from '../../../report/idle-gaps.js';
import { binnedFraction, union, type Interval } from '../../../report/intervals.js';
import { parseTrace, type TraceSpan } from '../../../report/trace-read.js';

export const BIN_MS = 1000;

/** A span on the wall clock (epoch ms). */
export interface WallSpan { track: string; name: string; job: string; start: number; end: number; bytes?: number }

export interface GanttSpan { lane: string; phase: string; job: string; start: number; end: number }

export interface Series {
  /** epoch ms of each bin's start */
  t: number[];
  busy: { lane: string; y: number[] }[];
  h2d: { lane: string; gbps: number[] }[];
  proofs: number[];
}

/** The spans of a trace from SpanRecorder.traceJson(), on the wall clock; [] when it holds none. */
export function wallSpans(traceJson: string): WallSpan[] {
  const doc = JSON.parse(traceJson) as { traceEvents: { ph: string }[]; otherData: { startedAt: string } };
  if (!doc.traceEvents.some((e) => e.ph === 'X' || e.ph === 'b')) return [];
  const origin = Date.parse(doc.otherData.startedAt);
  return parseTrace(doc, 'engine trace').map((s: TraceSpan) => ({ track: s.track, name: s.name, job: s.job ?? '', start: origin + s.start, end: origin + s.end, ...(s.bytes !== undefined ? { bytes: s.bytes } : {}) }));
}

/** Bins of BIN_MS from `from` (a multiple of BIN_MS) to `to`. */
export function series(spans: readonly WallSpan[], from: number, to: number): Series {
  const n = Math.max(1, Math.ceil((to - from) / BIN_MS));
  const t = Array.from({ length: n }, (_, k) => from + k * BIN_MS);
  const byTrack = new Map<string, Interval[]>();
  const h2d = new Map<string, number[]>();
  const proofs = new Array<number>(n).fill(0);
  for (const s of spans) {
    if (isDeviceLane(s.track)) (byTrack.get(s.track) ?? byTrack.set(s.track, []).get(s.track)!).push([s.start, s.end]);
    if (s.name === 'h2d' && s.bytes && s.end > s.start) {
      const bins = h2d.get(s.track) ?? h2d.set(s.track, new Array<number>(n).fill(0)).get(s.track)!;
      // the copy's bytes spread over the bins it overlaps, at its own rate
      const rate = s.bytes / (s.end - s.start);
      for (let k = Math.max(0, Math.floor((s.start - from) / BIN_MS)); k < n && from + k * BIN_MS < s.end; k++) {
        const lo = from + k * BIN_MS;
        bins[k]! += rate * Math.max(0, Math.min(s.end, lo + BIN_MS) - Math.max(s.start, lo));
      }
    }
    // one finalize span per proof (partition)
    if (s.name === 'finalize' && s.end >= from && s.end < to) proofs[Math.floor((s.end - from) / BIN_MS)]! += 1;
  }
  const round = (x: number, d = 4) => +x.toFixed(d);
  return {
    t,
    busy: [...byTrack].sort(([a], [b]) => a.localeCompare(b)).map(([lane, xs]) => ({ lane, y: binnedFraction(union(xs), from, to, BIN_MS).map((f) => round(f)) })),
    h2d: [...h2d].sort(([a], [b]) => a.localeCompare(b)).map(([lane, bytes]) => ({
      lane: lane.replace(/:copy$/, ''),
      gbps: bytes.map((b, k) => round(b / 1e9 / ((Math.min(to, t[k]! + BIN_MS) - t[k]!) / 1000), 3)),
    })),
    proofs,
  };
}

const DEVICE_LANE_PHASES: Record<string, string> = { h2d: 'copy', d2h: 'copy', ntt: 'NTT', msm: 'MSM' };

/** The Gantt lane of a span: one per CPU stage, three (copy, NTT, MSM) per device; queue waits have none. */
export function ganttLane(s: WallSpan): string | undefined {
  if (s.track === 'witness' || s.track === 'synthesis' || s.track === 'finalize') return s.track;
  const device = /^(cpu|gpu:\d+)(?::copy)?$/.exec(s.track)?.[1];
  const sub = DEVICE_LANE_PHASES[s.name];
  return device && sub ? `${device} ${sub}` : undefined;
}

const laneRank = (lane: string) => (lane === 'witness' ? 0 : lane === 'synthesis' ? 1 : lane === 'finalize' ? 3 : 2);
const SUB_ORDER = ['copy', 'NTT', 'MSM'];

export function laneOrder(a: string, b: string): number {
  const r = laneRank(a) - laneRank(b);
  if (r !== 0 || laneRank(a) !== 2) return r;
  const [da, sa] = a.split(' ') as [string, string];
  const [db, sb] = b.split(' ') as [string, string];
  return da === db ? SUB_ORDER.indexOf(sa) - SUB_ORDER.indexOf(sb) : da.localeCompare(db, 'en', { numeric: true });
}

/** The Gantt's spans that end after `from`, the newest `max` of them, and its lanes in order. */
export function gantt(spans: readonly WallSpan[], from: number, max: number): { lanes: string[]; spans: GanttSpan[] } {
  const out: GanttSpan[] = [];
  for (const s of spans) {
    const lane = s.end >= from ? ganttLane(s) : undefined;
    if (lane) out.push({ lane, phase: s.name, job: s.job, start: +s.start.toFixed(2), end: +s.end.toFixed(2) });
  }
  out.sort((p, q) => p.start - q.start);
  const kept = out.slice(Math.max(0, out.length - max));
  return { lanes: [...new Set(kept.map((s) => s.lane))].sort(laneOrder), spans: kept };
}

/** Job ids by their latest span's end, newest first. */
export function recentJobIds(spans: readonly WallSpan[], max: number): string[] {
  const last = new Map<string, number>();
  for (const s of spans) if (s.job) last.set(s.job, Math.max(last.get(s.job) ?? -Infinity, s.end));
  return [...last].sort((a, b) => b[1] - a[1]).slice(0, max).map(([id]) => id);
}
