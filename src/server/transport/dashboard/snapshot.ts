// One dashboard frame: GetStatus's message as its JSON (statusMessage(), the RPC's own road, so the
// page's queue and budget numbers are the RPC's), and from the engine's span ring (engine.trace(),
// GetTrace's road) the last minute's per-second series, the Gantt of the last seconds, the recent
// jobs (engine.get() of the ids the spans name) and their latency quantiles.
import { toJson, type JsonValue } from '@bufbuild/protobuf';
import type { JobInfo } from '../../../engine/api.js';
import { quantile } from '../../../report/intervals.js';
import { GetStatusResponseSchema } from '../../../rpc/gen/cuzk/v1/cuzk_pb.js';
import { statusMessage, type RouteContext } from '../routes.js';
import { BIN_MS, gantt, recentJobIds, series, wallSpans, type GanttSpan, type Series } from './spans-window.js';

/** Seconds of spans read per frame: the series' window. */
export const SERIES_SECONDS = 60;
/** The Gantt shows this much of the recent past, at most MAX_GANTT_SPANS spans of it. */
export const GANTT_MS = 20_000;
const MAX_GANTT_SPANS = 4000;
const MAX_JOBS = 25;

export interface DashboardJob {
  id: string;
  key: string;
  state: string;
  priority: string;
  partitions: number;
  device: string;
  submittedAt: number;
  finishedAt?: number;
  /** ms per phase, summed over partitions */
  timings: Record<string, number>;
}

export interface Snapshot {
  at: number;
  status: JsonValue;
  series: Series;
  /** proofs/s over the series window (or the uptime, when shorter) */
  throughput: number;
  /** submitted → finished, ms, of the completed jobs among `jobs` */
  latency: { count: number; p50: number | null; p99: number | null };
  jobs: DashboardJob[];
  gantt: { from: number; to: number; lanes: string[]; spans: GanttSpan[] };
}

function dashboardJob(j: JobInfo): DashboardJob {
  const timings = Object.fromEntries(Object.entries(j.timings).filter(([, v]) => v !== undefined).map(([k, v]) => [k, +v!.toFixed(2)]));
  return {
    id: j.id, key: j.key, state: j.state, priority: j.priority, partitions: j.partitions, device: j.device ?? '', submittedAt: j.submittedAt,
    ...(j.finishedAt !== undefined ? { finishedAt: j.finishedAt } : {}), timings,
  };
}

export async function buildSnapshot(c: RouteContext, now = Date.now()): Promise<Snapshot> {
  const status = await statusMessage(c);
  const spans = wallSpans(c.engine.trace(SERIES_SECONDS));
  const from = Math.floor(now / BIN_MS) * BIN_MS - SERIES_SECONDS * BIN_MS;
  const s = series(spans, from, now);
  const jobs = recentJobIds(spans, MAX_JOBS).map((id) => c.engine.get(id)).filter((j): j is JobInfo => j !== undefined);
  const latencies = jobs.filter((j) => j.state === 'completed' && j.finishedAt !== undefined).map((j) => j.finishedAt! - j.submittedAt).sort((a, b) => a - b);
  const windowS = Math.max(1e-3, Math.min(now - from, Number(status.uptimeMs)) / 1000);
  return {
    at: now,
    status: toJson(GetStatusResponseSchema, status),
    series: s,
    throughput: +(s.proofs.reduce((a, b) => a + b, 0) / windowS).toFixed(3),
    latency: { count: latencies.length, p50: latencies.length ? quantile(latencies, 0.5) : null, p99: latencies.length ? quantile(latencies, 0.99) : null },
    jobs: jobs.map(dashboardJob),
    gantt: { from: now - GANTT_MS, to: now, ...gantt(spans, now - GANTT_MS, MAX_GANTT_SPANS) },
  };
}
