// `cuzk bench`: the engine in this process on a stream of jobs (src/engine/bench-stream.ts does
// the work and the measuring); this file parses options, finds or makes the fixture, and prints.
import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';
import { setLogLevel } from '../log.js';
import { curveByName, type CurveName } from '../formats/curves.js';
import { benchFixture } from '../dev/bench-fixture.js';
import { benchEngine, benchRows, offTracePath, type BenchResult } from '../engine/bench-stream.js';
import { note, printResult, progress, type CliContext } from './output.js';

export const BENCH_HELP = `usage: cuzk bench --circuit <circuit.zkey> --witness <witness.wtns> [options]
       cuzk bench --size K [--curve bn128|bls12381] [options]

Runs the proving engine in this process on a stream of jobs (one proof each, the same witness) and
reports proofs/s, latency p50/p99 (submit to completed), GPU kernel utilisation, H2D GB/s, device
time per proof and the target check "throughput >= 0.9 / device time per proof", peak RSS and
pinned-pool allocations after warm-up. Every proof is verified; any failed job gives exit 1.
--size K makes (once) an INSECURE dev circuit and key of 2^K constraints under ./.cache/bench.

Options: --jobs N            measured jobs (default 20)
         --warmup W          jobs before the measured window (default 2 per device; fewer leaves the
                             pinned pool short), then the pool counts as warm
         --concurrency C     jobs kept in flight (default 2 x the engine's running slots = 4 per device)
         --compare pinned:off  run the same stream again with pageable buffers and print the ratios
         --trace out.json    Chrome/Perfetto trace of the run (pinned-off run: out-pinned-off.json)
         --backend cpu|cuda|auto   (default auto)
         --threads N         CPU threads (default: all cores)
         --json              the result as JSON on stdout`;

type Flags = Map<string, string | true>;

function intFlag(flags: Flags, name: string, dflt: number | undefined, min: number, max: number): number | undefined {
  const v = flags.get(name);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new InputError('E_INVALID_ARG', `--${name} must be an integer ${min}..${max}, got ${String(v)}`);
  return n;
}

function strFlag(flags: Flags, name: string): string | undefined {
  const v = flags.get(name);
  if (v === true) throw new InputError('E_INVALID_ARG', `--${name} needs a value`);
  return v;
}

async function resolveCircuit(ctx: CliContext, flags: Flags): Promise<{ zkey: string; wtns: string }> {
  const size = intFlag(flags, 'size', undefined, 1, 28);
  const zkey = strFlag(flags, 'circuit');
  const wtns = strFlag(flags, 'witness');
  if (size !== undefined) {
    if (zkey || wtns) throw new InputError('E_INVALID_ARG', 'give either --size K or --circuit and --witness, not both');
    const curveArg = strFlag(flags, 'curve') ?? 'bn128';
    const curve = curveByName(curveArg);
    if (!curve) throw new InputError('E_INVALID_ARG', `--curve must be bn128 or bls12381, got ${curveArg}`);
    note(ctx, `fixture: ${curve.name} 2^${size} (made once, INSECURE dev key)...`);
    const fx = await benchFixture(process.cwd(), curve.name as CurveName, size, (s) => note(ctx, s));
    return { zkey: fx.zkey, wtns: fx.wtns };
  }
  if (!zkey || !wtns) throw new InputError('E_INVALID_ARG', `bench needs --circuit <zkey> and --witness <wtns>, or --size K\n${BENCH_HELP}`);
  return { zkey, wtns };
}

function readBytes(file: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(file));
  } catch (cause) {
    throw new InputError('E_NOT_FOUND', `${file}: cannot read the witness file (${(cause as NodeJS.ErrnoException).code ?? cause})`, { cause });
  }
}

/** The result as an aligned text table (metric, run, pinned-off run, ratio). */
export function benchTable(r: BenchResult): string {
  const head: [string, string, string, string] = ['', r.run.pinned ? 'pinned' : 'pageable', r.off ? 'pinned off' : '', r.off ? 'pinned/off' : ''];
  const rows = [head, ...benchRows(r)];
  const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((row) => row[c]!.length)));
  return rows.map((row) => row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd()).join('\n');
}

export async function benchCommand(ctx: CliContext, args: string[], flags: Flags): Promise<number> {
  if (args.length > 0) throw new InputError('E_INVALID_ARG', `bench takes options only, got "${args.join(' ')}"\n${BENCH_HELP}`);
  const jobs = intFlag(flags, 'jobs', 20, 1, 1_000_000)!;
  const warmup = intFlag(flags, 'warmup', undefined, 0, 1_000_000);
  const concurrency = intFlag(flags, 'concurrency', undefined, 1, 1024);
  const threads = intFlag(flags, 'threads', 0, 0, 4096)!;
  const compare = strFlag(flags, 'compare');
  if (compare !== undefined && compare !== 'pinned:off') throw new InputError('E_INVALID_ARG', `--compare supports only pinned:off, got ${compare}`);
  const backend = strFlag(flags, 'backend') ?? 'auto';
  if (backend !== 'auto' && backend !== 'cpu' && backend !== 'cuda') throw new InputError('E_INVALID_ARG', `--backend must be cpu, cuda or auto, got ${backend}`);
  const tracePath = strFlag(flags, 'trace');
  if (!ctx.verbose && process.env.CUZK_LOG === undefined) setLogLevel('warn'); // not a line per job
  const { zkey, wtns } = await resolveCircuit(ctx, flags);
  const witness = readBytes(wtns);

  const r = await benchEngine({
    zkey, witness, jobs, warmup, concurrency, tracePath,
    comparePinnedOff: compare !== undefined,
    config: { backend, threads },
    onProgress: progress(ctx),
  });
  const failed = r.run.failed + (r.off?.failed ?? 0);
  const k = r.run.key;
  const lg = Math.log2(k.domainSize);
  printResult(ctx, { ok: failed === 0, zkey, witness: wtns, ...r }, [
    `cuzk bench: ${zkey} (${k.curve}, domain 2^${lg}, ${k.nVars} wires), ${r.run.backend} backend on ${r.run.lanes.join(', ')}`,
    `${jobs} jobs after ${r.run.warmup} warm-up, ${r.run.concurrency} in flight; every proof verified; window ${(r.run.wallMs / 1000).toFixed(1)} s`,
    '',
    benchTable(r),
    ...(tracePath ? ['', `trace: ${tracePath}${r.off ? ` and ${offTracePath(tracePath)}` : ''} (open in https://ui.perfetto.dev or chrome://tracing)`] : []),
  ].join('\n'));
  if (failed > 0) {
    ctx.io.err(`cuzk: ${failed} job(s) failed: ${[...new Set([...r.run.errors, ...(r.off?.errors ?? [])])].join('; ')}\n`);
    return 1;
  }
  return 0;
}
