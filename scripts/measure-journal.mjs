#!/usr/bin/env node
// The event loop's cost of journaling a job: --pairs insert+finish pairs (each awaited, as the daemon
// does per job) on a fresh journal file, with the SqliteJobStore called on the main thread and with
// it on its own thread (openJournalThread). Per pair: the synchronous part of the two calls
// (performance.now() around each call), the event loop's active time (eventLoopUtilization: every
// moment the main thread was not idle, replies and promise jobs included), the wall time, and the
// event loop's delay (monitorEventLoopDelay, 1 ms resolution: what a timer or a socket waits for).
// After each pair the loop turns once (setImmediate). Median of --runs runs, the backends alternating. Rows are shaped like the daemon's (one spooled
// witness; a result with one BN254 proof).
// Usage: node --import tsx scripts/measure-journal.mjs [--pairs 200] [--runs 5] [--dir <tmp parent>]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: a } = parseArgs({ options: { pairs: { type: 'string', default: '200' }, runs: { type: 'string', default: '5' }, dir: { type: 'string', default: tmpdir() } } });
const { SqliteJobStore } = await import(path.join(root, 'src/server/journal/sqlite-store.ts'));
const { openJournalThread } = await import(path.join(root, 'src/server/journal/journal-thread.ts'));

const pairs = Number(a.pairs);
const runs = Number(a.runs);
const WARM = 10;
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const fe = () => (BigInt(Math.floor(Math.random() * 2 ** 52)) * 10n ** 60n).toString();
const proof = { pi_a: [fe(), fe(), '1'], pi_b: [[fe(), fe()], [fe(), fe()], ['1', '0']], pi_c: [fe(), fe(), '1'], protocol: 'groth16', curve: 'bn128' };

const stored = (id) => ({
  id, requestId: `req-${id}`, fingerprint: 'ab'.repeat(32), key: 'sha256:' + 'cd'.repeat(32), priority: 'normal', state: 'queued', partitions: 1, submittedAt: Date.now(),
  request: { witnessFiles: [{ path: `/var/lib/cuzk/spool/${id}.wtns`, size: 33554444, sha256: 'ef'.repeat(32), owned: true }] },
});
const finished = (id) => ({
  id, key: 'sha256:' + 'cd'.repeat(32), priority: 'normal', state: 'completed', partitions: 1, submittedAt: Date.now() - 900, startedAt: Date.now() - 600, finishedAt: Date.now(),
  proofs: [{ proof, publicSignals: [fe()] }], timings: { synthesis: 310.2, ntt: 40.1, msm_h: 60.3, msm: 120.7, verify: 12.4 }, device: 'gpu:0',
});

const BACKENDS = {
  'main thread': async (file) => new SqliteJobStore(file),
  'own thread': (file) => openJournalThread(file),
};

async function one(open) {
  const dir = mkdtempSync(path.join(a.dir, 'cuzk-measure-journal-'));
  const store = await open(path.join(dir, 'journal.sqlite'));
  const pair = async (i, sync) => {
    let t = performance.now();
    const ins = store.insert(stored(`j${i}`));
    sync.ms += performance.now() - t;
    await ins;
    t = performance.now();
    const fin = store.finish(finished(`j${i}`));
    sync.ms += performance.now() - t;
    await fin;
  };
  for (let i = 0; i < WARM; i++) await pair(-1 - i, { ms: 0 });
  const sync = { ms: 0 };
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  for (let i = 0; i < pairs; i++) {
    await pair(i, sync);
    await new Promise((r) => setImmediate(r)); // back to the loop between jobs, as the daemon is (and the delay monitor's timer can fire)
  }
  const wall = performance.now() - t0;
  const elu = performance.eventLoopUtilization(elu0);
  delay.disable();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return { syncMs: sync.ms / pairs, activeMs: elu.active / pairs, wallMs: wall / pairs, delayMaxMs: delay.max / 1e6, delayMeanMs: delay.mean / 1e6 };
}

const results = Object.fromEntries(Object.keys(BACKENDS).map((k) => [k, []]));
for (let r = 0; r < runs; r++) {
  const order = r % 2 ? Object.keys(BACKENDS).reverse() : Object.keys(BACKENDS);
  for (const name of order) results[name].push(await one(BACKENDS[name]));
}
console.log(`journal: ${pairs} insert+finish pairs, each awaited; median of ${runs} runs; journal under ${a.dir}`);
console.log('backend        sync ms/pair  loop-active ms/pair  wall ms/pair  loop delay mean / max ms');
for (const [name, rs] of Object.entries(results)) {
  const m = (k) => median(rs.map((x) => x[k])).toFixed(3);
  console.log(`${name.padEnd(14)} ${m('syncMs').padStart(12)}  ${m('activeMs').padStart(19)}  ${m('wallMs').padStart(12)}  ${m('delayMeanMs').padStart(10)} / ${m('delayMaxMs')}`);
}
