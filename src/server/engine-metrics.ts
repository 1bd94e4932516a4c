// Prometheus text for an EngineStatus (used by the stand-in engine; the real engine has its own
// metrics.ts). Names follow cuzk_<subsystem>_<what>_<unit> (shared/style.md §4).
import { PRIORITIES, type EngineStatus } from '../engine/api.js';

export function engineMetricsText(s: EngineStatus): string {
  const out: string[] = [];
  const metric = (name: string, type: 'counter' | 'gauge', help: string, rows: [string, number][]) => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, v] of rows) out.push(`${name}${labels} ${v}`);
  };
  metric('cuzk_jobs_submitted_total', 'counter', 'Jobs accepted by the engine.', [['', s.totals.submitted]]);
  metric('cuzk_jobs_finished_total', 'counter', 'Jobs finished, by terminal state.', (['completed', 'failed', 'cancelled', 'expired'] as const).map((st) => [`{state="${st}"}`, s.totals[st]]));
  metric('cuzk_proofs_total', 'counter', 'Proofs produced (partitions of completed jobs).', [['', s.totals.proofs]]);
  metric('cuzk_queue_jobs', 'gauge', 'Jobs queued, by priority.', PRIORITIES.map((p) => [`{priority="${p}"}`, s.queues[p]]));
  metric('cuzk_jobs_running', 'gauge', 'Jobs running.', [['', s.running]]);
  metric('cuzk_keys_loaded', 'gauge', 'Proving keys loaded.', [['', s.keys.length]]);
  metric('cuzk_keys_bytes', 'gauge', 'Bytes held by loaded proving keys.', [['', s.keys.reduce((a, k) => a + k.bytes, 0)]]);
  metric('cuzk_uptime_seconds', 'gauge', 'Seconds since the engine started.', [['', s.uptimeMs / 1000]]);
  return out.join('\n') + '\n';
}
