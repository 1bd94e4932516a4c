// Opening the SQLite journal so that its faults are one clear line, never a hang: the file must be
// a journal (not empty, not corrupt), writable (not read-only, the disk not full), and this daemon's
// alone: it is opened in EXCLUSIVE locking mode and locked at once (busy_timeout 0), so a second
// `cuzk serve` on the same data dir is refused at start instead of both running the same jobs, and no
// other process can take the lock later and stall the event loop in SQLite's busy wait. Files are
// 0600 in a 0700 directory (journals hold witnesses). journalFault() names a fault and what to do.
import { accessSync, chmodSync, closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CuzkError, errorMessage, InputError, ResourceError } from '../../errors.js';

const SIDE_FILES = ['-wal', '-shm', '-journal'];

/** Why `file` or its directory cannot be written (a read-only file system, or this user's permissions),
 * in a journal fault's words; undefined when access(2) allows both (`cuzk doctor` asks this too). */
export function notWritable(file: string): string | undefined {
  for (const p of [file, path.dirname(file)]) {
    try {
      accessSync(p, constants.W_OK);
    } catch (e) {
      const errno = (e as NodeJS.ErrnoException).code;
      if (errno === 'EROFS') return 'is on a read-only file system: remount it read-write, or point --data-dir elsewhere';
      if (errno === 'EACCES' || errno === 'EPERM') return `is read-only for this user (${p} is not writable): fix its owner or mode, or point --data-dir elsewhere`;
    }
  }
  return undefined;
}

/** What is wrong and what to do, for an SQLite error that is a fault of the journal file (not of a query). */
function describe(file: string, err: unknown): string | undefined {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return 'is locked by another process: another cuzk serve uses this data dir; stop it, start this one with --takeover (the old one drains and hands over), or give this daemon its own --data-dir';
  }
  if (code === 'SQLITE_FULL') return 'the disk is full: free space on its file system (nothing was journaled)';
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return `is corrupt or not a cuzk journal (${code}): stop the daemon, move it (and ${path.basename(file)}-wal) aside and start again for a new journal (jobs in the old one are lost unless \`sqlite3 .recover\` saves them)`;
  }
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_PERM') {
    const denied = notWritable(file);
    if (denied) return denied;
    if (code.startsWith('SQLITE_READONLY')) return 'is read-only: make it and its directory writable by the daemon, or point --data-dir elsewhere';
    return `cannot be read or written (${code}, an I/O error): check the disk and the file system`;
  }
  return undefined;
}

/** Whether `err` (or a cause of it) is SQLite's "the journal is locked by another connection". */
export function isLockedFault(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))) return true;
  }
  return false;
}

/** PIDs holding a POSIX lock on `file` (/proc/locks: "N: POSIX ADVISORY WRITE <pid> <maj>:<min>:<inode> ...").
 * An inode number is unique only within its filesystem, and the device /proc/locks prints is the
 * superblock's, which stat(2) does not always report (btrfs subvolumes): so a pid counts only when
 * it also has `file` itself open (one of its /proc/<pid>/fd is the same device and inode). Without
 * that, any `cuzk … serve` locking a file with the same inode elsewhere was signalled by --takeover.
 * `locks`: /proc/locks's text (for tests). */
export function lockHolders(file: string, locks?: string): number[] {
  try {
    const st = statSync(file);
    const text = locks ?? readFileSync('/proc/locks', 'utf8');
    const pids = text.split('\n').map((l) => l.trim().split(/\s+/)).filter((f) => f[5]?.split(':')[2] === String(st.ino)).map((f) => Number(f[4]));
    return [...new Set(pids.filter((p) => p > 0))].filter((p) => hasOpen(p, st));
  } catch {
    return [];
  }
}

/** Whether process `pid` has the file `st` describes open. */
function hasOpen(pid: number, st: Stats): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false; // gone, or another user's (not ours to signal either)
  }
  return fds.some((fd) => {
    try {
      const f = statSync(`/proc/${pid}/fd/${fd}`);
      return f.dev === st.dev && f.ino === st.ino;
    } catch {
      return false;
    }
  });
}

/** A journal fault as an error: E_INVALID_ARG at start (the daemon exits 2), E_UNAVAILABLE later
 * (the RPC fails, retryable, the daemon stays up); undefined when `err` is not a journal fault. */
export function journalFault(file: string, err: unknown, atStart: boolean): CuzkError | undefined {
  const what = describe(file, err);
  if (what === undefined) return undefined;
  const message = `journal ${file}: ${what}`;
  return atStart ? new InputError('E_INVALID_ARG', message, { cause: err }) : new ResourceError('E_UNAVAILABLE', message, { cause: err });
}

/** A journal file's faults that SQLite would not report: not a regular file, or empty. */
export function fileProblem(file: string, st: Stats): string | undefined {
  if (!st.isFile()) return 'not a regular file: point --data-dir elsewhere';
  // SQLite would take an empty file for a new journal: losing every journaled job without a word
  if (st.size === 0) return `the file is empty (0 bytes), so the jobs it held are gone: restore it from a backup, or delete it (and ${path.basename(file)}-wal) to start a new journal`;
  return undefined;
}

function statOrUndefined(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/** The journal, checked, locked and with `schema` applied; throws one-line E_INVALID_ARG errors. */
export function openJournal(file: string, schema: string): Database.Database {
  if (file === ':memory:') {
    const db = new Database(file);
    db.exec(schema);
    return db;
  }
  const cannot = (why: string, cause?: unknown) => new InputError('E_INVALID_ARG', `journal ${file}: ${why}`, { cause });
  let st: Stats | undefined;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    st = statOrUndefined(file);
    const problem = st && fileProblem(file, st);
    if (problem) throw cannot(problem);
    if (st) {
      for (const p of [file, ...SIDE_FILES.map((s) => file + s)]) {
        const s = p === file ? st : statOrUndefined(p);
        if (s?.isFile() && (s.mode & 0o077) !== 0) chmodSync(p, s.mode & 0o700);
      }
    } else closeSync(openSync(file, 'wx', 0o600)); // SQLite gives its -wal the journal's mode
  } catch (err) {
    if (err instanceof CuzkError) throw err;
    throw cannot(`cannot open (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)})`, err);
  }
  let db: Database.Database | undefined;
  try {
    db = new Database(file);
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('BEGIN EXCLUSIVE; COMMIT'); // takes the lock now, held until close
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw Object.assign(new Error(String(check)), { code: 'SQLITE_CORRUPT' });
    db.exec(schema);
    db.exec(PROBE_SCHEMA);
    probeWrite(db);
    return db;
  } catch (err) {
    db?.close();
    if (!st) for (const p of [file, ...SIDE_FILES.map((s) => file + s)]) rmSync(p, { force: true }); // ours, and never usable
    throw journalFault(file, err, true) ?? cannot(`cannot open (${errorMessage(err)})`, err);
  }
}

const PROBE_SCHEMA = 'CREATE TABLE IF NOT EXISTS probe (id INTEGER PRIMARY KEY CHECK (id = 1), at INTEGER NOT NULL);';

/** One small durable write: whether the journal can be written right now (readiness). */
export function probeWrite(db: Database.Database): void {
  db.prepare('INSERT OR REPLACE INTO probe (id, at) VALUES (1, ?)').run(Date.now());
}
