// `cuzk serve --takeover`: a new daemon (a new binary, say) on a data dir whose journal a running
// daemon holds. The holder is found by its POSIX lock (/proc/locks: the lock is the truth, a pid file
// could be stale), checked to be a `cuzk serve`, and sent one SIGTERM: its drain finishes the running
// proofs, journals them and leaves queued jobs queued, then closes its listener and, last, the
// journal. This daemon polls the lock until it is free, opens the journal and starts; the start-up
// replay resubmits the queued jobs, and those the old one completed are terminal in the journal, so
// none is lost and none completes twice. Its address is free by then (the old listener closes before
// the journal does); clients see a short gap: refused submits while the old one drains, then no
// listener until this one is up. One --takeover at a time: a second signalling the old daemon too
// would stop it at once (a second SIGTERM), undrained; it is refused while `<journal>.takeover`
// names a live daemon taking over.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  const release = claimTakeover(file);
  try {
    return await takeOver(file, open, opts);
  } finally {
    release();
  }
}

/** Whether `pid` is a live cuzk serve (signal 0 probes it; EPERM: alive, another user's). */
function liveServe(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return isCuzkServe(processArgs(pid) ?? []);
}

/** Makes this daemon the one taking over `file` (`<file>.takeover` created exclusively, holding its
 * pid; a file whose pid is no live cuzk serve is stale and replaced); returns its release. Throws
 * E_UNAVAILABLE (retryable) while another daemon is taking over. */
function claimTakeover(file: string): () => void {
  const claim = `${file}.takeover`;
  for (let tries = 0; tries < 3; tries++) {
    try {
      writeFileSync(claim, String(process.pid), { flag: 'wx', mode: 0o600 });
      return () => rmSync(claim, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new InputError('E_INVALID_ARG', `journal ${file}: --takeover: cannot create ${claim} (${(err as NodeJS.ErrnoException).code ?? err})`, { cause: err });
    }
    let pid = NaN;
    try {
      pid = Number(readFileSync(claim, 'utf8').trim());
    } catch { /* removed since: try again */ }
    if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && liveServe(pid)) {
      throw new ResourceError('E_UNAVAILABLE', `journal ${file}: --takeover: pid ${pid} (${commandLine(pid) ?? 'exited'}) is taking it over already, so the running daemon was not signalled again (a second SIGTERM stops it undrained): wait for that one`);
    }
    rmSync(claim, { force: true });
  }
  throw new ResourceError('E_UNAVAILABLE', `journal ${file}: --takeover: ${claim} keeps reappearing: another daemon is taking it over; wait for it`);
}

async function takeOver(file: string, open: () => Promise<JobStore>, opts: { timeoutS: number; log: Logger }): Promise<JobStore> {
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
