// deploy/grafana/cuzk-dashboard.json against a running daemon: every metric a panel queries is one
// the daemon exports on GET /metrics (after one proved job, so the counters and histograms exist),
// and every label a panel groups or filters by is one that metric carries.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { CuzkClient } from '../../src/client/index.js';
import { removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const DASHBOARD = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'deploy', 'grafana', 'cuzk-dashboard.json');
const HISTOGRAM_SERIES = /_(bucket|sum|count)$/;

interface Panel { title: string; targets: { expr: string }[] }

/** Metric name -> its type and the label names its samples carry, from Prometheus text. */
function parseExposition(text: string): Map<string, { type: string; labels: Set<string> }> {
  const metrics = new Map<string, { type: string; labels: Set<string> }>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) metrics.set(type[1]!, { type: type[2]!, labels: new Set() });
    const sample = /^([a-z_:][a-z0-9_:]*)\{([^}]*)\}/i.exec(line);
    if (!sample) continue;
    const m = metrics.get(sample[1]!) ?? metrics.get(sample[1]!.replace(HISTOGRAM_SERIES, ''));
    for (const l of sample[2]!.matchAll(/([a-z_][a-z0-9_]*)="/gi)) m?.labels.add(l[1]!);
  }
  return metrics;
}

let d: DaemonProcess;
before(async () => {
  d = await startDaemon({ args: [...vectorDirArgs(), '--backend', 'cpu'] });
});
after(async () => {
  assert.equal(await d.stop('SIGTERM'), 0, d.logs());
  removeDataDir(d.dataDir);
});

describe('deploy/grafana/cuzk-dashboard.json', () => {
  it('queries only metrics and labels a running daemon exports', async () => {
    const set = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
    const client = new CuzkClient({ address: d.address });
    const job = await client.prove({ key: vectorFile(set, 'circuit.zkey'), witnesses: [new Uint8Array(readFileSync(vectorFile(set, 'witness.wtns')))] });
    client.close();
    assert.equal(job.state, 'completed', JSON.stringify(job.error));
    const res = await fetch(`${d.url}/metrics`);
    assert.equal(res.status, 200);
    const exported = parseExposition(await res.text());

    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] };
    const titles = dashboard.panels.map((p) => p.title).join(' | ');
    for (const want of [/queue depth/i, /GPU utilisation/i, /throughput/i, /p50.*p99/i, /memory budget/i, /pinned pool/i]) assert.match(titles, want);
    let queried = 0;
    for (const p of dashboard.panels) {
      assert.ok(p.targets.length > 0, `panel "${p.title}" has no query`);
      for (const { expr } of p.targets) {
        // a metric is a cuzk_ name; the labels it is filtered by ({x=...}) or grouped by (by (x, y))
        for (const m of expr.matchAll(/\b(cuzk_[a-z0-9_]+)(\{[^}]*\})?/g)) {
          queried++;
          const series = m[1]!;
          const base = exported.has(series) ? series : series.replace(HISTOGRAM_SERIES, '');
          const metric = exported.get(base);
          assert.ok(metric, `panel "${p.title}" queries ${series}, which /metrics does not export`);
          if (base !== series) assert.equal(metric.type, 'histogram', `panel "${p.title}": ${series} on a ${metric.type}`);
          const labels = [...(m[2] ?? '').matchAll(/([a-z_]+)\s*[=!]~?"/g)].map((l) => l[1]!).filter((l) => l !== 'instance');
          for (const l of labels) assert.ok(metric.labels.has(l), `panel "${p.title}": ${base} has no label ${l} (it has ${[...metric.labels].join(', ') || 'none'})`);
        }
        for (const by of expr.matchAll(/by \(([^)]*)\)/g)) {
          const names = [...expr.matchAll(/\b(cuzk_[a-z0-9_]+)/g)].map((m) => exported.get(m[1]!) ?? exported.get(m[1]!.replace(HISTOGRAM_SERIES, '')));
          for (const l of by[1]!.split(',').map((s) => s.trim()).filter((s) => s && s !== 'le' && s !== 'instance')) {
            // a gauge with no sample yet (cuzk_device_utilisation on the CPU backend) carries no labels to check
            const carried = names.filter((n) => n && n.labels.size > 0);
            assert.ok(carried.every((n) => n!.labels.has(l)), `panel "${p.title}" groups by ${l}, which ${expr} does not carry`);
          }
        }
      }
    }
    assert.ok(queried >= 10, `only ${queried} metric references found: the dashboard's expressions were not parsed`);
  });
});
