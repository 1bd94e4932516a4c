// A real `cuzk serve` child process on a loopback port (port 0: the address comes from its
// "listening" log line) or, for a daemon that logs above info, on a unix socket in its data dir
// (ready when /readyz answers), with its own data dir, and the ways tests end it: SIGTERM, SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VECTORS_DIR } from './vectors.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHILD = path.join(root, 'test', 'helpers', 'cuzk-child.ts');

export interface DaemonProcess {
  address: string;
  /** http:// base URL (TCP only). */
  url: string;
  dataDir: string;
  proc: ChildProcess;
  /** stderr so far (pino JSON lines). */
  logs(): string;
  /** Sends `signal` and resolves with the exit code (or the signal name). */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
  exited: Promise<number | string>;
}

/** Flags that let a daemon open the committed vectors by path (files.key_dirs and files.input_dirs),
 * plus `keyDirs` (e.g. a dev key's directory). */
export function vectorDirArgs(...keyDirs: string[]): string[] {
  return ['--key-dirs', [VECTORS_DIR, ...keyDirs].join(','), '--input-dirs', VECTORS_DIR];
}

/** A link to this checkout whose absolute path is at least `minChars` long (a clone in a long path, as
 * a command line shows it), under `dir`. */
export function longCheckoutPath(dir: string, minChars = 150): string {
  const link = path.join(dir, 'a-checkout-in-a-long-path-'.padEnd(Math.max(8, minChars - dir.length), 'x'));
  symlinkSync(root, link);
  return link;
}

export function makeDataDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'cuzk-serve-'));
}

export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Runs `cuzk <args>` to completion; resolves with its exit code and output. */
export function runChild(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: root, env: { ...process.env, CUZK_LOG: 'warn', ...env } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** 200 from GET /readyz on the unix socket `socketPath`, else false (not listening yet, or not ready). */
function readyOn(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get({ socketPath, path: '/readyz' }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
  });
}

/** `checkout`: another path to this checkout (a link to it, say) that the child's script is started
 * through, so its command line is as long as a clone's in a long path.
 * `onStderr`: called with stderr so far at each write, before the daemon listens too (a test that acts on a startup line).
 * `socket`: listen on <dataDir>/cuzk.sock and wait for /readyz, not for the "listening" line (which
 * a daemon logging above info never writes). The child logs at info unless `env` or `args` say otherwise. */
export async function startDaemon(opts: { dataDir?: string; args?: string[]; env?: NodeJS.ProcessEnv; socket?: boolean; onStderr?: (soFar: string) => void; checkout?: string } = {}): Promise<DaemonProcess> {
  const dataDir = opts.dataDir ?? makeDataDir();
  const args = ['serve', '--data-dir', dataDir, ...(opts.args ?? [])];
  const socketPath = path.join(dataDir, 'cuzk.sock');
  if (opts.socket) args.push('--listen', `unix:${socketPath}`);
  else if (!args.includes('--listen')) args.push('--listen', '127.0.0.1:0');
  const child = opts.checkout ? path.join(opts.checkout, path.relative(root, CHILD)) : CHILD;
  const proc = spawn(process.execPath, ['--import', 'tsx', child, ...args], { cwd: root, env: { ...process.env, CUZK_LOG: 'info', ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | string>((resolve) => proc.on('exit', (code, sig) => resolve(code ?? sig ?? -1)));
  proc.stderr!.on('data', (d: Buffer) => {
    stderr += d;
    opts.onStderr?.(stderr);
  });
  const address = await new Promise<string>((resolve, reject) => {
    let done = false;
    const finish = (err: Error | undefined, addr?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(addr!);
    };
    const timer = setTimeout(() => finish(new Error(`daemon did not start in 30 s:\n${stderr}`)), 30_000);
    if (opts.socket) {
      const poll = async () => {
        while (!done) {
          if (await readyOn(socketPath)) return finish(undefined, `unix:${socketPath}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      void poll();
    } else {
      proc.stderr!.on('data', () => {
        const m = /"address":"([^"]+)"[^\n]*"msg":"cuzk serve listening"/.exec(stderr);
        if (m) finish(undefined, m[1]!);
      });
    }
    void exited.then((code) => finish(new Error(`daemon exited (${code}) before listening:\n${stderr}`)));
  });
  proc.stdout!.resume();
  return {
    address,
    url: `http://${address}`,
    dataDir,
    proc,
    logs: () => stderr,
    exited,
    stop: (signal = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}
