// What `cuzk report` says about a trace: each device lane's utilisation over the trace window and per
// time bin, its idle gaps with their causes (idle-gaps.ts), per-phase duration distributions, and
// the upload bandwidth of the copy spans that carry byte counts.
import { CAUSE_TEXT, CAUSES, idleGaps, isDeviceLane, pipelineState, type Cause, type IdleGap } from './idle-gaps.js';
import { binnedFraction, niceStep, quantile, total, union } from './intervals.js';
import type { TraceSpan } from './trace-read.js';

export interface LaneReport {
  lane: string;
  busyMs: number;
  utilisation: number;
  idleMs: number;
  gaps: number;
  largestGap?: IdleGap;
  idleByCause: Partial<Record<Cause, number>>;
}

export interface PhaseStats {
  name: string;
  tracks: string[];
  count: number;
  totalMs: number;
  p50: number;
  p90: number;
  max: number;
}

export interface Bandwidth {
  /** copy spans with a byte count */
  count: number;
  bytes: number;
  /** all bytes over all copy time */
  aggregateGBps: number;
  p50: number;
  p90: number;
  max: number;
  /** histogram of per-copy GB/s: bins [lo, lo + step) */
  step: number;
  bins: { lo: number; count: number }[];
}

export interface TraceReport {
  /** ms: the trace's first start, last end */
  window: { start: number; end: number; durMs: number };
  spanCount: number;
  jobCount: number;
  lanes: LaneReport[];
  /** every gap of every device lane, largest first */
  gaps: IdleGap[];
  timeline: { binMs: number; lanes: { lane: string; busy: number[] }[] };
  phases: PhaseStats[];
  bandwidth?: Bandwidth;
}

export const DEFAULT_BIN_MS = 100;
const MAX_BINS = 2000;

export function analyseTrace(spans: readonly TraceSpan[], binMs = DEFAULT_BIN_MS): TraceReport {
  let start = Infinity, end = -Infinity;
  for (const s of spans) (start = Math.min(start, s.start)), (end = Math.max(end, s.end));
  const window = [start, end] as const;
  const durMs = end - start;
  // a long trace gets wider bins so the chart stays a chart
  const bin = durMs / binMs > MAX_BINS ? niceStep(durMs / MAX_BINS) : binMs;
  const st = pipelineState(spans);
  const laneNames = [...new Set(spans.map((s) => s.track).filter(isDeviceLane))].sort();
  const lanes: LaneReport[] = [];
  const gaps: IdleGap[] = [];
  const timeline: { lane: string; busy: number[] }[] = [];
  for (const lane of laneNames) {
    const busy = union(spans.filter((s) => s.track === lane).map((s) => [s.start, s.end] as const));
    const own = idleGaps(lane, busy, window, st);
    for (const g of own) gaps.push(g); // not push(...own): ~125k arguments overflow the stack
    const idleByCause: Partial<Record<Cause, number>> = {};
    for (const g of own) for (const c of CAUSES) if (g.byCause[c]) idleByCause[c] = (idleByCause[c] ?? 0) + g.byCause[c]!;
    const busyMs = total(busy);
    lanes.push({
      lane, busyMs, utilisation: durMs > 0 ? busyMs / durMs : 1, idleMs: durMs - busyMs, gaps: own.length,
      largestGap: largest(own), idleByCause,
    });
    timeline.push({ lane, busy: durMs > 0 ? binnedFraction(busy, start, end, bin) : [1] });
  }
  gaps.sort((a, b) => b.dur - a.dur || a.start - b.start);
  return {
    window: { start, end, durMs },
    spanCount: spans.length,
    jobCount: new Set(spans.map((s) => s.job).filter((j) => j !== undefined)).size,
    lanes,
    gaps,
    timeline: { binMs: bin, lanes: timeline },
    phases: phaseStats(spans),
    bandwidth: bandwidth(spans),
  };
}

const largest = (gaps: readonly IdleGap[]) => gaps.reduce<IdleGap | undefined>((m, g) => (!m || g.dur > m.dur ? g : m), undefined);

function phaseStats(spans: readonly TraceSpan[]): PhaseStats[] {
  const byName = new Map<string, TraceSpan[]>();
  for (const s of spans) (byName.get(s.name) ?? byName.set(s.name, []).get(s.name)!).push(s);
  return [...byName].map(([name, ss]) => {
    const d = ss.map((s) => s.end - s.start).sort((a, b) => a - b);
    return {
      name, tracks: [...new Set(ss.map((s) => s.track))].sort(), count: d.length, totalMs: d.reduce((a, b) => a + b, 0),
      p50: quantile(d, 0.5), p90: quantile(d, 0.9), max: d[d.length - 1]!,
    };
  }).sort((a, b) => b.totalMs - a.totalMs);
}

function bandwidth(spans: readonly TraceSpan[]): Bandwidth | undefined {
  const copies = spans.filter((s) => s.track.endsWith(':copy') && s.bytes !== undefined && s.end > s.start);
  if (copies.length === 0) return undefined;
  const gbps = copies.map((s) => s.bytes! / ((s.end - s.start) * 1e6)).sort((a, b) => a - b);
  const bytes = copies.reduce((a, s) => a + s.bytes!, 0);
  const max = gbps[gbps.length - 1]!;
  const step = max > 0 ? niceStep(max / 20) : 1;
  const bins = Array.from({ length: Math.floor(max / step) + 1 }, (_, k) => ({ lo: k * step, count: 0 }));
  for (const g of gbps) bins[Math.min(bins.length - 1, Math.floor(g / step))]!.count++;
  return {
    count: copies.length, bytes, aggregateGBps: bytes / (copies.reduce((a, s) => a + (s.end - s.start), 0) * 1e6),
    p50: quantile(gbps, 0.5), p90: quantile(gbps, 0.9), max, step, bins,
  };
}

const ms = (x: number) => (x < 10 ? x.toFixed(1) : Math.round(x).toString());

/** The CLI's one line: the largest idle gap of any device lane, and why. */
export function largestGapLine(r: TraceReport): string {
  if (r.lanes.length === 0) return 'no device lanes in the trace (no phase-2 spans on cpu or gpu:N)';
  const g = r.gaps[0];
  if (!g) return `no idle gaps: ${r.lanes.map((l) => l.lane).join(', ')} busy for the whole trace`;
  return `largest idle gap: ${g.lane} ${ms(g.dur)} ms at ${((g.start - r.window.start) / 1000).toFixed(2)} s, ${CAUSE_TEXT[g.cause]}`;
}
