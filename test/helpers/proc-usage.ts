// What a child process holds, read from /proc (Linux): its resident memory, and its open fds by
// kind, for tests that check a daemon gives back what hostile clients made it take.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** VmRSS, bytes. */
export function rss(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

/** The targets of the process's open fds ("socket:[123]", "/path", "pipe:[4]", "anon_inode:..."). */
function fdTargets(pid: number): string[] {
  const out: string[] = [];
  for (const f of readdirSync(`/proc/${pid}/fd`)) {
    try {
      out.push(readlinkSync(`/proc/${pid}/fd/${f}`));
    } catch {
      // closed between the listing and the read
    }
  }
  return out;
}

export const sockets = (pid: number): number => fdTargets(pid).filter((t) => t.startsWith('socket:')).length;

/** Open fds on files of the filesystem (spool files, keys, witness files): not sockets, pipes, eventfds. */
export const openFiles = (pid: number): number => fdTargets(pid).filter((t) => t.startsWith('/')).length;

/** The highest VmRSS seen while `work` runs, sampled every `everyMs` (a buffer held for a few ms
 * between samples can be missed; one held for a whole upload is not). */
export async function peakRss<T>(pid: number, work: Promise<T>, everyMs = 5): Promise<{ peak: number; result: T }> {
  let peak = rss(pid);
  let running = true;
  const sampler = (async () => {
    while (running) {
      try {
        peak = Math.max(peak, rss(pid));
      } catch {
        return; // the process exited
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  try {
    await work;
  } finally {
    running = false;
    await sampler;
  }
  return { peak: Math.max(peak, rss(pid)), result: await work };
}
