// A real `cuzk serve` child process on a loopback port (port 0: the address comes from its
// "listening" log line) with its own data dir, and the ways tests end it: SIGTERM, SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VECTORS_DIR } from './vectors.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CHILD = path.join(root, 'test', 'helpers', 'cuzk-child.ts');

export interface DaemonProcess {
  address: string;
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

export async function startDaemon(opts: { dataDir?: string; args?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<DaemonProcess> {
  const dataDir = opts.dataDir ?? makeDataDir();
  const args = ['serve', '--data-dir', dataDir, ...(opts.args ?? [])];
  if (!args.includes('--listen')) args.push('--listen', '127.0.0.1:0');
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: root, env: { ...process.env, CUZK_LOG: 'warn', ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | string>((resolve) => proc.on('exit', (code, sig) => resolve(code ?? sig ?? -1)));
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon did not start in 30 s:\n${stderr}`)), 30_000);
    proc.stderr!.on('data', (d: Buffer) => {
      stderr += d;
      const m = /"address":"([^"]+)"[^\n]*"msg":"cuzk serve listening"/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited (${code}) before listening:\n${stderr}`));
    });
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
