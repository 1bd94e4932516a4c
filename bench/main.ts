// `npm run bench -- cpu [--sizes 12,14,16] [--curve bn128] [--proofs 3] [--rapidsnark PATH]`: cuzk's CPU
// core against snarkjs on the same dev-circuits in the same run. Prints time per proof (median), peak
// RSS, the ratio and the floor ratio, and appends the table to bench/RESULTS.md with date, machine,
// commit. With --rapidsnark (e.g. ../shared/peers/rapidsnark/prover) rapidsnark runs on the same files
// too, whole process per proof, beside `cuzk prove` as a whole process (the compiled CLI), and the
// rapidsnark / cuzk ratio is printed beside the snarkjs one.
// `npm run bench -- engine [--size 16 | --circuit z --witness w] [--jobs 20] [--compare pinned:off] ...`:
// the engine under a stream of jobs (src/engine/bench-stream.ts, what `cuzk bench` runs), appended too;
// with `--remote self|host:port [--clients 10]` the same stream through a daemon (src/dev/bench-daemon.ts),
// in-process / gRPC / Connect side by side; `--dashboard-capture DIR` keeps the daemon's dashboard frames
// of each window (src/dev/dashboard-capture.ts) for scripts/dashboard-replay.mjs.
// `npm run bench -- fleet [--daemons 3] [--jobs 30]`: daemons sharing one PostgreSQL queue against one (bench/fleet.ts).
import { execSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchDaemon, checkRemote, compareRows, compareTable, daemonTracePath } from '../src/dev/bench-daemon.js';
import { benchEngine, benchRows, type BenchResult } from '../src/engine/bench-stream.js';
import type { CurveName } from '../src/formats/curves.js';
import { setLogLevel } from '../src/log.js';
import { benchFixture } from './fixtures.js';
import { cpuFloorMs } from './floor.js';
import { appendResults as appendResultsTo, commitOf } from './results.js';


// as bin/cuzk.js: enough libuv threads for two phase-2 proofs per GPU plus synthesis and verification
process.env.UV_THREADPOOL_SIZE ??= '32';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function flag(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : dflt;
}

function optFlag(name: string): string | undefined {
  const v = flag(name, '');
  return v === '' ? undefined : v;
}

const appendResults = (note: string) => appendResultsTo(root, note);

const machine = () => `${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'})`;

interface ChildResult {
  loadMs: number;
  proveMs: number[];
  maxRssMiB: number;
}

function runChild(who: string, zkey: string, wtns: string, proofs: number): ChildResult {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'bench', 'prove-child.ts'), who, zkey, wtns, String(proofs)], {
    encoding: 'utf8',
    env: { ...process.env, CUZK_LOG: 'warn' },
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0) throw new Error(`${who} failed (exit ${r.status}): ${r.stderr}`);
  const line = r.stdout.trim().split('\n').pop()!;
  return JSON.parse(line) as ChildResult;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Wall ms of each of `runs` runs of `cmd args` as a whole process (exit 0 required). */
function processMs(cmd: string, args: string[], runs: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, CUZK_LOG: 'warn' }, maxBuffer: 1 << 24 });
    const ms = performance.now() - t;
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}): ${r.stderr || r.error?.message}`);
    out.push(ms);
  }
  return out;
}

/** rapidsnark and `cuzk prove` (compiled, as bin/cuzk.js runs it) on the same files, whole process each. */
function wholeProcess(rapidsnark: string, zkey: string, wtns: string, proofs: number): { rapidsnarkMs: number; cuzkMs: number } {
  const tmp = path.join(os.tmpdir(), `cuzk-bench-${process.pid}`);
  const outs = [path.join(tmp + '-proof.json'), path.join(tmp + '-public.json')];
  const cli = path.join(root, 'dist', 'src', 'cli', 'run.js');
  if (!existsSync(cli)) execSync('npm run build:ts', { cwd: root, stdio: 'inherit' });
  const rapidsnarkMs = median(processMs(rapidsnark, [zkey, wtns, ...outs], proofs));
  const cuzkMs = median(processMs(process.execPath, [cli, 'prove', zkey, wtns, ...outs, '--quiet'], proofs));
  return { rapidsnarkMs, cuzkMs };
}

const commit = () => commitOf(root);

async function benchCpu(): Promise<void> {
  const sizes = flag('sizes', '12,14,16').split(',').map(Number);
  const curve = flag('curve', 'bn128') as CurveName;
  const proofs = Number(flag('proofs', '3'));
  const rapidsnark = optFlag('rapidsnark');
  if (rapidsnark !== undefined && !existsSync(rapidsnark)) throw new Error(`--rapidsnark ${rapidsnark}: no such file (e.g. ../shared/peers/rapidsnark/prover)`);
  const rows: string[] = [];
  const header = `| constraints | cuzk ms/proof | cuzk peak RSS MiB | snarkjs ms/proof | snarkjs peak RSS MiB | speed-up vs snarkjs | cuzk floor ms | floor ratio |${rapidsnark ? ' rapidsnark s (process) | cuzk s (process) | rapidsnark / cuzk |' : ''}`;
  const rule = `|---|---|---|---|---|---|---|---|${rapidsnark ? '---|---|---|' : ''}`;
  console.log(`cuzk CPU bench: ${curve}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), ${proofs} proofs each\n`);
  console.log(header);
  console.log(rule);
  for (const lg of sizes) {
    const fx = await benchFixture(root, curve, lg, (s) => console.error(s));
    const ours = runChild('cuzk', fx.zkey, fx.wtns, proofs);
    const peer = runChild('snarkjs', fx.zkey, fx.wtns, proofs);
    const cm = median(ours.proveMs);
    const sm = median(peer.proveMs);
    const floor = cpuFloorMs(curve, lg, os.cpus().length);
    let row = `| 2^${lg} (${fx.constraints}) | ${cm.toFixed(0)} | ${ours.maxRssMiB.toFixed(0)} | ${sm.toFixed(0)} | ${peer.maxRssMiB.toFixed(0)} | **${(sm / cm).toFixed(1)}x** | ${floor.toFixed(0)} | ${(floor / cm).toFixed(2)} |`;
    if (rapidsnark) {
      const w = wholeProcess(rapidsnark, fx.zkey, fx.wtns, proofs);
      row += ` ${(w.rapidsnarkMs / 1000).toFixed(2)} | ${(w.cuzkMs / 1000).toFixed(2)} | **${(w.rapidsnarkMs / w.cuzkMs).toFixed(2)}x** |`;
    }
    console.log(row);
    rows.push(row);
  }
  const load = os.loadavg().map((x) => x.toFixed(1)).join(' / ');
  const note = [
    '',
    `## ${new Date().toISOString().slice(0, 10)} CPU: ${curve}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), commit ${commit()}`,
    '',
    `\`npm run bench -- cpu --sizes ${sizes.join(',')} --curve ${curve} --proofs ${proofs}${rapidsnark ? ` --rapidsnark ${rapidsnark}` : ''}\`; dev-circuits (about half the wires 0/1), median of ${proofs} proofs;`,
    'cuzk: key resident, proof verified before return; snarkjs 0.7.6 groth16.prove in-process (reads the zkey each call, as its CLI).',
    ...(rapidsnark ? ['rapidsnark: its prover binary, one whole process per proof (reads the zkey each time), beside `cuzk prove` as one whole process (compiled CLI: load, prove, verify, write), same files; median of the same count.'] : []),
    `load average at the end (1/5/15 min): ${load} on ${os.cpus().length} cores (above ${os.cpus().length} means other work competed for the CPU).`,
    'floor: dense-scalar arithmetic model (field multiplications of the 5 MSMs and 7 NTTs at the measured multiply rate, all cores); floor ratio = floor / cuzk (1.0 = at the floor; real witnesses with 0/1 values can beat it).',
    '',
    header,
    rule,
    ...rows,
    '',
  ].join('\n');
  appendResults(note);
}

const onProgress = (phase: string, d: number, t: number) => void (process.stderr.isTTY && process.stderr.write(`\r${phase} ${d}/${t}${d === t ? '\n' : ''}`));
const loadAverage = () => `load average at the end (1/5/15 min): ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} on ${os.cpus().length} cores (above ${os.cpus().length} means other work competed for the CPU).`;

interface RemoteMode {
  remote: string;
  zkey: string;
  wtns: string;
  what: string;
  argv: string;
  backend: 'auto' | 'cpu' | 'cuda';
  threads: number;
}

/** The in-process run `r` (its engine closed), then the same stream through the daemon; side by side. */
async function benchRemoteMode(r: BenchResult, m: RemoteMode): Promise<void> {
  const clients = Number(flag('clients', '10'));
  const d = await benchDaemon({
    remote: m.remote, zkey: m.zkey, witness: new Uint8Array(readFileSync(m.wtns)), jobs: r.run.jobs, warmup: r.run.warmup, clients,
    engine: { backend: m.backend, threads: m.threads }, token: optFlag('token'), uploadKey: process.argv.includes('--upload-key'), onProgress,
    tracePath: optFlag('trace') === undefined ? undefined : daemonTracePath(optFlag('trace')!), dashboardCapture: optFlag('dashboard-capture'),
  });
  for (const s of [d.grpc, d.connect]) {
    if (s.dashboard) console.log(`dashboard frames, ${s.protocol}: ${s.dashboard.fetched} fetched, the last ${s.dashboard.kept} in ${s.dashboard.file}${s.dashboard.problems.length ? ` (problems: ${s.dashboard.problems.join('; ')})` : ''}`);
  }
  const rows = compareRows(r.run, d);
  const [head, ...body] = compareTable(rows);
  const table = [`| metric | ${head!.slice(1).join(' | ')} |`, '|---|---|---|---|', ...body.map((cells) => `| ${cells.join(' | ')} |`)];
  const where = d.self ? `a \`cuzk serve\` child started by the bench (loopback, exit ${d.self.exitStatus} after SIGTERM)` : `the daemon at ${d.address}`;
  console.log(`cuzk daemon bench: ${m.what}, ${r.run.backend} on ${r.run.lanes.join(', ')}, ${machine()}\n`);
  console.log(table.join('\n'));
  appendResults([
    '',
    `## ${new Date().toISOString().slice(0, 10)} daemon vs in-process: ${r.run.backend} (${r.run.lanes.join(', ')}), ${machine()}, commit ${commit()}`,
    '',
    `\`npm run bench -- engine ${m.argv}\`; ${m.what}; ${r.run.jobs} jobs after ${r.run.warmup} warm-up per run, one proof per job.`,
    `In-process: the engine in the bench's process, ${r.run.concurrency} in flight. Then ${where}, same engine options,`,
    `${clients} SDK clients (\`cuzk/client\`) with one job in flight each (submit, then await), over gRPC and then over Connect; each protocol one continuous stream, the window opening when its warm-up jobs have completed.`,
    'Latency is submit → completed; GPU utilisation for the daemon from GetStatus (utilisation × uptime per device, delta over the window);',
    'submit MB/s = witness bytes / time inside submit calls; every proof verified by the engine, the daemon\'s again here with cuzk\'s verifier.',
    loadAverage(),
    '',
    ...table,
    '',
  ].join('\n'));
  if (!rows.every((x) => x.allVerified)) throw new Error(`jobs failed: ${[...r.run.errors, ...d.grpc.errors, ...d.connect.errors].join('; ')}`);
}

async function benchEngineMode(): Promise<void> {
  if (process.env.CUZK_LOG === undefined) setLogLevel('warn'); // not a line per job
  const curve = flag('curve', 'bn128') as CurveName;
  const argv = process.argv.slice(3).join(' ');
  let zkey = optFlag('circuit');
  let wtns = optFlag('witness');
  let what = `${zkey}`;
  if (!zkey || !wtns) {
    const fx = await benchFixture(root, curve, Number(flag('size', '16')), (s) => console.error(s));
    ({ zkey, wtns } = fx);
    what = `dev-circuit ${curve} 2^${fx.lgDomain} (${fx.constraints} constraints)`;
  }
  const num = (name: string) => (optFlag(name) === undefined ? undefined : Number(optFlag(name)));
  const remote = optFlag('remote');
  if (remote !== undefined && flag('compare', '') !== '') throw new Error('--remote and --compare pinned:off are separate runs: give one of them');
  if (remote === undefined && optFlag('dashboard-capture') !== undefined) throw new Error('--dashboard-capture DIR goes with --remote self|host:port: it captures the daemon\'s dashboard');
  if (remote !== undefined) await checkRemote(remote, optFlag('token'));
  const backend = flag('backend', 'auto') as 'auto' | 'cpu' | 'cuda';
  const threads = num('threads') ?? 0;
  const r = await benchEngine({
    zkey, witness: new Uint8Array(readFileSync(wtns)),
    jobs: num('jobs') ?? 20, warmup: num('warmup'), concurrency: num('concurrency'),
    comparePinnedOff: flag('compare', '') === 'pinned:off', tracePath: optFlag('trace'),
    config: { backend, threads },
    onProgress,
  });
  if (remote !== undefined) return benchRemoteMode(r, { remote, zkey, wtns, what, argv, backend, threads });
  const table = [
    `| metric | ${r.run.pinned ? 'pinned' : 'pageable'} |${r.off ? ' pinned off | pinned/off |' : ''}`,
    r.off ? '|---|---|---|---|' : '|---|---|',
    ...benchRows(r).map(([m, a, b, c]) => (r.off ? `| ${m} | ${a} | ${b} | ${c} |` : `| ${m} | ${a} |`)),
  ];
  console.log(`cuzk engine bench: ${what}, ${r.run.backend} on ${r.run.lanes.join(', ')}, ${machine()}\n`);
  console.log(table.join('\n'));
  appendResults([
    '',
    `## ${new Date().toISOString().slice(0, 10)} engine: ${r.run.backend} (${r.run.lanes.join(', ')}), ${machine()}, commit ${commit()}`,
    '',
    `\`npm run bench -- engine ${argv}\`; ${what}; ${r.run.jobs} jobs after ${r.run.warmup} warm-up, ${r.run.concurrency} in flight,`,
    'one proof per job, every proof verified by the engine; latency is submit → completed; device time per proof is GPU kernel',
    'time (device events) on a GPU, lane busy time on the CPU core; target: throughput >= 0.9 × lanes / device time per proof.',
    loadAverage(),
    '',
    ...table,
    '',
  ].join('\n'));
  if (r.run.failed + (r.off?.failed ?? 0) > 0) throw new Error(`jobs failed: ${[...r.run.errors, ...(r.off?.errors ?? [])].join('; ')}`);
}

/** `fleet`: D daemons on one PostgreSQL queue against one (bench/fleet.ts), appended. */
async function benchFleetMode(): Promise<void> {
  const { benchFleet, fleetTable } = await import('./fleet.js');
  const opts = { curve: flag('curve', 'bn128') as CurveName, size: Number(flag('size', '12')), jobs: Number(flag('jobs', '30')), clients: Number(flag('clients', '6')), daemons: Number(flag('daemons', '3')) };
  const { what, runs } = await benchFleet(root, opts);
  const table = fleetTable(runs);
  console.log(`cuzk fleet bench: ${what}, CPU core, ${machine()}\n`);
  console.log(table.join('\n'));
  appendResults([
    '',
    `## ${new Date().toISOString().slice(0, 10)} fleet: ${opts.daemons} daemons vs 1 on one PostgreSQL queue, CPU core, ${machine()}, commit ${commit()}`,
    '',
    `\`npm run bench -- fleet ${process.argv.slice(3).join(' ')}\`; ${what}; ${opts.jobs} jobs per run from ${opts.clients} closed-loop clients spread over the daemons,`,
    'key preloaded on every daemon, one proof per job, every proof verified by the daemon; window = first submit to last completion.',
    'Every daemon is a child process on this machine using all its cores (engine.threads 0), so with more daemons than cores the CPU',
    'bounds throughput: this measures what sharing the queue costs, not what more machines would gain.',
    'Claim statement: each daemon\'s cuzk_fleet_claim_seconds (the claim query, empty claims included; the worst daemon\'s quantile);',
    'queue wait: claimed_at - submitted_at of each job, from the jobs table.',
    loadAverage(),
    '',
    ...table,
    '',
  ].join('\n'));
  if (runs.some((r) => r.failed > 0)) throw new Error('jobs failed');
}

const mode = process.argv[2];
if (mode === 'cpu') await benchCpu();
else if (mode === 'engine') await benchEngineMode();
else if (mode === 'fleet') await benchFleetMode();
else if (mode === 'gpu') process.exit(await (await import('./gpu.js')).benchGpu(process.argv.slice(3))); // bench/gpu.ts
else if (mode === 'key-load') process.exit(await (await import('./key-load.js')).benchKeyLoad(root, process.argv.slice(3))); // bench/key-load.ts
else {
  console.error([
    'usage: npm run bench -- cpu [--sizes 12,14,16] [--curve bn128|bls12381] [--proofs N] [--rapidsnark PATH]',
    '       npm run bench -- engine [--size K [--curve C] | --circuit Z --witness W] [--jobs N] [--warmup W] [--concurrency C]',
    '                               [--compare pinned:off] [--trace out.json] [--backend cpu|cuda|auto] [--threads N]',
    '                               [--remote self|host:port [--clients N] [--token T] [--upload-key] [--dashboard-capture DIR]]',
    '       npm run bench -- fleet [--size K] [--curve C] [--jobs N] [--clients C] [--daemons D]',
    '       npm run bench -- gpu [--sizes 16,20,22,24] [--proof-sizes 16,20,22] [--runs 5] [--cpu-runs N] [--budget-s 340]',
    '       npm run bench -- key-load (--zkey PATH | --size LG) [--runs N | --fresh N] [--pinned on|off] [--upload on|off] [--compare-alloc]',
  ].join('\n'));
  process.exit(2);
}
process.exit(0);
