// `cuzk` command: global options, dispatch to one module per command, one-line errors and exit
// statuses (0 ok, 1 failed/invalid, 2 bad input). Imports only what the chosen command needs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { setLogLevel } from '../log.js';
import { exitCodeFor, PROCESS_IO, reportError, type CliContext, type CliIo } from './output.js';
import { findProjectRoot } from './root.js';
import { BOOL_FLAGS, checkFlags, noPositionals, VALUE_FLAGS } from './flags.js';

const HELP = `cuzk: a fast Groth16 prover for snarkjs keys (BN254, BLS12-381)

usage: cuzk <command> [arguments] [options]

commands:
  prove <zkey> <wtns> <proof.json> <public.json>                 prove (snarkjs groth16 prove)
  fullprove <input.json> <gen> <zkey> <proof.json> <public.json>  witness + prove (snarkjs groth16 fullprove; gen: .wasm or native)
  witness build <CIRCUIT_cpp/> <out> | calc <gen> <input> <wtns>  native witness generator from circom --c; one witness
  verify <vkey.json> <public.json> <proof.json>                   verify (exit 0 valid, 1 invalid, 2 bad input)
  zkey export verificationkey <zkey> <vkey.json>                  export the verification key
  dev-circuit --constraints N --curve C <out.r1cs> <out.wtns>     synthetic circuit + witness (testing)
  dev-setup <circuit.r1cs> <out.zkey>                             INSECURE key from a known tau (testing)
  dev-setup --constraints N --curve C <out.zkey> <out.wtns>       both at once, no .r1cs on disk (testing)
  bench --circuit <zkey> --witness <wtns> | --size K              the engine on a stream of jobs: proofs/s, latency, GPU use
                                                                  (--remote self|<addr>: the same through a daemon, side by side)
  report <trace.json> <report.html>                               a trace as an offline HTML page: device use, idle gaps and why
  demo                                                            prove the bundled examples (npm start)

serving (docs: README "Serving"):
  serve [--config cuzk.toml] [--print-config] [--check]           run the proving daemon (gRPC + JSON over HTTP)
  doctor [--config cuzk.toml] [serve options]                     can this machine serve as configured? what to fix
  submit <key> <wtns>... --remote <addr>                          queue a job on a daemon, print its id
  await <job-id> [<proof.json> <public.json>] --remote <addr>     wait for a job, write its proof
  prove <zkey> <wtns> <proof.json> <public.json> --remote <addr>  prove on a daemon (same files as local prove)
  status | keys [load <path>|evict <id>] | cancel <job-id>        daemon state, keys, cancel (--remote <addr>)
  queue pause|resume --remote <addr>                              hold the daemon's queue (running jobs finish), or release it
  trace --seconds N <out.json> --remote <addr>                    the daemon's last N seconds as a Perfetto trace (for \`cuzk report\`)

options: --json (machine-readable output)  --quiet  --verbose (stacks)  --threads N  --help  --version
\`snarkjs groth16 <prove|fullprove|verify>\` spellings work too: \`cuzk groth16 prove ...\`.
Run \`cuzk <command> --help\` for details.`;

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

export function parseArgv(argv: string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = a.slice(2, eq < 0 ? undefined : eq);
      if (eq >= 0) flags.set(name, a.slice(eq + 1));
      else if (VALUE_FLAGS.has(name)) {
        const v = argv[++i];
        if (v === undefined) throw new InputError('E_INVALID_ARG', `--${name} needs a value`);
        flags.set(name, v);
      } else if (BOOL_FLAGS.has(name) && (argv[i + 1] === 'true' || argv[i + 1] === 'false')) flags.set(name, argv[++i]!);
      else flags.set(name, true);
    } else if (a === '-h') flags.set('help', true);
    else positionals.push(a);
  }
  return { positionals, flags };
}

function version(): string {
  const pkg = JSON.parse(readFileSync(path.join(findProjectRoot(), 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

async function dispatch(ctx: CliContext, cmd: string, args: string[], p: ParsedArgs): Promise<number> {
  const help = p.flags.has('help');
  switch (cmd) {
    case 'serve': {
      const m = await import('./serve.js');
      if (help) return (ctx.io.out(m.SERVE_HELP + '\n'), 0);
      noPositionals(cmd, args);
      return m.serveCommand(ctx, p.flags);
    }
    case 'doctor': {
      const m = await import('./doctor.js');
      if (help) return (ctx.io.out(m.DOCTOR_HELP + '\n'), 0);
      noPositionals(cmd, args);
      return m.doctorCommand(ctx, p.flags);
    }
    case 'submit':
    case 'await':
    case 'status':
    case 'cancel':
    case 'queue':
    case 'keys':
    case 'trace': {
      const m = await import('./remote.js');
      if (help) return (ctx.io.out(m.REMOTE_HELP + '\n'), 0);
      return m.remoteCommand(ctx, cmd, args, p.flags);
    }
    case 'prove':
    case 'fullprove': {
      if (cmd === 'prove' && p.flags.has('remote') && !help) return (await import('./remote.js')).remoteCommand(ctx, 'prove', args, p.flags);
      const m = await import('./prove.js');
      if (help) return (ctx.io.out(m.PROVE_HELP + '\n'), 0);
      return cmd === 'prove' ? m.proveCommand(ctx, args, p.flags) : m.fullproveCommand(ctx, args, p.flags);
    }
    case 'verify': {
      const m = await import('./verify.js');
      if (help) return (ctx.io.out(m.VERIFY_HELP + '\n'), 0);
      return m.verifyCommand(ctx, args);
    }
    case 'zkey': {
      const m = await import('./zkey.js');
      if (help) return (ctx.io.out(m.ZKEY_HELP + '\n'), 0);
      return m.zkeyCommand(ctx, args);
    }
    case 'dev-circuit':
    case 'dev-setup': {
      const m = await import('./dev.js');
      if (help) return (ctx.io.out(m.DEV_HELP + '\n'), 0);
      return cmd === 'dev-circuit' ? m.devCircuitCommand(ctx, args, p.flags) : m.devSetupCommand(ctx, args, p.flags);
    }
    case 'bench': {
      const m = await import('./bench.js');
      if (help) return (ctx.io.out(m.BENCH_HELP + '\n'), 0);
      return m.benchCommand(ctx, args, p.flags);
    }
    case 'report': {
      const m = await import('./report.js');
      if (help) return (ctx.io.out(m.REPORT_HELP + '\n'), 0);
      return m.reportCommand(ctx, args, p.flags);
    }
    case 'witness': {
      const m = await import('./witness.js');
      if (help) return (ctx.io.out(m.WITNESS_HELP + '\n'), 0);
      return m.witnessCommand(ctx, args);
    }
    case 'demo':
      return (await import('./demo.js')).demoCommand(ctx);
    default:
      throw new InputError('E_INVALID_ARG', `unknown command "${cmd}": run \`cuzk --help\``);
  }
}

export async function main(argv: string[], io: CliIo = PROCESS_IO): Promise<number> {
  const ctx: CliContext = { json: false, verbose: false, quiet: false, io };
  try {
    const p = parseArgv(argv);
    ctx.json = p.flags.has('json');
    ctx.verbose = p.flags.has('verbose');
    ctx.quiet = p.flags.has('quiet');
    // flags win; otherwise CUZK_LOG (read by log.ts) keeps its say, as the README promises. Unset, a
    // command logs warnings only (a snarkjs drop-in prints no JSON lines; the backend line is
    // --verbose's); `cuzk serve` then sets its own log_level.
    if (ctx.verbose) setLogLevel('debug');
    else if (ctx.json || ctx.quiet || process.env.CUZK_LOG === undefined) setLogLevel('warn');
    if (p.flags.has('version')) return (ctx.io.out(version() + '\n'), 0);
    let [cmd, ...args] = p.positionals;
    if (cmd === 'groth16' || cmd === 'g16') [cmd, ...args] = args;
    if (cmd === 'g16p') cmd = 'prove';
    if (cmd === 'g16f') cmd = 'fullprove';
    if (cmd === 'g16v') cmd = 'verify';
    if (!cmd) return (ctx.io.out(HELP + '\n'), p.flags.has('help') ? 0 : 2);
    checkFlags(cmd, p.flags);
    const threads = p.flags.get('threads');
    if (threads !== undefined) {
      const n = Number(threads);
      if (!Number.isInteger(n) || n < 0 || n > 4096) throw new InputError('E_INVALID_ARG', `--threads must be an integer 0..4096, got ${String(threads)}`);
      (await import('../ffi/native.js')).setThreads(n);
    }
    return await dispatch(ctx, cmd, args, p);
  } catch (err) {
    reportError(err, ctx);
    return exitCodeFor(err);
  }
}

