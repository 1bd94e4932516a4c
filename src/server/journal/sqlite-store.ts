// The embedded JobStore: one SQLite file (better-sqlite3, WAL, synchronous=FULL so an acknowledged
// job survives a power cut, not only a crash), opened and locked by journal-open.ts. A job's
// witnesses are spool files (spool.ts): a row keeps their paths, sizes and hashes as JSON, never the
// bytes; inputs are kept until the job ends, and secure_delete zeroes what is freed. Results are the
// terminal JobInfo as JSON. Calls are synchronous underneath, wrapped in promises, and each commit
// waits for its fsync: the daemon runs this store on a thread of its own (journal-thread.ts), not on
// its event loop. A fault of the file (disk full, read-only, corrupt) fails the call with
// E_UNAVAILABLE naming the journal, and the store is not ready until a write succeeds again.
import Database from 'better-sqlite3';
import { CuzkError } from '../../errors.js';
import type { JobInfo } from '../../engine/api.js';
import { INSERT_COLUMNS, jobFromRow, jobToRow, type JobRow } from './job-row.js';
import type { InsertResult, JobStore, StoredJob } from './job-store.js';
import { journalFault, openJournal, probeWrite } from './journal-open.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  request_id TEXT UNIQUE,
  fingerprint TEXT NOT NULL,
  key TEXT NOT NULL,
  priority TEXT NOT NULL,
  state TEXT NOT NULL,
  partitions INTEGER NOT NULL,
  submitted_at INTEGER NOT NULL,
  deadline_ms INTEGER,
  wasm TEXT,
  inputs TEXT,
  witnesses BLOB,
  finished_at INTEGER,
  result TEXT,
  witness_files TEXT
);
CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state, submitted_at);
CREATE INDEX IF NOT EXISTS jobs_finished ON jobs(finished_at);
CREATE TABLE IF NOT EXISTS keys (id TEXT PRIMARY KEY, path TEXT NOT NULL, added_at INTEGER NOT NULL);
`;

interface Row extends JobRow {
  submitted_at: number;
  deadline_ms: number | null;
  witnesses: Buffer | null;
  finished_at: number | null;
}

/** Journals written before the spool: u32 count, then per witness u64 length + bytes. */
export function unpackWitnesses(b: Buffer): Uint8Array[] {
  const n = b.readUInt32LE(0);
  const ws: Uint8Array[] = [];
  let o = 4;
  for (let i = 0; i < n; i++) {
    const len = Number(b.readBigUInt64LE(o));
    if (o + 8 + len > b.length) throw new CuzkError('E_INTERNAL', `journal: witness blob truncated (witness ${i} of ${n})`);
    ws.push(new Uint8Array(b.buffer, b.byteOffset + o + 8, len));
    o += 8 + len;
  }
  return ws;
}

const fromRow = (r: Row): StoredJob => jobFromRow(r, r.witnesses ? unpackWitnesses(r.witnesses) : undefined);

export class SqliteJobStore implements JobStore {
  readonly #file: string;
  readonly #db: Database.Database;
  readonly #stmts;
  /** The last fault of the file, until a write succeeds again (readiness). */
  #fault: CuzkError | undefined;

  constructor(file: string) {
    this.#file = file;
    this.#db = openJournal(file, SCHEMA);
    this.#db.pragma('secure_delete = ON');
    const cols = (this.#db.pragma('table_info(jobs)') as { name: string }[]).map((c) => c.name);
    if (!cols.includes('witness_files')) this.#db.exec('ALTER TABLE jobs ADD COLUMN witness_files TEXT');
    const db = this.#db;
    const prepare = (sql: string) => this.#guarded(db.prepare(sql));
    this.#stmts = {
      insert: prepare(`INSERT INTO jobs (${INSERT_COLUMNS.join(', ')}) VALUES (${INSERT_COLUMNS.map((c) => `@${c}`).join(', ')})`),
      remove: prepare('DELETE FROM jobs WHERE id = ?'),
      get: prepare('SELECT * FROM jobs WHERE id = ?'),
      byRequestId: prepare('SELECT * FROM jobs WHERE request_id = ?'),
      finish: prepare('UPDATE jobs SET state = ?, finished_at = ?, result = ?, witnesses = NULL, inputs = NULL, witness_files = NULL WHERE id = ?'),
      unfinished: prepare("SELECT * FROM jobs WHERE state IN ('queued', 'running') ORDER BY submitted_at, rowid"),
      purge: prepare('DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?'),
      counts: prepare('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state'),
      putKey: prepare('INSERT OR REPLACE INTO keys (id, path, added_at) VALUES (?, ?, ?)'),
      deleteKey: prepare('DELETE FROM keys WHERE id = ?'),
      keys: prepare('SELECT id, path FROM keys ORDER BY added_at'),
    };
  }

  async insert(job: StoredJob): Promise<InsertResult> {
    try {
      this.#stmts.insert.run(jobToRow(job));
      return { inserted: true };
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && job.requestId !== undefined) {
        const existing = await this.byRequestId(job.requestId);
        if (existing) return { inserted: false, existing };
      }
      throw err;
    }
  }

  async remove(id: string): Promise<void> {
    this.#stmts.remove.run(id);
  }

  async get(id: string): Promise<StoredJob | undefined> {
    const r = this.#stmts.get.get(id) as Row | undefined;
    return r && fromRow(r);
  }

  async byRequestId(requestId: string): Promise<StoredJob | undefined> {
    const r = this.#stmts.byRequestId.get(requestId) as Row | undefined;
    return r && fromRow(r);
  }

  async finish(info: JobInfo): Promise<void> {
    this.#stmts.finish.run(info.state, info.finishedAt ?? Date.now(), JSON.stringify(info), info.id);
  }

  async unfinished(): Promise<StoredJob[]> {
    return (this.#stmts.unfinished.all() as Row[]).map(fromRow);
  }

  async purge(before: number): Promise<number> {
    return this.#stmts.purge.run(before).changes;
  }

  async counts(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const r of this.#stmts.counts.all() as { state: string; n: number }[]) out[r.state] = r.n;
    return out;
  }

  async putKey(id: string, keyPath: string): Promise<void> {
    this.#stmts.putKey.run(id, keyPath, Date.now());
  }

  async deleteKey(id: string): Promise<void> {
    this.#stmts.deleteKey.run(id);
  }

  async keys(): Promise<{ id: string; path: string }[]> {
    return this.#stmts.keys.all() as { id: string; path: string }[];
  }

  async writeProblem(): Promise<string | undefined> {
    try {
      this.#guard(true, () => probeWrite(this.#db));
    } catch {
      // the fault is kept in #fault
    }
    return this.#fault?.message;
  }

  async close(): Promise<void> {
    this.#db.close();
  }

  /** A statement whose file faults become E_UNAVAILABLE errors (others, e.g. constraints, pass as they are). */
  #guarded(stmt: Database.Statement) {
    return {
      run: (...args: unknown[]) => this.#guard(true, () => stmt.run(...args)),
      get: (...args: unknown[]) => this.#guard(false, () => stmt.get(...args)),
      all: (...args: unknown[]) => this.#guard(false, () => stmt.all(...args)),
    };
  }

  #guard<T>(write: boolean, fn: () => T): T {
    let out: T;
    try {
      out = fn();
    } catch (err) {
      const fault = journalFault(this.#file, err, false);
      if (!fault) throw err;
      this.#fault = fault;
      throw fault;
    }
    if (write) this.#fault = undefined;
    return out;
  }
}
