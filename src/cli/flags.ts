// The one table of the CLI's flags: which take a value (for the argv parser) and which each command
// accepts (anything else is refused, naming the flag, exit 2). No imports but the serve option table
// (itself import-free), so main.ts's parser loads nothing.
import { OPTIONS, SERVE_VALUE_FLAGS } from '../server/startup/config-options.js';
import { InputError } from '../errors.js';

/** Every command accepts these. */
const GLOBAL = ['json', 'quiet', 'verbose', 'threads', 'help', 'version'];
const REMOTE_VALUES = ['remote', 'token', 'priority', 'request-id', 'timeout-ms', 'deadline-ms', 'key-id', 'protocol', 'tls-ca', 'tls-cert', 'tls-key'];
const REMOTE = [...REMOTE_VALUES, 'upload-key'];
const BENCH_VALUES = ['circuit', 'witness', 'size', 'curve', 'jobs', 'concurrency', 'warmup', 'compare', 'trace', 'backend', 'remote', 'clients', 'token', 'inputs', 'generator', 'partitions', 'witness-slots', 'memory-gpu-bytes', 'key-residency', 'stream-chunk-points', 'spool-dir'];
const DEV_VALUES = ['constraints', 'curve', 'seed'];
const REPORT_VALUES = ['bin-ms'];
const TRACE_VALUES = ['seconds'];
const SERVE = [...OPTIONS.map((o) => o.flag), 'config', 'print-config', 'check'];

/** Flags that take the next argument as their value (`--name value`; `--name=value` always works). */
export const VALUE_FLAGS: ReadonlySet<string> = new Set([
  'threads', ...REMOTE_VALUES, ...BENCH_VALUES, ...DEV_VALUES, ...REPORT_VALUES, ...TRACE_VALUES, ...SERVE_VALUE_FLAGS,
]);

/** `cuzk serve`'s boolean options: bare they mean true, and a following `true` or `false` is their
 * value (`--verify false` left verify on, `false` a stray argument, before this). */
export const BOOL_FLAGS: ReadonlySet<string> = new Set(OPTIONS.filter((o) => o.type === 'bool').map((o) => o.flag));

/** Refuses arguments a command that takes only options was given (they were ignored before). */
export function noPositionals(command: string, args: readonly string[]): void {
  if (args.length > 0) throw new InputError('E_INVALID_ARG', `\`cuzk ${command}\` takes options only, got the argument "${args[0]!.slice(0, 100)}" (a boolean option takes true or false: --verify false)`);
}

const COMMAND_FLAGS: Record<string, readonly string[]> = {
  prove: ['memory-gpu-bytes'],
  'prove --remote': REMOTE,
  fullprove: ['memory-gpu-bytes'],
  witness: [],
  verify: [],
  zkey: [],
  'dev-circuit': DEV_VALUES,
  'dev-setup': DEV_VALUES,
  bench: [...BENCH_VALUES, 'upload-key'],
  demo: [],
  report: REPORT_VALUES,
  serve: SERVE,
  doctor: SERVE.filter((f) => f !== 'print-config' && f !== 'check'),
  submit: REMOTE,
  await: REMOTE,
  status: REMOTE,
  cancel: REMOTE,
  queue: REMOTE,
  keys: REMOTE,
  trace: [...REMOTE_VALUES, ...TRACE_VALUES],
};

/** Throws E_INVALID_ARG for the first flag `command` does not take (unknown commands are main's to refuse). */
export function checkFlags(command: string, flags: ReadonlyMap<string, unknown>): void {
  const table = command === 'prove' && flags.has('remote') ? 'prove --remote' : command;
  const own = COMMAND_FLAGS[table];
  if (own === undefined) return;
  for (const name of flags.keys()) {
    if (GLOBAL.includes(name) || own.includes(name)) continue;
    throw new InputError('E_INVALID_ARG', `unknown option --${name} for \`cuzk ${command}\`: see \`cuzk ${command} --help\``);
  }
}

/** A command's parsed flags: `--name value` (or `--name=value`), a bare `--name` true. */
export type Flags = ReadonlyMap<string, string | true>;

/** `--name`'s integer value in [min, max], `dflt` when absent; E_INVALID_ARG naming it otherwise. */
export function intFlag(flags: Flags, name: string, dflt: number | undefined, min: number, max: number): number | undefined {
  const v = flags.get(name);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new InputError('E_INVALID_ARG', `--${name} must be an integer ${min}..${max}, got ${String(v)}`);
  return n;
}
