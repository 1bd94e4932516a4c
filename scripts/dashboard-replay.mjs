#!/usr/bin/env node
// The dashboard of a daemon that ran elsewhere (the GPU machine has no browser), from the frames
// `npm run bench -- engine ... --dashboard-capture DIR` kept: the daemon's own dashboard handler
// (src/server/transport/dashboard: the same static files, snapshot and SSE feed, one frame a second) serves
// the captured frames in order on loopback, Debian's Chromium (test/helpers/chromium.ts) loads the
// page, and once the last frame is drawn the script saves a PNG of the page and prints what the
// page shows, read from its DOM: each device lane's busy % over the last 10 s, the queue and budget
// numbers (data-value), the job ids listed, the timeline's spans. Exit 1 on a console error.
// Usage: node --import tsx scripts/dashboard-replay.mjs FRAMES.json OUT.png [--upto N] [--json OUT.json]
//   --upto N: replay frames 1..N only (the screenshot is of frame N)
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: a, positionals } = parseArgs({ allowPositionals: true, options: { upto: { type: 'string' }, json: { type: 'string' } } });
if (positionals.length !== 2) {
  console.error('usage: node --import tsx scripts/dashboard-replay.mjs FRAMES.json OUT.png [--upto N] [--json OUT.json]');
  process.exit(2);
}
const [framesFile, png] = positionals;
const { loadDashboardAssets } = await import(path.join(root, 'src/server/transport/dashboard/assets.ts'));
const { DashboardHandler } = await import(path.join(root, 'src/server/transport/dashboard/handler.ts'));
const { createLogger } = await import(path.join(root, 'src/log.ts'));
const { chromiumProblem, launchChromium } = await import(path.join(root, 'test/helpers/chromium.ts'));

const doc = JSON.parse(readFileSync(framesFile, 'utf8'));
if (!Array.isArray(doc.frames) || doc.frames.length === 0) {
  console.error(`${framesFile}: no frames (expected { frames: [...] } from --dashboard-capture)`);
  process.exit(1);
}
const frames = doc.frames.slice(0, a.upto ? Number(a.upto) : undefined);
const last = frames.at(-1);
const problem = await chromiumProblem();
if (problem) process.exit(1);

let next = 0;
const handler = new DashboardHandler({
  token: '', // loopback only, and the frames' data is already on this disk
  assets: loadDashboardAssets(root),
  frame: async () => frames[Math.min(next++, frames.length - 1)],
  log: createLogger('warn'),
});
const server = http.createServer((req, res) => {
  if (!handler.handle(req, res)) {
    res.writeHead(404);
    res.end();
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await launchChromium();
let shown;
const errors = [];
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1300 } });
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  await page.goto(url);
  // the feed sends a frame a second: the last one is drawn after about frames.length seconds
  await page.waitForFunction((at) => document.body.dataset.frameAt === at, String(last.at), { timeout: 1000 * frames.length * 3 + 15_000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.screenshot({ path: png, fullPage: true });
  shown = await page.evaluate(() => {
    const stats = {};
    for (const e of document.querySelectorAll('[data-stat][data-value]')) stats[e.dataset.stat] = e.dataset.value;
    const busy = Object.fromEntries(Object.entries(stats).filter(([k]) => k.startsWith('busy.')).map(([k, v]) => [k.slice(5), Number(v)]));
    return {
      frameAt: Number(document.body.dataset.frameAt),
      busy,
      stats,
      jobIds: [...document.querySelectorAll('td[data-stat="job-id"]')].map((e) => e.textContent),
      ganttSpans: document.querySelectorAll('#gantt rect').length,
      throughput: document.getElementById('throughput').textContent,
      connection: document.getElementById('connection').textContent,
    };
  });
} finally {
  await browser.close();
  handler.close();
  server.close();
}

const out = { frames: frames.length, of: doc.frames.length, label: doc.label ?? '', screenshot: png, errors, ...shown };
for (const [lane, pct] of Object.entries(out.busy)) console.log(`${lane} busy over the last 10 s, as the page shows it: ${pct.toFixed(1)} %`);
console.log(`frame ${frames.length} of ${doc.frames.length} (${new Date(out.frameAt).toISOString()}), ${out.throughput} proofs/s, ${out.jobIds.length} jobs listed, ${out.ganttSpans} timeline spans; screenshot ${png}`);
if (a.json) writeFileSync(a.json, JSON.stringify(out, null, 1));
console.log(JSON.stringify(out));
if (errors.length) {
  console.error(`the page logged errors:\n${errors.join('\n')}`);
  process.exit(1);
}
process.exit(0);
