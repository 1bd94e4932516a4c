// `cuzk serve`'s memory-aware start: a configured host or pinned budget larger than MemAvailable
// (often a stopped daemon's pinned memory, which returns only as the driver frees it) is waited for,
// up to engine.memory_wait_s, with a progress line every ~2 s; then the daemon starts with the
// budgets lowered to what is available (policy "start") or exits 2 naming the budget (policy "exit").
// Default budgets (0: fractions of RAM, src/engine/create.ts) are computed from the machine and
// never waited for. /proc/meminfo is read through preflight.ts's reader, the doctor's.
import { errorMessage, InputError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { ServeConfig } from './config.js';
import { OPTIONS } from './config-options.js';
import { gib, readMeminfo, type Meminfo } from './preflight.js';

export type MemoryWaitConfig = Pick<ServeConfig, 'memoryHost' | 'memoryPinned' | 'pinnedPoolBytes' | 'pinned' | 'memoryWaitS' | 'memoryWaitPolicy'>;

export interface MemoryWaitDeps {
  log: Logger;
  read?: () => Meminfo;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** How often MemAvailable is read, and how often a progress line is logged. */
export const POLL_MS = 250;
export const PROGRESS_MS = 2000;

let meminfoSource: () => Meminfo = () => readMeminfo();

/** Test-only (test/helpers/cuzk-child.ts, CUZK_TEST_MEMINFO): where a daemon child reads its meminfo,
 * so a test can show it memory rising without owning the machine's memory. */
export function setMeminfoSource(read: () => Meminfo): void {
  meminfoSource = read;
}

interface Pool {
  name: 'memoryHost' | 'memoryPinned' | 'pinnedPoolBytes';
  option: string;
  flag: string;
  bytes: number;
}

/** The budgets to start with: `cfg`'s own when they fit (at once or within the wait), else lowered to
 * what is available (policy start); policy exit throws E_INVALID_ARG (exit 2) naming the budget. */
export async function waitForMemory(cfg: MemoryWaitConfig, deps: MemoryWaitDeps): Promise<{ memoryHost: number; memoryPinned: number }> {
  const read = deps.read ?? meminfoSource;
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const pool = (name: Pool['name'], bytes: number): Pool => {
    const o = OPTIONS.find((x) => x.name === name)!; // the option's own TOML key and flag, for messages
    return { name, option: o.toml, flag: o.flag, bytes };
  };
  // the pinned pool's size is pinned right after start (in the background), so it is waited for too
  const pools = [pool('memoryHost', cfg.memoryHost), pool('memoryPinned', cfg.pinned ? cfg.memoryPinned : 0), pool('pinnedPoolBytes', cfg.pinned ? cfg.pinnedPoolBytes : 0)].filter((p) => p.bytes > 0);
  const result = { memoryHost: cfg.memoryHost, memoryPinned: cfg.memoryPinned };
  if (pools.length === 0) return result;
  const target = Math.max(...pools.map((p) => p.bytes));
  let mem: Meminfo;
  try {
    mem = read();
  } catch (err) {
    mem = { totalBytes: 0, freeBytes: 0, availableBytes: 0 };
    deps.log.debug({ err: errorMessage(err) }, 'no /proc/meminfo');
  }
  if (mem.totalBytes === 0 || mem.availableBytes === 0) {
    deps.log.warn('host memory cannot be read (no /proc/meminfo MemAvailable): the configured budgets are used as they are, unchecked');
    return result;
  }
  const t0 = now();
  const deadline = t0 + cfg.memoryWaitS * 1000;
  // more than the machine has never fits, however long we wait
  const hopeless = target > mem.totalBytes;
  if (mem.availableBytes < target && !hopeless && cfg.memoryWaitS > 0) {
    deps.log.warn({ targetBytes: target, availableBytes: mem.availableBytes, waitS: cfg.memoryWaitS }, `waiting for memory: ${gib(target)} budgeted, ${gib(mem.availableBytes)} available (memory_wait_s ${cfg.memoryWaitS})`);
    let lastLine = t0;
    while (mem.availableBytes < target && now() < deadline) {
      await sleep(Math.min(POLL_MS, deadline - now()));
      mem = read();
      if (now() - lastLine >= PROGRESS_MS && mem.availableBytes < target) {
        lastLine = now();
        deps.log.info({ targetBytes: target, availableBytes: mem.availableBytes, waitedMs: now() - t0 }, `waiting for memory: ${gib(mem.availableBytes)} of ${gib(target)} available`);
      }
    }
    if (mem.availableBytes >= target) {
      deps.log.info({ targetBytes: target, availableBytes: mem.availableBytes, waitedMs: now() - t0 }, 'memory available: starting');
      return result;
    }
  }
  const short = pools.filter((p) => p.bytes > mem.availableBytes);
  if (short.length === 0) return result;
  const why = hopeless ? `more than this machine has (${gib(mem.totalBytes)})` : `only ${gib(mem.availableBytes)} available${cfg.memoryWaitS > 0 ? ` after waiting ${cfg.memoryWaitS} s` : ''}`;
  if (cfg.memoryWaitPolicy === 'exit') {
    const p = short[0]!;
    throw new InputError('E_INVALID_ARG', `${p.option} (--${p.flag}) is ${gib(p.bytes)} (${p.bytes} bytes) but ${why}: lower it to at most ${mem.availableBytes}, free memory first (a stopped daemon's pinned memory returns as the driver frees it), raise engine.memory_wait_s, or set engine.memory_wait_policy = "start"`);
  }
  for (const p of short) {
    // the pool grows only as far as the (lowered) pinned budget and the machine allow: nothing to lower
    if (p.name === 'pinnedPoolBytes') continue;
    result[p.name] = mem.availableBytes;
    deps.log.warn({ option: p.option, configuredBytes: p.bytes, startingBytes: mem.availableBytes }, `${p.option} lowered from ${gib(p.bytes)} to ${gib(mem.availableBytes)} to fit: ${why}`);
  }
  return result;
}
