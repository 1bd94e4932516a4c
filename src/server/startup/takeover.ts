// `cuzk serve --takeover`: a new daemon (a new binary, say) on a data dir whose journal a running
// daemon holds. The holder is found by its POSIX lock (/proc/locks: the lock is the truth, a pid file
// could be stale), checked to be a `cuzk serve`, and sent one SIGTERM: its drain finishes the running
// proofs, journals them and leaves queued jobs queued, then closes its listener and, last, the
// journal. This daemon polls the lock until it is free, opens the journal and starts; the start-up
// replay resubmits the queued jobs, and those the old one completed are terminal in the journal, so
// none is lost and none completes twice. Its address is free by then (the old listener closes before
// the journal does); clients see a short gap: refused submits while the old one drains, then no
// listener until this one is up.
import { InputError, ResourceError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { isLockedFault, lockHolders } from '../journal/journal-open.js';
import type { JobStore } from '../journal/job-store.js';
import { isCuzkServe, processArgs } from './preflight.js';

const POLL_MS = 150;
const PROGRESS_MS = 2000;

const LABEL_CHARS = 100;

/** A process's argv as a message can carry it: a `cuzk serve` as "cuzk serve" and its own flags (the
 * interpreter and script paths before `serve` say nothing and grow with the install path), anything
 * else as it is; longer than `maxChars`, cut after a whole word and marked "…". */
export function processLabel(args: readonly string[], maxChars = LABEL_CHARS): string {
  const words = isCuzkServe(args) ? ['cuzk', ...args.slice(args.indexOf('serve'))] : [...args];
  let label = '';
  for (const w of words) {
    const next = label ? `${label} ${w}` : w;
    if (next.length > maxChars) return label ? `${label} …` : `${w.slice(0, maxChars)}…`;
    label = next;
  }
  return label;
}

/** The process's label, or undefined once it has exited. */
const commandLine = (pid: number) => {
  const args = processArgs(pid);
  return args && processLabel(args);
};

/** `open()` (the journal at `file`); when a running daemon holds it, that daemon is asked to drain and
 * the journal opened once it lets go, within `timeoutS`. Errors are one line: E_INVALID_ARG when the
 * holder is not ours to signal, E_UNAVAILABLE (retryable) when it is still draining at the timeout. */
export async function openTakingOver(file: string, open: () => Promise<JobStore>, opts: { timeoutS: number; log: Logger }): Promise<JobStore> {
  try {
    return await open();
  } catch (err) {
    if (!isLockedFault(err)) throw err;
  }
  const { log } = opts;
  const holders = () => lockHolders(file).filter((pid) => pid !== process.pid && commandLine(pid) !== undefined);
  const old = holders();
  for (const pid of old) {
    const cmd = commandLine(pid) ?? '';
    if (!isCuzkServe(processArgs(pid) ?? [])) throw new InputError('E_INVALID_ARG', `journal ${file}: --takeover: it is locked by pid ${pid} (${cmd}), which is not a cuzk serve, so it was not signalled: stop it yourself`);
  }
  for (const pid of old) {
    try {
      process.kill(pid, 'SIGTERM');
      log.info({ pid, file, timeoutS: opts.timeoutS }, 'takeover: asked the running daemon to drain (SIGTERM); waiting for it to release the journal');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw new InputError('E_INVALID_ARG', `journal ${file}: --takeover: cannot signal pid ${pid} (${(err as NodeJS.ErrnoException).code}): run as its user, or stop it yourself`, { cause: err });
    }
  }
  const t0 = Date.now();
  let lastProgress = t0;
  for (;;) {
    const left = holders();
    if (left.length === 0) {
      try {
        const store = await open();
        log.info({ file, waitedMs: Date.now() - t0 }, 'takeover: journal released by the old daemon; starting');
        return store;
      } catch (err) {
        if (!isLockedFault(err)) throw err;
      }
    }
    const waited = Date.now() - t0;
    if (waited >= opts.timeoutS * 1000) {
      const who = left.length ? `pid ${left.join(', ')} (${left.map((p) => commandLine(p) ?? 'exited').join('; ')})` : 'another process';
      throw new ResourceError('E_UNAVAILABLE', `journal ${file}: --takeover: still locked by ${who} after ${opts.timeoutS} s: it is still draining its running jobs; wait and retry, raise --takeover-timeout-s, or stop it (a second SIGTERM stops it at once, its running jobs are replayed)`);
    }
    if (Date.now() - lastProgress >= PROGRESS_MS) {
      lastProgress = Date.now();
      log.info({ pid: left, waitedS: Math.round(waited / 1000), timeoutS: opts.timeoutS }, 'takeover: the old daemon is still draining');
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
