// `cuzk bench`: the engine in this process on a stream of jobs (src/engine/bench-stream.ts does
// the work and the measuring), and with --remote the same stream through a daemon
// (src/dev/bench-daemon.ts); this file parses options, finds or makes the fixture, and prints.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InputError } from '../errors.js';
import { intFlag } from './flags.js';
import { setLogLevel } from '../log.js';
import { curveByName, type CurveName } from '../formats/curves.js';
import { benchFixture } from '../dev/bench-fixture.js';
import { benchDaemon, checkRemote, compareRows, compareTable, daemonTracePath } from '../dev/bench-daemon.js';
import { benchEngine, benchRows, offTracePath, pipelineCheck, type BenchResult, type StreamInputs } from '../engine/bench-stream.js';
import { generatorKind } from '../engine/generator-file.js';
import { readInputFile, witnessToFile } from './witness.js';
import { readFileBytes } from './file-bytes.js';
import { note, printResult, progress, type CliContext } from './output.js';

export const BENCH_HELP = `usage: cuzk bench --circuit <circuit.zkey> --witness <witness.wtns> [options]
       cuzk bench --size K [--curve bn128|bls12381] [options]
       cuzk bench --circuit <circuit.zkey> --inputs <input.json> --generator <GEN> [--witness W] [options]

Runs the proving engine in this process on a stream of jobs (one proof each, the same witness) and
reports proofs/s, latency p50/p99 (submit to completed), GPU kernel utilisation, H2D GB/s, device
time per proof and the target check "throughput >= 0.9 / device time per proof", peak RSS and
pinned-pool allocations after warm-up. Every proof is verified; any failed job gives exit 1.
--size K makes (once) an INSECURE dev circuit and key of 2^K constraints under ./.cache/bench.

With --inputs and --generator (circom's .wasm or a native generator from \`cuzk witness build\`) the
stream runs twice: witness-fed (the witness computed once here, or --witness), then with each job
carrying the inputs so that the engine computes every witness; before the second, the witness
stage alone (its slots busy, nothing proved) gives witnesses/s. Printed: both streams side by side
with witness ms per proof and witness-stage busy, and the inputs-fed rate against the slowest stage,
min(witness-fed proofs/s, witnesses/s). With --remote the daemon's clients send inputs as well.

With --remote the same stream then runs through a \`cuzk serve\` daemon, by --clients SDK clients
(one job in flight each; per protocol one continuous stream whose window opens when its warm-up
jobs have completed) over gRPC and then over Connect, and the in-process, gRPC and Connect runs
are printed side by side: proofs/s and its ratio to in-process, latency, GPU kernel utilisation,
submit MB/s and p50, and every proof the daemon returned verified again here.
--remote self starts the daemon itself (loopback, a temporary data dir, the same --backend and
--threads) after the in-process engine has closed, and stops it with SIGTERM at the end (exit 0
expected). A remote daemon loads the key by its absolute path here, which must be valid on its
machine (and inside its allowed key directories); --upload-key sends the .zkey bytes instead.

Options: --jobs N            measured jobs (default 20)
         --warmup W          jobs before the measured window (default 2 per device; fewer leaves the
                             pinned pool short), then the pool counts as warm
         --concurrency C     jobs kept in flight (default 2 x the engine's running slots = 4 per device)
         --compare pinned:off  run the same stream again with pageable buffers and print the ratios
         --trace out.json    Chrome/Perfetto trace of the run (pinned-off run: out-pinned-off.json;
                             --remote self: the daemon's, both protocols, out-daemon.json)
         --backend cpu|cuda|auto   (default auto)
         --threads N         CPU threads (default: all cores)
         --remote self|host:port   also run the stream through a daemon (see above)
         --clients N         concurrent SDK clients for --remote (default 10)
         --token T           the daemon's bearer token (default $CUZK_TOKEN)
         --upload-key        --remote: send the .zkey bytes instead of its path
         --spool-dir DIR     --remote self: the daemon's files.spool_dir (default in its temporary data dir)
         --partitions P      partitions per job, each the same witness (the PoRep shape); with --remote
                             each job names the witness file P times, read by the daemon in place
                             (--remote self lets its daemon read that folder)
         --witness-slots N   witnesses computed at once (default: the engine's rule, cores - 1 with a GPU, cores / 2 without)
         --memory-gpu-bytes N  each GPU's memory budget (default 90% of its memory): below the key and a
                             proof's scratch, the key is streamed from pinned host memory (in process,
                             and with --remote self the daemon's engine.memory_gpu_bytes too)
         --key-residency auto|resident|streamed  how keys are placed on GPUs (default auto: resident
                             when it fits, else streamed; streamed: every set, even when it fits)
         --stream-chunk-points N  a streamed key's chunk length in points (default: the placement's choice)
         --inputs F          circuit inputs (input.json) for every job; needs --generator
         --generator GEN     the circuit's witness generator (.wasm or native)
         --json              the result as JSON on stdout`;

type Flags = Map<string, string | true>;

function strFlag(flags: Flags, name: string): string | undefined {
  const v = flags.get(name);
  if (v === true) throw new InputError('E_INVALID_ARG', `--${name} needs a value`);
  return v;
}

type CircuitSource = { size: number; curve: CurveName } | { zkey: string; wtns?: string };

function circuitSource(flags: Flags): CircuitSource {
  const size = intFlag(flags, 'size', undefined, 1, 28);
  const zkey = strFlag(flags, 'circuit');
  const wtns = strFlag(flags, 'witness');
  if (size !== undefined) {
    if (zkey || wtns) throw new InputError('E_INVALID_ARG', 'give either --size K or --circuit and --witness, not both');
    const curveArg = strFlag(flags, 'curve') ?? 'bn128';
    const curve = curveByName(curveArg);
    if (!curve) throw new InputError('E_INVALID_ARG', `--curve must be bn128 or bls12381, got ${curveArg}`);
    return { size, curve: curve.name as CurveName };
  }
  if (!zkey || (!wtns && !flags.has('inputs'))) throw new InputError('E_INVALID_ARG', `bench needs --circuit <zkey> and --witness <wtns> (or --inputs and --generator), or --size K\n${BENCH_HELP}`);
  return wtns ? { zkey, wtns } : { zkey };
}

async function resolveCircuit(ctx: CliContext, src: CircuitSource, inputs: StreamInputs | undefined): Promise<{ zkey: string; wtns: string }> {
  if ('zkey' in src) {
    if (src.wtns) return { zkey: src.zkey, wtns: src.wtns };
    // the witness-fed stream's witness: computed once from the inputs, as `cuzk witness calc` does
    const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-bench-'));
    const wtns = path.join(dir, 'witness.wtns');
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    await witnessToFile(inputs!.generator, inputs!.input, wtns, 'bench inputs');
    return { zkey: src.zkey, wtns };
  }
  note(ctx, `fixture: ${src.curve} 2^${src.size} (made once, INSECURE dev key)...`);
  const fx = await benchFixture(process.cwd(), src.curve, src.size, (s) => note(ctx, s));
  return { zkey: fx.zkey, wtns: fx.wtns };
}

function streamInputs(flags: Flags): StreamInputs | undefined {
  const file = strFlag(flags, 'inputs');
  const generator = strFlag(flags, 'generator');
  if (file === undefined && generator === undefined) return undefined;
  if (file === undefined || generator === undefined) throw new InputError('E_INVALID_ARG', '--inputs and --generator go together');
  const input = readInputFile(file);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new InputError('E_INVALID_ARG', `${file}: circuit inputs must be a JSON object`);
  generatorKind(generator); // a missing, truncated or foreign generator fails here, naming it
  return { input: input as Record<string, unknown>, generator: path.resolve(generator) };
}

/** The witness stage alone and the pipeline against its slowest stage (inputs runs only). */
function stageLines(r: BenchResult): string[] {
  const a = r.witnessAlone, check = pipelineCheck(r);
  if (!a || !check) return [];
  return [
    '',
    `witness stage alone (${a.kind}, ${a.slots} at once, ${a.count} witnesses): ${a.witnessesPerSec.toFixed(2)} witnesses/s, ${a.msPerWitness.toFixed(0)} ms each`,
    `from inputs: ${r.inputs!.proofsPerSec.toFixed(2)} proofs/s = ${check.ratio.toFixed(2)}x the slowest stage (min(witness-fed ${r.run.proofsPerSec.toFixed(2)}, witnesses ${a.witnessesPerSec.toFixed(2)}) = ${check.slowest.toFixed(2)}/s)`,
  ];
}

const readBytes = (file: string) => readFileBytes(file, 'witness');

/** The result as an aligned text table (metric, run, pinned-off or inputs-fed run, ratio). */
export function benchTable(r: BenchResult): string {
  const head: [string, string, string, string] = r.inputs
    ? ['', 'witness-fed', 'from inputs', 'inputs/witness']
    : ['', r.run.pinned ? 'pinned' : 'pageable', r.off ? 'pinned off' : '', r.off ? 'pinned/off' : ''];
  return alignTable([head, ...benchRows(r)]);
}

/** Rows as an aligned text table: labels left, cells right. */
function alignTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
  return rows.map((row) => row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd()).join('\n');
}

export async function benchCommand(ctx: CliContext, args: string[], flags: Flags): Promise<number> {
  if (args.length > 0) throw new InputError('E_INVALID_ARG', `bench takes options only, got "${args.join(' ')}"\n${BENCH_HELP}`);
  const jobs = intFlag(flags, 'jobs', 20, 1, 1_000_000)!;
  const warmup = intFlag(flags, 'warmup', undefined, 0, 1_000_000);
  const concurrency = intFlag(flags, 'concurrency', undefined, 1, 1024);
  const threads = intFlag(flags, 'threads', 0, 0, 4096)!;
  const partitions = intFlag(flags, 'partitions', 1, 1, 1024)!;
  const witnessSlots = intFlag(flags, 'witness-slots', undefined, 1, 4096);
  const gpuBytes = intFlag(flags, 'memory-gpu-bytes', undefined, 1, Number.MAX_SAFE_INTEGER);
  const residency = strFlag(flags, 'key-residency');
  if (residency !== undefined && residency !== 'auto' && residency !== 'resident' && residency !== 'streamed') {
    throw new InputError('E_INVALID_ARG', `--key-residency must be auto, resident or streamed, got ${residency}`);
  }
  const chunkPoints = intFlag(flags, 'stream-chunk-points', undefined, 1, 2 ** 31 - 1);
  if ((residency !== undefined || chunkPoints !== undefined) && flags.has('remote')) {
    throw new InputError('E_INVALID_ARG', '--key-residency and --stream-chunk-points run in process only (not with --remote)');
  }
  const compare = strFlag(flags, 'compare');
  if (compare !== undefined && compare !== 'pinned:off') throw new InputError('E_INVALID_ARG', `--compare supports only pinned:off, got ${compare}`);
  const backend = strFlag(flags, 'backend') ?? 'auto';
  if (backend !== 'auto' && backend !== 'cpu' && backend !== 'cuda') throw new InputError('E_INVALID_ARG', `--backend must be cpu, cuda or auto, got ${backend}`);
  const tracePath = strFlag(flags, 'trace');
  const remote = strFlag(flags, 'remote');
  const clients = intFlag(flags, 'clients', 10, 1, 1024)!;
  const token = strFlag(flags, 'token');
  if (remote === '') throw new InputError('E_INVALID_ARG', '--remote needs self or a daemon address (host:port, unix:/path)');
  if (remote === undefined && (flags.has('clients') || flags.has('upload-key'))) throw new InputError('E_INVALID_ARG', '--clients and --upload-key go with --remote self|host:port');
  // a daemon of our own takes the same GPU budget (its engine.memory_gpu_bytes): a streamed key through cuzk serve
  if (gpuBytes !== undefined && remote !== undefined && remote !== 'self') {
    throw new InputError('E_INVALID_ARG', '--memory-gpu-bytes goes with --remote self only (a daemon by address has its own engine.memory_gpu_bytes)');
  }
  const spoolDir = strFlag(flags, 'spool-dir');
  if (spoolDir !== undefined && remote !== 'self') throw new InputError('E_INVALID_ARG', '--spool-dir goes with --remote self (a daemon of its own sets files.spool_dir itself)');
  if (remote !== undefined && compare !== undefined) throw new InputError('E_INVALID_ARG', '--remote and --compare pinned:off are separate runs: give one of them');
  if (!ctx.verbose && process.env.CUZK_LOG === undefined) setLogLevel('warn'); // not a line per job
  const source = circuitSource(flags);
  const inputs = streamInputs(flags);
  if (inputs && 'size' in source) throw new InputError('E_INVALID_ARG', '--inputs needs the circuit\'s own key (--circuit), not a --size dev fixture');
  if (inputs && compare !== undefined) throw new InputError('E_INVALID_ARG', '--inputs and --compare pinned:off are separate runs: give one of them');
  if (remote !== undefined) await checkRemote(remote, token); // an unreachable daemon fails before the in-process run
  const { zkey, wtns } = await resolveCircuit(ctx, source, inputs);
  const witness = readBytes(wtns);

  const r = await benchEngine({
    zkey, witness, inputs, partitions, jobs, warmup, concurrency, tracePath,
    comparePinnedOff: compare !== undefined,
    config: {
      backend, threads, ...(witnessSlots ? { witness: { slots: witnessSlots } } : {}),
      ...(gpuBytes !== undefined ? { memory: { gpu: gpuBytes } } : {}), ...(residency || chunkPoints ? { gpu: { keyResidency: residency, streamChunkPoints: chunkPoints } } : {}),
    },
    onProgress: progress(ctx),
  });
  if (remote !== undefined) return remoteReport(ctx, { zkey, wtns, witness, inputs, partitions, remote, clients, token, uploadKey: flags.has('upload-key'), backend, threads, tracePath, spoolDir, gpuBytes }, r);
  const failed = r.run.failed + (r.off?.failed ?? 0) + (r.inputs?.failed ?? 0);
  printResult(ctx, { ok: failed === 0, zkey, witness: wtns, ...r }, [
    headline(zkey, r),
    `${jobs} jobs${partitions > 1 ? ` of ${partitions} partitions (proofs/s counts proofs)` : ''} after ${r.run.warmup} warm-up, ${r.run.concurrency} in flight; every proof verified; window ${(r.run.wallMs / 1000).toFixed(1)} s`,
    '',
    benchTable(r),
    ...stageLines(r),
    ...(tracePath ? ['', `trace: ${tracePath}${r.off ? ` and ${offTracePath(tracePath)}` : ''} (open in https://ui.perfetto.dev or chrome://tracing)`] : []),
  ].join('\n'));
  if (failed > 0) {
    ctx.io.err(`cuzk: ${failed} job(s) failed: ${[...new Set([...r.run.errors, ...(r.off?.errors ?? []), ...(r.inputs?.errors ?? [])])].join('; ')}\n`);
    return 1;
  }
  return 0;
}

const headline = (zkey: string, r: BenchResult) =>
  `cuzk bench: ${zkey} (${r.run.key.curve}, domain 2^${Math.log2(r.run.key.domainSize)}, ${r.run.key.nVars} wires, key ${placed(r.run.key)}), ${r.run.backend} backend on ${r.run.lanes.join(', ')}`;

/** 'gpu', or 'gpu-streamed: X of Y MiB resident, chunks of Z points' (its first device's placement). */
function placed(k: BenchResult['run']['key']): string {
  const p = k.placements?.find((x) => x.mode === 'streamed');
  if (!p) return k.residency;
  return `${k.residency}: ${(p.residentBytes / 2 ** 20).toFixed(0)} of ${(p.keyBytes / 2 ** 20).toFixed(0)} MiB resident, ${p.streamed.join(' ')} streamed in chunks of ${p.chunkPoints} points`;
}

interface RemoteRun {
  /** The in-process run's --trace file; the daemon child's trace goes beside it (daemonTracePath). */
  tracePath?: string;
  zkey: string;
  wtns: string;
  witness: Uint8Array;
  inputs?: StreamInputs;
  partitions: number;
  remote: string;
  clients: number;
  token?: string;
  uploadKey: boolean;
  backend: 'auto' | 'cpu' | 'cuda';
  threads: number;
  spoolDir?: string;
  gpuBytes?: number;
}

/** The daemon runs after the in-process one (whose engine is closed), then the side-by-side table. */
async function remoteReport(ctx: CliContext, o: RemoteRun, r: BenchResult): Promise<number> {
  const daemon = await benchDaemon({
    remote: o.remote, zkey: o.zkey, witness: o.witness, wtns: o.wtns, partitions: o.partitions, inputs: o.inputs, jobs: r.run.jobs, warmup: (r.inputs ?? r.run).warmup, clients: o.clients,
    engine: { backend: o.backend, threads: o.threads, ...(o.gpuBytes !== undefined ? { gpuBytes: o.gpuBytes } : {}) }, token: o.token, uploadKey: o.uploadKey, onProgress: progress(ctx), spoolDir: o.spoolDir,
    tracePath: o.tracePath === undefined ? undefined : daemonTracePath(o.tracePath),
  });
  const compare = compareRows(r.run, daemon, r.inputs);
  const ok = compare.every((c) => c.allVerified);
  const where = daemon.self ? `a cuzk serve child on ${daemon.address} (pid ${daemon.self.pid}, exit ${daemon.self.exitStatus} after SIGTERM)` : `the daemon at ${daemon.address} (${daemon.backend} on ${daemon.devices.join(', ')})`;
  printResult(ctx, { ok, zkey: o.zkey, witness: o.wtns, run: r.run, daemon, compare }, [
    headline(o.zkey, r),
    `${r.run.jobs} jobs${o.partitions > 1 ? ` of ${o.partitions} partitions (the daemon's name the witness file; proofs/s counts proofs)` : ''} after ${r.run.warmup} warm-up per run; in-process ${r.run.concurrency} in flight; then ${where}, ${o.clients} SDK clients with one job in flight each, gRPC then Connect`,
    '',
    alignTable(compareTable(compare)),
    ...stageLines(r),
    ...(r.inputs ? [`daemon from inputs: gRPC ${daemon.grpc.proofsPerSec.toFixed(2)}, Connect ${daemon.connect.proofsPerSec.toFixed(2)} proofs/s = ${(daemon.grpc.proofsPerSec / (pipelineCheck(r)!.slowest || 1)).toFixed(2)}x / ${(daemon.connect.proofsPerSec / (pipelineCheck(r)!.slowest || 1)).toFixed(2)}x the slowest stage`] : []),
  ].join('\n'));
  if (ok) return 0;
  const errors = [...new Set([...r.run.errors, ...(r.inputs?.errors ?? []), ...daemon.grpc.errors, ...daemon.connect.errors])];
  ctx.io.err(`cuzk: ${compare.map((c) => `${c.run} ${c.failed} failed`).join(', ')}${errors.length ? `: ${errors.join('; ')}` : ''}\n`);
  return 1;
}
