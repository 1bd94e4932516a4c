#!/usr/bin/env node
// Times the submission of one big witness in one run on loopback: a raw HTTP/1.1 POST of the same
// bytes to a plain node http server (the floor), and submit() through the SDK over gRPC and over
// Connect to a real `cuzk serve` child (upload, spool, fsync, journal: until the job is accepted),
// one client at a time and --clients at once. The key and witness are the 2^20 dev fixture (made
// and cached by `cuzk bench --size 20`); the daemon's queue is paused so no proof competes for
// the CPU, and the jobs are cancelled afterwards. One upload per protocol goes first, not counted
// (the daemon's first of a protocol compiles its code). Beside each median: the CPU time the daemon child
// and this process (the clients; for the raw row, also its server) spent per MiB received, from
// /proc and process.cpuUsage(). --protocols raw,grpc,connect picks rows (one at a time for a clean
// CPU profile: CUZK_PROF=<dir> profiles the daemon child, node --cpu-prof this process).
// CUZK_INTAKE=off|N sets the daemon's limits.intake_processes (default auto); CUZK_SPOOL_DIR its
// files.spool_dir (default: in its data dir, on tmpdir()'s disk). The SDK's clients
// run --client-threads at a time in worker threads (scripts/submit-worker.mjs; default: each client
// in its own, as separate client processes would be; 1: all on this process's one event loop, which
// then caps the aggregate MB/s on its own: 16 clients on one loop are one client's CPU).
// Usage: node --import tsx scripts/measure-submit.mjs [--size 20] [--runs 5] [--clients 4] [--client-threads N] [--protocols raw,grpc,connect]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { submitRounds } from './submit-rounds.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: a } = parseArgs({ options: { size: { type: 'string', default: '20' }, runs: { type: 'string', default: '5' }, clients: { type: 'string', default: '4' }, 'client-threads': { type: 'string' }, protocols: { type: 'string', default: 'raw,grpc,connect' } } });
const { CuzkClient } = await import(path.join(root, 'src/client/index.ts'));
const { benchFixture } = await import(path.join(root, 'src/dev/bench-fixture.ts'));

const runs = Number(a.runs);
const clients = Number(a.clients);
const clientThreads = Math.max(1, Math.min(clients, Number(a['client-threads'] ?? clients)));
const fixture = await benchFixture(root, 'bn128', Number(a.size), (s) => console.error(s));
const wtns = new Uint8Array(readFileSync(fixture.wtns));
const key = fixture.zkey;
const ms = (t0) => performance.now() - t0;
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const protocols = a.protocols.split(',');
const TICK_MS = 10; // /proc/<pid>/stat counts CPU in clock ticks of USER_HZ = 100 (Linux)
/** CPU ms so far of a process (`pid`), or of one of its threads (its main thread: `/task/<pid>`):
 * utime + stime from its stat file (fields 14 and 15). */
const procCpuMs = (pid, thread = '') => {
  const f = readFileSync(`/proc/${pid}${thread}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
};
/** CPU ms so far of the daemon's child processes (its intake processes; those that exited are lost). */
const childrenCpuMs = (pid) => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).reduce((a, c) => {
  try {
    return a + procCpuMs(c);
  } catch {
    return a; // exited since
  }
}, 0);
const selfCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function rawPost(n = 1) {
  const server = http.createServer((req, res) => {
    let n = 0;
    req.on('data', (c) => (n += c.length));
    req.on('end', () => res.end(String(n)));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  const times = [];
  const one = async () => {
    const t0 = performance.now();
    const r = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: wtns });
    if (Number(await r.text()) !== wtns.length) throw new Error('raw POST: short body');
    return ms(t0);
  };
  for (let i = 0; i < runs; i++) times.push(...(await Promise.all(Array.from({ length: n }, one))));
  server.close();
  return times;
}

async function startDaemon(dataDir) {
  const child = path.join(root, 'test/helpers/cuzk-child.ts');
  const proc = spawn(process.execPath, [...(process.env.CUZK_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.CUZK_PROF] : []), '--import', 'tsx', child, 'serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir, '--backend', 'cpu', '--key-dirs', path.dirname(key), '--max-queue', '100000', ...(process.env.CUZK_INTAKE ? ['--intake-processes', process.env.CUZK_INTAKE] : []), ...(process.env.CUZK_SPOOL_DIR ? ['--spool-dir', process.env.CUZK_SPOOL_DIR] : [])], { cwd: root, env: { ...process.env, CUZK_LOG: 'info' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let logs = '';
  const address = await new Promise((resolve, reject) => {
    proc.stderr.on('data', (d) => {
      logs += d;
      const m = /"address":"([^"]+)"[^\n]*"msg":"cuzk serve listening"/.exec(logs);
      if (m) resolve(m[1]);
    });
    proc.on('exit', (c) => reject(new Error(`daemon exited (${c}):\n${logs}`)));
  });
  return { proc, address };
}

const jobs = [];
/** Prepares `n` clients that each submit the witness `rounds` times, one at a time, and returns the
 * timed part: with n > 1 the clients are spread over min(n, --client-threads) worker threads, each
 * with its own event loop, started and ready (modules loaded, witness read) before it. */
async function sdkSubmitter(address, protocol, n = 1, rounds = runs) {
  const threads = n === 1 ? 1 : Math.min(n, clientThreads);
  if (threads === 1) {
    const cs = Array.from({ length: n }, () => new CuzkClient({ address, protocol }));
    return async () => {
      const { times, ids } = await submitRounds(cs, protocol, key, wtns, rounds);
      jobs.push(...ids);
      return times;
    };
  }
  const workers = await Promise.all(Array.from({ length: threads }, (_, t) => new Promise((resolve, reject) => {
    const share = Math.floor(n / threads) + (t < n % threads ? 1 : 0);
    const w = new Worker(path.join(root, 'scripts/submit-worker.mjs'), { workerData: { root, address, protocol, key, wtns: fixture.wtns, clients: share, rounds } });
    w.once('error', reject);
    w.once('message', () => resolve(w));
  })));
  return () => timedWorkers(workers);
}
/** Sends go to every ready worker (the caller's clock is running) and gathers their times and job ids. */
async function timedWorkers(workers) {
  const results = await Promise.all(workers.map((w) => new Promise((resolve, reject) => {
    w.once('error', reject);
    w.once('message', resolve);
    w.postMessage('go');
  })));
  await Promise.all(workers.map((w) => w.terminate()));
  for (const r of results) jobs.push(...r.ids);
  return results.flatMap((r) => r.times);
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'cuzk-measure-'));
const d = await startDaemon(dataDir);
try {
  await new CuzkClient({ address: d.address }).loadKey({ path: key });
  await new CuzkClient({ address: d.address }).pauseQueue();
  // warm-up, neither timed nor in the CPU columns: the daemon's first upload of a protocol compiles its
  // code, and each intake process's its own (--clients at once reach every one of them)
  for (const protocol of ['grpc', 'connect']) if (protocols.includes(protocol)) for (const n of [1, clients]) await (await sdkSubmitter(d.address, protocol, n, 1))();
  for (const n of [1, clients]) {
    const all = [
      ['raw', 'raw HTTP/1.1 POST (plain node server)', async () => () => rawPost(n)],
      ['grpc', 'SDK submit over gRPC', () => sdkSubmitter(d.address, 'grpc', n)],
      ['connect', 'SDK submit over Connect', () => sdkSubmitter(d.address, 'connect', n)],
    ];
    const rows = [];
    for (const [id, name, prepare] of all.filter((r) => protocols.includes(r[0]))) {
      const measure = await prepare();
      const main = `/task/${d.proc.pid}`;
      const [m0, d0, c0, s0] = [procCpuMs(d.proc.pid, main), procCpuMs(d.proc.pid), childrenCpuMs(d.proc.pid), selfCpuMs()];
      const w0 = performance.now();
      const t = await measure();
      const wall = ms(w0);
      const mib = (t.length * wtns.length) / 2 ** 20;
      rows.push([name, t, (procCpuMs(d.proc.pid, main) - m0) / mib, (procCpuMs(d.proc.pid) - d0) / mib, (childrenCpuMs(d.proc.pid) - c0) / mib, (selfCpuMs() - s0) / mib, (t.length * wtns.length) / 1e6 / (wall / 1000)]);
    }
    const floor = median(rows[0][1]);
    console.log(`witness ${(wtns.length / 2 ** 20).toFixed(1)} MiB (2^${a.size} fixture), ${n} client${n > 1 ? `s at once (SDK clients on ${Math.min(n, clientThreads)} thread${Math.min(n, clientThreads) > 1 ? 's' : ''})` : ''}, ${runs} rounds, median ms (x the first row), CPU ms per MiB of the daemon's main thread / of the daemon / of its intake processes / of this process, aggregate MB/s:`);
    for (const [name, t, mCpu, dCpu, cCpu, sCpu, agg] of rows) {
      const mbs = wtns.length / 1e6 / (median(t) / 1000);
      console.log(`  ${name.padEnd(40)} ${median(t).toFixed(0).padStart(7)} ms  x${(median(t) / floor).toFixed(1)}  ${mbs.toFixed(0).padStart(5)} MB/s per call  cpu ${mCpu.toFixed(2)} / ${dCpu.toFixed(2)} / ${cCpu.toFixed(2)} / ${sCpu.toFixed(2)} ms/MiB  ${agg.toFixed(0).padStart(5)} MB/s in all   [${t.map((x) => x.toFixed(0)).join(', ')}]`);
    }
  }
  const canceller = new CuzkClient({ address: d.address });
  for (const id of jobs) await canceller.cancel(id);
} finally {
  d.proc.kill('SIGTERM');
  await new Promise((r) => d.proc.on('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
