// `cuzk doctor` / `cuzk serve --check`: whether this machine can serve `cfg`, one check per line
// (ok / warn / fail, what was found, what to do), without disturbing a daemon that already runs:
// nothing is listened on for longer than a bind, the journal is read, never locked for writing.
// This file holds the check's shape and the host's checks (memory, other daemons);
// preflight-files.ts the configuration's (listen address, data dir, journal, keys);
// src/cli/doctor-device.ts the native core's (backend, GPUs, a pinned probe); src/cli/doctor.ts runs them all.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_SHARES, percent } from '../../engine/memory-shares.js';
import type { ServeConfig } from './config.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  /** What was checked: backend, gpu 0, host memory, journal, ... */
  check: string;
  status: CheckStatus;
  /** What was found, one line. */
  found: string;
  /** What to do (warn and fail lines). */
  action?: string;
}

/** A GPU (src/ffi's GpuDescription) with the memory limit the engine would give it (engine.memory_gpu_bytes or its default share). */
export interface GpuSeen {
  index: number;
  name: string;
  memoryTotal: number;
  memoryFree: number;
  computeCapability: string;
  limitBytes: number;
}

export const GiB = 1024 ** 3;
export const gib = (n: number) => `${(n / GiB).toFixed(n < 10 * GiB ? 2 : 1)} GiB`;

export interface Meminfo {
  totalBytes: number;
  freeBytes: number;
  availableBytes: number;
}

export function readMeminfo(text = readFileSync('/proc/meminfo', 'utf8')): Meminfo {
  const kib = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : 0;
  };
  return { totalBytes: kib('MemTotal'), freeBytes: kib('MemFree'), availableBytes: kib('MemAvailable') };
}

/** The host and pinned budgets against what /proc/meminfo says is available now: a configured budget
 * that does not fit fails; a default one (a fraction of RAM, config-options.ts) only warns. */
export function memoryChecks(cfg: Pick<ServeConfig, 'memoryHost' | 'memoryPinned' | 'pinned'>, budget: { host: number; pinned: number }, mem: Meminfo): Check[] {
  const pools = [
    { check: 'host memory', option: 'engine.memory_host_bytes', flag: 'memory-host-bytes', bytes: budget.host, set: cfg.memoryHost > 0, share: percent(DEFAULT_SHARES.host) },
    ...(cfg.pinned ? [{ check: 'pinned memory', option: 'engine.memory_pinned_bytes', flag: 'memory-pinned-bytes', bytes: budget.pinned, set: cfg.memoryPinned > 0, share: percent(DEFAULT_SHARES.pinned) }] : []),
  ];
  return pools.map((p): Check => {
    const found = `budget ${gib(p.bytes)}${p.set ? '' : ` (default: ${p.share} of RAM)`}; ${gib(mem.availableBytes)} available, ${gib(mem.freeBytes)} free of ${gib(mem.totalBytes)}`;
    if (p.bytes <= mem.availableBytes) return { check: p.check, status: 'ok', found };
    const action = `set ${p.option} (--${p.flag}) to at most ${mem.availableBytes}, or free memory first (a stopped daemon's pinned memory returns as the driver frees it)`;
    if (p.bytes > mem.totalBytes) return { check: p.check, status: 'fail', found: `${found}: more than this machine has`, action };
    return { check: p.check, status: p.set ? 'fail' : 'warn', found: `${found}: more than is available now`, action };
  });
}

export interface CuzkProcess {
  pid: number;
  /** R running, S sleeping, D in the kernel (often freeing memory), Z exited, ... */
  state: string;
  dataDir?: string;
  listen?: string;
}

const flagValue = (args: string[], name: string) => {
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  return args[i]!.includes('=') ? args[i]!.slice(name.length + 3) : args[i + 1];
};

/** A process's argv from /proc, or undefined once it has exited (or when it is another user's). */
export function processArgs(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

/** Whether an argv is a `cuzk serve` (its `--check` serves nothing). */
export function isCuzkServe(args: readonly string[]): boolean {
  const serveAt = args.indexOf('serve');
  return serveAt >= 1 && args.slice(0, serveAt).some((a) => /cuzk/.test(path.basename(a))) && !args.includes('--check');
}

/** `cuzk serve` processes other than this one, from /proc (their data dir where their argv names it). */
export function cuzkServeProcesses(): CuzkProcess[] {
  const found: CuzkProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const args = processArgs(pid);
    if (!args || !isCuzkServe(args)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const dir = flagValue(args, 'data-dir');
      found.push({ pid, state: stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3), dataDir: dir && path.resolve(readlinkSync(`/proc/${pid}/cwd`), dir), listen: flagValue(args, 'listen') });
    } catch {
      // gone meanwhile, or another user's: nothing to say about it
    }
  }
  return found;
}

export function processCheck(cfg: ServeConfig): Check {
  const others = cuzkServeProcesses();
  if (others.length === 0) return { check: 'cuzk processes', status: 'ok', found: 'no other cuzk serve runs' };
  const describe = (p: CuzkProcess) => `pid ${p.pid} (${p.state}${p.dataDir ? `, data dir ${p.dataDir}` : ''}${p.listen ? `, listen ${p.listen}` : ''})`;
  const mine = others.filter((p) => p.dataDir === path.resolve(cfg.dataDir));
  return {
    check: 'cuzk processes',
    status: 'warn',
    found: `${others.length} other cuzk serve: ${others.map(describe).join('; ')}`,
    action: mine.length > 0 ? `pid ${mine.map((p) => p.pid).join(', ')} uses this data dir: stop it first (SIGTERM drains), or give this daemon its own --data-dir` : 'they share this machine\'s GPUs and memory with this daemon',
  };
}
