// A `cuzk serve` child process for `cuzk bench --remote self`: loopback, port 0 (the address comes
// from its "listening" log line), a temporary data dir removed when it stops, the bench's engine
// options. stop() sends SIGTERM (the daemon drains) and resolves with the exit status.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CuzkError } from '../errors.js';
import { OPTIONS } from '../server/startup/config-options.js';

/** The daemon's key-path confinement flag (issue 9): the fixture's directory is allowed with it once
 * `cuzk serve` has such an option; until then it is not passed (a daemon without it opens any path). */
export const KEY_DIRS_FLAG = 'key-dirs';

export interface ServeChild {
  address: string;
  pid: number;
  /** SIGTERM, then the exit status (a signal name if it died of one; SIGKILL after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<number | string>;
}

export interface ServeChildOptions {
  /** Engine flags as `cuzk serve` takes them, e.g. ['--backend', 'cpu', '--threads', '2']. */
  engineArgs: string[];
  /** Directories the daemon may load keys from (passed as KEY_DIRS_FLAG when the daemon has it). */
  keyDirs: string[];
  /** Directories whose files jobs may name by path (`--input-dirs`: witness files read in place). */
  inputDirs?: string[];
  /** `--spool-dir` (default: the daemon's, in its temporary data dir). */
  spoolDir?: string;
  startTimeoutMs?: number;
}

// src/dev/serve-child.ts runs under tsx, dist/src/dev/serve-child.js compiled: the child runs the
// same kind of file (src/cli/run.ts or dist/src/cli/run.js), so it is the code this bench was built from.
function cuzkEntry(): { execArgv: string[]; entry: string } {
  const here = fileURLToPath(import.meta.url);
  const ext = path.extname(here);
  return { execArgv: ext === '.ts' ? ['--import', 'tsx'] : [], entry: path.join(path.dirname(here), '..', 'cli', `run${ext}`) };
}

const lastLine = (text: string) => text.trim().split('\n').at(-1)?.slice(0, 300) ?? '';

export async function startServeChild(opts: ServeChildOptions): Promise<ServeChild> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cuzk-bench-serve-'));
  const args = ['serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir, '--log-level', 'info', ...opts.engineArgs];
  if (OPTIONS.some((o) => o.flag === KEY_DIRS_FLAG)) args.push(`--${KEY_DIRS_FLAG}`, opts.keyDirs.join(','));
  if (opts.inputDirs?.length) args.push('--input-dirs', opts.inputDirs.join(','));
  if (opts.spoolDir) args.push('--spool-dir', path.resolve(opts.spoolDir));
  const { execArgv, entry } = cuzkEntry();
  // CUZK_PROF=<dir>: the daemon writes a V8 CPU profile there (node refuses --cpu-prof in NODE_OPTIONS)
  const prof = process.env.CUZK_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.CUZK_PROF] : [];
  const proc = spawn(process.execPath, [...prof, ...execArgv, entry, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CUZK_LOG: 'warn' } });
  const killOnExit = () => { // the bench exiting early must leave no daemon and no data dir behind
    proc.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);
  let tail = ''; // the last 64 KiB of its log (a line per job): kept for error messages only
  const exited = new Promise<number | string>((resolve) => proc.once('exit', (code, sig) => resolve(code ?? sig ?? -1)));
  const cleanup = () => {
    process.off('exit', killOnExit);
    rmSync(dataDir, { recursive: true, force: true });
  };
  void exited.then(cleanup);
  let listening = false;
  try {
    const address = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new CuzkError('E_TIMEOUT', `cuzk serve child did not start listening in ${(opts.startTimeoutMs ?? 60_000) / 1000} s: ${lastLine(tail)}`)), opts.startTimeoutMs ?? 60_000);
      proc.stderr!.on('data', (d: Buffer) => {
        tail = (tail + d.toString()).slice(-65536);
        const m = listening ? null : /"address":"([^"]+)"[^\n]*"msg":"cuzk serve listening"/.exec(tail);
        if (m) {
          listening = true;
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new CuzkError('E_UNAVAILABLE', `cuzk serve child exited (${code}) before listening: ${lastLine(tail)}`));
      });
    });
    return {
      address,
      pid: proc.pid!,
      stop: async (timeoutMs = 60_000) => {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
        try {
          return await exited;
        } finally {
          clearTimeout(timer);
        }
      },
    };
  } catch (err) {
    proc.kill('SIGKILL');
    await exited;
    throw err;
  }
}
