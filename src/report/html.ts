// The report as one self-contained HTML page: the numbers as tables rendered here (readable with
// scripts off), the two charts drawn in the page by uPlot (vendor/uplot, inlined by the caller) from
// the data embedded beside them. Nothing is fetched: no script, style or font comes from a URL.
import { CAUSE_TEXT, CAUSES, type Cause } from './idle-gaps.js';
import { largestGapLine, type TraceReport } from './analyse.js';

/** The chart library's code and stylesheet, inlined as they are. */
export interface ChartAssets {
  script: string;
  css: string;
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const ms = (x: number) => x.toFixed(1);
const sec = (x: number) => (x / 1000).toFixed(2);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const MAX_GAP_ROWS = 20;

function table(head: string[], rows: string[][], id: string): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join('');
  const tr = rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table id="${id}"><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`;
}

function utilisationSection(r: TraceReport): string {
  if (r.lanes.length === 0) return '<p>No device lanes in this trace (no phase-2 spans on <code>cpu</code> or <code>gpu:N</code>).</p>';
  const rows = r.lanes.map((l) => [
    l.lane, ms(l.busyMs), pct(l.utilisation), ms(l.idleMs), String(l.gaps),
    l.largestGap ? `${ms(l.largestGap.dur)} ms at ${sec(l.largestGap.start - r.window.start)} s, ${CAUSE_TEXT[l.largestGap.cause]}` : '-',
  ]);
  const used = CAUSES.filter((c) => r.lanes.some((l) => l.idleByCause[c]));
  const causeRows = r.lanes.map((l) => [l.lane, ...used.map((c) => ms(l.idleByCause[c] ?? 0))]);
  return `${table(['lane', 'busy ms', 'utilisation', 'idle ms', 'idle gaps', 'largest gap'], rows, 'utilisation')}
<h3>Idle time by cause (ms)</h3>
${used.length ? table(['lane', ...used.map((c) => CAUSE_TEXT[c])], causeRows, 'idle-causes') : '<p>No idle time.</p>'}
<h3>Utilisation over time (${r.timeline.binMs} ms bins)</h3>
<div id="chart-util" class="chart"></div>`;
}

function gapsSection(r: TraceReport): string {
  if (r.gaps.length === 0) return '<p>No idle gaps.</p>';
  const breakdown = (b: Partial<Record<Cause, number>>) =>
    (Object.entries(b) as [Cause, number][]).sort((x, y) => y[1] - x[1]).map(([c, v]) => `${c} ${ms(v)}`).join(', ');
  const rows = r.gaps.slice(0, MAX_GAP_ROWS).map((g) => [g.lane, sec(g.start - r.window.start), ms(g.dur), CAUSE_TEXT[g.cause], breakdown(g.byCause)]);
  return `<p>${Math.min(MAX_GAP_ROWS, r.gaps.length)} largest of ${r.gaps.length}. A gap's cause is what covered most of it; the last
column splits it (ms). Causes: ${CAUSES.map((c) => `<b>${c}</b>: ${esc(CAUSE_TEXT[c])}`).join('; ')}.</p>
${table(['lane', 'at s', 'ms', 'cause', 'by cause (ms)'], rows, 'gaps')}`;
}

function phasesSection(r: TraceReport): string {
  const rows = r.phases.map((p) => [p.name, p.tracks.join(' '), String(p.count), ms(p.totalMs), ms(p.p50), ms(p.p90), ms(p.max)]);
  return table(['phase', 'tracks', 'count', 'total ms', 'p50 ms', 'p90 ms', 'max ms'], rows, 'phases');
}

function bandwidthSection(r: TraceReport): string {
  const b = r.bandwidth;
  const pinned = '<p>Pinned vs pageable: not in the trace (its copy spans carry bytes and GB/s only; a <code>bench --compare pinned:off</code> run writes the pageable run to its own trace).</p>';
  if (!b) return `<p>No copy spans with byte counts in this trace (the CPU core uploads nothing).</p>\n${pinned}`;
  const rows = [[String(b.count), (b.bytes / 2 ** 20).toFixed(1), b.aggregateGBps.toFixed(2), b.p50.toFixed(2), b.p90.toFixed(2), b.max.toFixed(2)]];
  return `${table(['copies', 'MiB', 'aggregate GB/s', 'p50 GB/s', 'p90 GB/s', 'max GB/s'], rows, 'bandwidth')}
<h3>Copies by GB/s (bins of ${b.step} GB/s)</h3>
<div id="chart-bw" class="chart"></div>
${pinned}`;
}

/** Data for the page's charts; `<` escaped so no string in it can end the script element. */
function chartData(r: TraceReport): string {
  const data = {
    util: {
      x: (r.timeline.lanes[0]?.busy ?? []).map((_, k) => +((k * r.timeline.binMs) / 1000).toFixed(3)),
      lanes: r.timeline.lanes.map((l) => ({ name: l.lane, y: l.busy.map((f) => +(100 * f).toFixed(2)) })),
    },
    bw: r.bandwidth ? { x: r.bandwidth.bins.map((b) => b.lo), y: r.bandwidth.bins.map((b) => b.count) } : null,
  };
  return JSON.stringify(data).replace(/</g, '\\u003c');
}

const DRAW = `
(function () {
  var d = JSON.parse(document.getElementById('report-data').textContent);
  var colours = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];
  var width = Math.min(1100, document.body.clientWidth - 40);
  var el = document.getElementById('chart-util');
  if (el && d.util.x.length) {
    new uPlot({
      width: width, height: 260, scales: { x: { time: false }, y: { range: [0, 100] } },
      axes: [{ label: 's' }, { label: 'busy %' }],
      series: [{ label: 's' }].concat(d.util.lanes.map(function (l, i) {
        return { label: l.name, stroke: colours[i % colours.length], width: 1.5 };
      })),
    }, [d.util.x].concat(d.util.lanes.map(function (l) { return l.y; })), el);
  }
  var bw = document.getElementById('chart-bw');
  if (bw && d.bw) {
    new uPlot({
      width: width, height: 220, scales: { x: { time: false } },
      axes: [{ label: 'GB/s (bin start)' }, { label: 'copies' }],
      series: [{ label: 'GB/s' }, { label: 'copies', fill: '#1f77b488', stroke: '#1f77b4', paths: uPlot.paths.bars({ size: [0.9] }) }],
    }, [d.bw.x, d.bw.y], bw);
  }
})();`;

export function renderReportHtml(r: TraceReport, source: string, assets: ChartAssets): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>cuzk report: ${esc(source)}</title>
<style>${assets.css}</style>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 20px; color: #222; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f3f3f3; }
.chart { margin: 8px 0 16px; }
</style></head>
<body>
<h1>cuzk report</h1>
<p><code>${esc(source)}</code>: ${r.spanCount} spans, ${r.jobCount} jobs, window ${ms(r.window.durMs)} ms.</p>
<p id="headline"><b>${esc(largestGapLine(r))}</b></p>
<h2>Device utilisation</h2>
${utilisationSection(r)}
<h2>Idle gaps</h2>
${gapsSection(r)}
<h2>Phases</h2>
${phasesSection(r)}
<h2>Upload bandwidth</h2>
${bandwidthSection(r)}
<script type="application/json" id="report-data">${chartData(r)}</script>
<script>${assets.script.replace(/<\/script/gi, '<\\/script')}</script>
<script>${DRAW}</script>
</body></html>
`;
}
