#!/usr/bin/env node
// The daemon end to end on one machine (the GPU machine's "done when" run of `cuzk serve`): start
// it, load a key, prove N jobs from concurrent clients, verify every proof with snarkjs, read
// status and /metrics, SIGTERM, and print one summary table. Needs dist/ (npm run build:ts).
// Usage: node scripts/serve-check.mjs --key k.zkey --wtns w.wtns --vkey vkey.json [--jobs 50] [--clients 10]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: a } = parseArgs({ options: { key: { type: 'string' }, wtns: { type: 'string' }, vkey: { type: 'string' }, jobs: { type: 'string', default: '50' }, clients: { type: 'string', default: '10' } } });
if (!a.key || !a.wtns || !a.vkey) {
  console.error('usage: node scripts/serve-check.mjs --key k.zkey --wtns w.wtns --vkey vkey.json [--jobs 50] [--clients 10]');
  process.exit(2);
}
const { CuzkClient } = await import(path.join(root, 'dist/src/client/index.js'));
const snarkjs = await import('snarkjs');
const dataDir = mkdtempSync(path.join(tmpdir(), 'cuzk-serve-check-'));
const t = () => performance.now();

const proc = spawn(process.execPath, [path.join(root, 'bin/cuzk.js'), 'serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir], { stdio: ['ignore', 'inherit', 'pipe'] });
let logs = '';
const exited = new Promise((r) => proc.on('exit', (code, sig) => r(code ?? sig)));
const address = await new Promise((resolve, reject) => {
  proc.stderr.on('data', (d) => {
    logs += d;
    const m = /"address":"([^"]+)"[^\n]*"msg":"cuzk serve listening"/.exec(logs);
    if (m) resolve(m[1]);
  });
  exited.then((c) => reject(new Error(`daemon exited (${c}):\n${logs}`)));
});
const rows = [['daemon', address]];
try {
  const client = new CuzkClient({ address });
  let t0 = t();
  const key = await client.loadKey({ path: path.resolve(a.key) }, 'check');
  rows.push(['key', `${key.curve}, 2^${Math.log2(key.domainSize)} domain, ${(key.bytes / 2 ** 20).toFixed(1)} MiB, load ${(t() - t0).toFixed(0)} ms`]);
  const witness = new Uint8Array(readFileSync(a.wtns));
  const n = Number(a.jobs);
  const clients = Number(a.clients);
  const done = [];
  t0 = t();
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    const cl = new CuzkClient({ address });
    for (let j = c; j < n; j += clients) {
      const { job } = await cl.submit({ key: 'check', witnesses: [witness], priority: ['high', 'normal', 'low'][j % 3], requestId: `check-${j}` });
      done.push(await cl.await(job.id));
    }
  }));
  const wall = (t() - t0) / 1000;
  const vkey = JSON.parse(readFileSync(a.vkey, 'utf8'));
  let verified = 0;
  for (const j of done) if (j.state === 'completed' && (await snarkjs.groth16.verify(vkey, j.proofs[0].publicSignals, j.proofs[0].proof))) verified++;
  rows.push(['jobs', `${done.length} done, ${done.filter((j) => j.state === 'completed').length} completed, ${verified} verified by snarkjs`]);
  rows.push(['throughput', `${(done.length / wall).toFixed(1)} proofs/s (${wall.toFixed(1)} s, ${clients} clients)`]);
  rows.push(['devices', [...new Set(done.map((j) => j.device))].join(', ')]);
  const s = await client.status();
  rows.push(['status', `${s.backend}; ${s.devices.map((d) => `${d.id} ${d.name}`).join('; ')}; totals ${JSON.stringify(s.totals)}; journal ${JSON.stringify(s.journal)}`]);
  const metrics = await (await fetch(`http://${address}/metrics`)).text();
  rows.push(['metrics', metrics.split('\n').filter((l) => /^cuzk_(proofs_total|jobs_total|device_utilisation|journal_jobs)/.test(l)).join('; ')]);
} finally {
  const t0 = t();
  proc.kill('SIGTERM');
  rows.push(['SIGTERM', `exit ${await exited} after ${(t() - t0).toFixed(0)} ms`]);
  rmSync(dataDir, { recursive: true, force: true });
  for (const [k, v] of rows) console.log(`${k.padEnd(11)} ${v}`);
  for (const name of ['bn128', 'bls12381']) if (globalThis[`curve_${name}`]) await (await snarkjs.curves.getCurveFromName(name)).terminate();
}
