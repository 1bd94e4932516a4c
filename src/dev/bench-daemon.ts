// The daemon under the in-process bench's stream (`cuzk bench --remote`, `npm run bench -- engine
// --remote`): the same key, witness, warm-up and job count, sent by `clients` concurrent SDK clients
// (one job in flight each: submit, then await), over gRPC and then over Connect. Per protocol:
// proofs/s, submit→completed latency, GPU kernel utilisation from GetStatus (the difference of each
// device's cumulative kernel_ms over the window, / the window's uptime), submit MB/s (witness bytes / time inside submit
// calls), witness MB/s in all (the bytes the clients submitted in the window / the window), the
// daemon's main-thread busy share and the share of witness bytes its intake processes received
// (GetStatus's intake, differenced over the window), this process's event-loop busy share (its clients
// share one loop: near 100% it, not the daemon, sets the pace), and every returned proof verified again here with cuzk's verifier: the daemon verified it
// before answering, this checks what crossed the wire. `self` runs a `cuzk serve` child (serve-child.ts).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { CuzkClient, type SubmitRequest } from '../client/client.js';
import type { DaemonStatus } from '../client/convert.js';
import type { ProofOutput } from '../engine/api.js';
import { percentile, submitStats, type RunCounts, type StreamInputs, type StreamStats, type SubmitStats } from '../engine/bench-stream.js';
import { encodeVerificationKey, verifyGroth16 } from '../engine/verifier.js';
import { CuzkError, errorMessage } from '../errors.js';
import { parseProofJson, parsePublicJson } from '../formats/proof-json.js';
import { verificationKeyFromZkey, type VerificationKey } from '../formats/vkey-json.js';
import { ZkeyFile } from '../formats/zkey.js';
import { captureDashboard, snapshotUrl, writeCapture, type DashboardCapture } from './dashboard-capture.js';
import { startServeChild } from './serve-child.js';

export type Protocol = 'grpc' | 'connect';

export interface DaemonBenchOptions {
  /** 'self' (a `cuzk serve` child on loopback with these engine options) or the daemon's address. */
  remote: string;
  zkey: string;
  witness: Uint8Array;
  /** Jobs carry these circuit inputs and the daemon computes each witness (the generator's folder
   * becomes an allowed key folder of a `self` daemon; a remote one must allow it itself). */
  inputs?: StreamInputs;
  jobs: number;
  /** Partitions per job (default 1). More than one: each job names the witness file `wtns` once per
   * partition (`witnessFiles`), read by the daemon in place as a sealing pipeline's daemon reads its
   * own files; ten uploads of it per job would measure the loopback, not the daemon's pipeline. */
  partitions?: number;
  /** The witness's file (needed for partitions; a `self` daemon may read its folder). */
  wtns?: string;
  warmup: number;
  clients: number;
  engine: { backend: 'auto' | 'cpu' | 'cuda'; threads: number; /** 'self': the daemon's --memory-gpu-bytes */ gpuBytes?: number };
  token?: string;
  /** Send the .zkey bytes (LoadKey zkey) instead of its path (LoadKey path, valid on the daemon's machine). */
  uploadKey?: boolean;
  /** 'self' only: the daemon child's files.spool_dir (default: in its temporary data dir). */
  spoolDir?: string;
  /** 'self' only: the daemon child writes its Perfetto trace (both protocols' runs) here on shutdown. */
  tracePath?: string;
  /** A folder: the dashboard's frames of each protocol's window, one a second, go to dashboard-<protocol>.json there. */
  dashboardCapture?: string;
  onProgress?: (phase: string, done: number, total: number) => void;
}

/** Where the daemon child's trace goes beside the in-process run's `--trace` file. */
export function daemonTracePath(p: string): string {
  return p.endsWith('.json') ? `${p.slice(0, -5)}-daemon.json` : `${p}-daemon`;
}

/** `failed` counts warm-up jobs too. */
export interface RemoteStats extends RunCounts {
  protocol: Protocol;
  /** Σ Δ(utilisation × uptime) / (Δuptime × GPUs) over the window; null without a GPU. */
  gpuUtilisation: number | null;
  submit: SubmitStats;
  /** Proofs received (warm-up included) and those that verified here. */
  proofsReceived: number;
  verifiedHere: number;
  /** --dashboard-capture: where this window's frames went */
  dashboard?: { file: string; fetched: number; kept: number; problems: string[] };
  /** The front door over the window (GetStatus's intake): witness (or inputs) bytes the clients
   * submitted / the window, MB/s; the daemon's main-thread event-loop busy share (null from a
   * daemon too old to say); of the witness bytes, the share its intake processes received; the
   * event-loop busy share of this process, whose one loop drives every client. */
  intake: { witnessMbPerSec: number; mainThreadBusy: number | null; processes: number; offMainShare: number | null; clientLoopBusy: number };
}

export interface DaemonBenchResult {
  address: string;
  /** The `cuzk serve` child of `--remote self`: its pid and its exit status after SIGTERM (0 expected). */
  self: { pid: number; exitStatus: number | string } | null;
  keyId: string;
  clients: number;
  backend: string;
  devices: string[];
  grpc: RemoteStats;
  connect: RemoteStats;
}

interface Sink {
  latencies: number[];
  submitMs: number[];
  /** When each submit returned (performance.now()): the window's bytes are those of submits ending in it. */
  submitEnds: number[];
  errors: string[];
  proofs: ProofOutput[];
}

/**
 * One continuous stream of `warmup` + `jobs` jobs over `clients`, one in flight per client. The
 * measured window opens (`onWindow`) when the warm-up jobs have all completed, while the clients
 * keep going: steady state, as a daemon serves. (Draining after the warm-up and starting all
 * clients again at once put a burst of simultaneous uploads, ten 32 MiB witnesses at 2^20, with
 * the GPU idle behind it, into every window: 0.56 s of a 13 s gRPC window on the H200.)
 */
async function pump(clients: CuzkClient[], fields: Omit<SubmitRequest, 'key'>, key: string, warmup: number, jobs: number, onDone: (done: number) => void, onWindow: () => void): Promise<{ warm: Sink; run: Sink }> {
  const warm: Sink = { latencies: [], submitMs: [], submitEnds: [], errors: [], proofs: [] };
  const run: Sink = { latencies: [], submitMs: [], submitEnds: [], errors: [], proofs: [] };
  const n = warmup + jobs;
  let next = 0;
  let warmDone = 0;
  let done = 0;
  if (warmup === 0) onWindow();
  await Promise.all(clients.slice(0, n).map(async (client) => {
    while (next < n) {
      const sink = next++ < warmup ? warm : run;
      const t0 = performance.now();
      try {
        let { job } = await client.submit({ key, ...fields });
        const end = performance.now();
        sink.submitMs.push(end - t0);
        sink.submitEnds.push(end);
        while (job.state === 'queued' || job.state === 'running') job = await client.await(job.id); // each await ends at max_await_ms
        if (job.state === 'completed') {
          sink.latencies.push(performance.now() - t0);
          sink.proofs.push(...(job.proofs ?? []));
        } else sink.errors.push(`${job.error?.code ?? job.state}: ${job.error?.message ?? ''}`);
      } catch (e) {
        sink.errors.push(`${(e as { code?: string }).code ?? 'E_INTERNAL'}: ${errorMessage(e)}`);
      }
      if (sink === warm) {
        if (++warmDone === warmup) onWindow();
      } else onDone(++done);
    }
  }));
  return { warm, run };
}

function witnessFile(opts: DaemonBenchOptions): string {
  if (opts.wtns === undefined) throw new CuzkError('E_INVALID_ARG', 'benchDaemon: partitions need the witness file (wtns), which each job names per partition');
  return opts.wtns;
}

/** Kernel ms per GPU device since start, from GetStatus (utilisation x uptime over-counted: utilisation
 * is over the time since the device's first proof, not the daemon's uptime; one window read 110%). */
const gpuBusyMs = (s: DaemonStatus) => s.devices.filter((d) => d.kernelMs !== null).map((d) => d.kernelMs!);

/** RemoteStats.intake from GetStatus at the window's ends and the bytes submitted in it. */
function intakeOverWindow(a: DaemonStatus['intake'], b: DaemonStatus['intake'], upMs: number, bytes: number, wallMs: number, clientLoopBusy: number): RemoteStats['intake'] {
  const both = a !== undefined && b !== undefined && upMs > 0;
  return {
    witnessMbPerSec: wallMs > 0 ? bytes / 1e6 / (wallMs / 1000) : 0,
    mainThreadBusy: both ? Math.min(1, Math.max(0, (b.mainThreadBusyMs - a.mainThreadBusyMs) / upMs)) : null,
    processes: b?.processes ?? 0,
    offMainShare: both && bytes > 0 ? Math.min(1, (b.bytes - a.bytes) / bytes) : null,
    clientLoopBusy,
  };
}

function verifyAll(vk: VerificationKey, proofs: ProofOutput[]): { verified: number; errors: string[] } {
  const vkBytes = encodeVerificationKey(vk);
  let verified = 0;
  const errors: string[] = [];
  for (const p of proofs) {
    try {
      const proof = parseProofJson(p.proof, { curve: vk.curve });
      const signals = parsePublicJson(p.publicSignals, { curve: vk.curve, nPublic: vk.nPublic });
      if (verifyGroth16(vk, signals, proof, vkBytes)) verified++;
      else errors.push('E_PROOF_INVALID: a proof from the daemon does not verify here');
    } catch (e) {
      errors.push(`${(e as { code?: string }).code ?? 'E_INTERNAL'}: proof from the daemon: ${errorMessage(e)}`);
    }
  }
  return { verified, errors };
}

async function runProtocol(address: string, protocol: Protocol, keyId: string, vk: VerificationKey, opts: DaemonBenchOptions): Promise<RemoteStats> {
  const connect = () => new CuzkClient({ address, token: opts.token, protocol });
  const clients = Array.from({ length: opts.clients }, connect);
  const statusClient = connect();
  const progress = opts.onProgress ?? (() => {});
  const name = protocol === 'grpc' ? 'gRPC' : 'Connect';
  progress(`${name} warm-up`, 0, opts.warmup);
  let t0 = 0;
  let elu0: EventLoopUtilization | undefined;
  let s0: Promise<DaemonStatus> | undefined;
  let capture: DashboardCapture | undefined;
  let dashboard: RemoteStats['dashboard'];
  const p = opts.partitions ?? 1;
  const job: Omit<SubmitRequest, 'key'> = opts.inputs ? { inputs: Array.from({ length: p }, () => opts.inputs!.input), generator: opts.inputs.generator }
    : p > 1 ? { witnessFiles: Array.from({ length: p }, () => path.resolve(witnessFile(opts))) } : { witnesses: [opts.witness] };
  const { warm, run } = await pump(clients, job, keyId, opts.warmup, opts.jobs, (d) => progress(`${name} proving`, d, opts.jobs), () => {
    t0 = performance.now();
    elu0 = performance.eventLoopUtilization();
    s0 = statusClient.status();
    if (opts.dashboardCapture !== undefined) capture = captureDashboard({ address, token: opts.token });
  });
  const wallMs = performance.now() - t0;
  const clientLoopBusy = elu0 ? performance.eventLoopUtilization(elu0).utilization : 0;
  if (capture) {
    const c = await capture.stop();
    const file = path.join(opts.dashboardCapture!, `dashboard-${protocol}.json`);
    const kept = writeCapture(file, `${name} window, ${opts.jobs} jobs, ${opts.clients} clients`, c);
    dashboard = { file, fetched: c.fetched, kept, problems: c.problems };
  }
  const s1 = await statusClient.status();
  const busy0 = gpuBusyMs(await s0!);
  const busy1 = gpuBusyMs(s1);
  const upMs = s1.uptimeMs - (await s0!).uptimeMs;
  const gpuUtilisation = busy1.length === 0 || upMs <= 0 ? null : Math.max(0, busy1.reduce((a, b, i) => a + b - (busy0[i] ?? 0), 0) / (upMs * busy1.length));
  const proofs = [...warm.proofs, ...run.proofs];
  const check = verifyAll(vk, proofs);
  const bytesPerJob = opts.inputs ? Buffer.byteLength(JSON.stringify(opts.inputs.input)) : job.witnessFiles ? Buffer.byteLength(job.witnessFiles.join('')) : opts.witness.length;
  // a run job may start before the window opens (the last warm-up job still proving) and store its
  // witness before s0: counting those put 10-25% of the bytes on the main thread that never crossed it
  const inWindow = run.submitEnds.filter((t) => t >= t0).length;
  const intake = intakeOverWindow((await s0!).intake, s1.intake, upMs, bytesPerJob * inWindow, wallMs, clientLoopBusy);
  const sorted = [...run.latencies].sort((a, b) => a - b);
  const completed = sorted.length;
  return {
    protocol,
    jobs: opts.jobs,
    warmup: opts.warmup,
    completed,
    failed: opts.jobs - completed + (opts.warmup - warm.latencies.length),
    errors: [...new Set([...warm.errors, ...run.errors, ...check.errors])].slice(0, 5),
    wallMs,
    proofsPerSec: (completed * p) / (wallMs / 1000),
    latencyMs: { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), mean: sorted.reduce((a, b) => a + b, 0) / Math.max(1, completed), max: sorted.at(-1) ?? 0 },
    gpuUtilisation,
    submit: submitStats(bytesPerJob, run.submitMs),
    intake,
    proofsReceived: proofs.length,
    verifiedHere: check.verified,
    ...(dashboard ? { dashboard } : {}),
  };
}

function readVerificationKey(zkey: string): VerificationKey {
  const file = ZkeyFile.open(zkey);
  try {
    return verificationKeyFromZkey(file.header, file.read('IC'));
  } finally {
    file.close();
  }
}

async function onDaemon(address: string, opts: DaemonBenchOptions): Promise<Omit<DaemonBenchResult, 'self'>> {
  if (opts.dashboardCapture !== undefined) {
    snapshotUrl(address); // a unix socket fails here, before any job
    mkdirSync(opts.dashboardCapture, { recursive: true });
  }
  const client = new CuzkClient({ address, token: opts.token });
  const key = await client.loadKey(opts.uploadKey ? { zkeyFile: opts.zkey } : { path: path.resolve(opts.zkey) });
  const vk = readVerificationKey(opts.zkey);
  const grpc = await runProtocol(address, 'grpc', key.id, vk, opts);
  const connect = await runProtocol(address, 'connect', key.id, vk, opts);
  const st = await client.status();
  return { address, keyId: key.id, clients: opts.clients, backend: st.backend, devices: st.devices.map((d) => `${d.id} ${d.name}`), grpc, connect };
}

/** Fails fast, naming the address, when a daemon given by address cannot be reached ('self' passes). */
export async function checkRemote(remote: string, token?: string): Promise<void> {
  if (remote !== 'self') await new CuzkClient({ address: remote, token }).status();
}

/** The stream through the daemon; with 'self', a `cuzk serve` child started here and stopped after. */
export async function benchDaemon(opts: DaemonBenchOptions): Promise<DaemonBenchResult> {
  if (opts.remote !== 'self') return { ...(await onDaemon(opts.remote, opts)), self: null };
  const engineArgs = ['--backend', opts.engine.backend, '--threads', String(opts.engine.threads), ...(opts.engine.gpuBytes !== undefined ? ['--memory-gpu-bytes', String(opts.engine.gpuBytes)] : [])];
  if (opts.tracePath) engineArgs.push('--trace-path', path.resolve(opts.tracePath));
  const keyDirs = [...new Set([opts.zkey, ...(opts.inputs ? [opts.inputs.generator] : [])].map((f) => path.dirname(path.resolve(f))))];
  const inputDirs = (opts.partitions ?? 1) > 1 ? [path.dirname(path.resolve(witnessFile(opts)))] : [];
  const child = await startServeChild({ engineArgs, keyDirs, inputDirs, spoolDir: opts.spoolDir });
  const outcome = await onDaemon(child.address, opts).then((r) => ({ r }), (err: unknown) => ({ err }));
  const exitStatus = await child.stop();
  if ('err' in outcome) throw outcome.err;
  if (exitStatus !== 0) throw new CuzkError('E_INTERNAL', `the cuzk serve child (pid ${child.pid}, ${child.address}) exited with ${exitStatus} after SIGTERM, expected 0`);
  return { ...outcome.r, self: { pid: child.pid, exitStatus } };
}

/** One run of the side-by-side comparison (in-process, gRPC, Connect). */
export interface CompareRow {
  run: 'in-process' | 'in-process, inputs' | Protocol;
  completed: number;
  failed: number;
  proofsPerSec: number;
  /** proofsPerSec / the in-process run's */
  vsInProcess: number;
  latencyMs: { p50: number; p99: number };
  gpuUtilisation: number | null;
  submit: SubmitStats;
  /** Proofs checked again by this bench (the engine or daemon verified every one first); null in-process. */
  verifiedHere: number | null;
  /** No failed job, and every proof that came back verified. */
  allVerified: boolean;
  /** The daemon's front door over the window (RemoteStats.intake); null in-process. */
  intake: RemoteStats['intake'] | null;
}

/** `inputs`: the in-process stream fed by inputs, a row of its own (the daemon's streams then carry inputs too). */
export function compareRows(local: StreamStats, d: DaemonBenchResult, inputs?: StreamStats): CompareRow[] {
  const ratio = (x: number) => (local.proofsPerSec > 0 ? x / local.proofsPerSec : 0);
  const row = (run: CompareRow['run'], s: StreamStats | RemoteStats, verifiedHere: number | null, allVerified: boolean): CompareRow => ({
    run, completed: s.completed, failed: s.failed, proofsPerSec: s.proofsPerSec, vsInProcess: ratio(s.proofsPerSec),
    latencyMs: { p50: s.latencyMs.p50, p99: s.latencyMs.p99 }, gpuUtilisation: s.gpuUtilisation, submit: s.submit, verifiedHere, allVerified,
    intake: 'intake' in s ? s.intake : null,
  });
  const remote = (s: RemoteStats) => row(s.protocol, s, s.verifiedHere, s.failed === 0 && s.verifiedHere === s.proofsReceived);
  return [row('in-process', local, null, local.failed === 0), ...(inputs ? [row('in-process, inputs', inputs, null, inputs.failed === 0)] : []), remote(d.grpc), remote(d.connect)];
}

/** Table rows: label, then one cell per CompareRow. */
export function compareTable(rows: CompareRow[]): string[][] {
  const f = (x: number | null, d: number) => (x === null ? '-' : x.toFixed(d));
  const rate = (x: number | null) => (x === null ? '-' : x.toFixed(x >= 100 ? 0 : 1));
  const line = (label: string, get: (r: CompareRow) => string) => [label, ...rows.map(get)];
  return [
    ['', ...rows.map((r) => (r.run === 'grpc' ? 'gRPC' : r.run === 'connect' ? 'Connect' : r.run))],
    line('jobs completed / failed', (r) => `${r.completed} / ${r.failed}`),
    line('proofs/s', (r) => f(r.proofsPerSec, 2)),
    line('proofs/s vs in-process', (r) => `${r.vsInProcess.toFixed(2)}x`),
    line('latency p50 ms', (r) => f(r.latencyMs.p50, 0)),
    line('latency p99 ms', (r) => f(r.latencyMs.p99, 0)),
    line('GPU kernel utilisation', (r) => (r.gpuUtilisation === null ? '-' : `${(100 * r.gpuUtilisation).toFixed(1)}%`)),
    line('submit MB/s', (r) => rate(r.submit.mbPerSec)),
    line('submit p50 ms', (r) => f(r.submit.p50Ms, 2)),
    line('witness MB/s in all', (r) => (r.intake ? rate(r.intake.witnessMbPerSec) : '-')),
    line('daemon main thread busy', (r) => (r.intake?.mainThreadBusy == null ? '-' : `${(100 * r.intake.mainThreadBusy).toFixed(1)}%`)),
    line('received off main thread', (r) => (r.intake?.offMainShare == null ? '-' : `${(100 * r.intake.offMainShare).toFixed(0)}% (${r.intake.processes} intake processes)`)),
    line("clients' event loop busy", (r) => (r.intake ? `${(100 * r.intake.clientLoopBusy).toFixed(1)}%` : '-')),
    line('proofs verified', (r) => (r.verifiedHere === null ? (r.allVerified ? 'all (engine)' : 'NO') : r.allVerified ? `all (daemon + ${r.verifiedHere} here)` : `NO (${r.verifiedHere} here)`)),
  ];
}
