// The embedded JobStore: one SQLite file (better-sqlite3, WAL, synchronous=FULL so an acknowledged
// job survives a power cut, not only a crash). A job's witnesses are spool files (spool.ts): a row
// keeps their paths, sizes and hashes as JSON, never the bytes; inputs are kept until the job ends,
// and secure_delete zeroes what is freed. Results are the terminal JobInfo as JSON. Calls are
// synchronous underneath (rows are small), wrapped in promises.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CuzkError } from '../errors.js';
import type { JobInfo, JobState, Priority } from '../engine/api.js';
import type { InsertResult, JobStore, StoredJob, StoredRequest } from './job-store.js';
import type { SpooledWitness } from './spool.js';

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

interface Row {
  id: string;
  request_id: string | null;
  fingerprint: string;
  key: string;
  priority: string;
  state: string;
  partitions: number;
  submitted_at: number;
  deadline_ms: number | null;
  wasm: string | null;
  inputs: string | null;
  witnesses: Buffer | null;
  finished_at: number | null;
  result: string | null;
  witness_files: string | null;
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

function fromRow(r: Row): StoredJob {
  const job: StoredJob = {
    id: r.id,
    requestId: r.request_id ?? undefined,
    fingerprint: r.fingerprint,
    key: r.key,
    priority: r.priority as Priority,
    state: r.state as JobState,
    partitions: r.partitions,
    submittedAt: r.submitted_at,
    deadlineMs: r.deadline_ms ?? undefined,
  };
  if (r.result) job.result = JSON.parse(r.result) as JobInfo;
  if (r.witness_files || r.witnesses || r.inputs) {
    const req: StoredRequest = {};
    if (r.witness_files) req.witnessFiles = JSON.parse(r.witness_files) as SpooledWitness[];
    if (r.witnesses) req.witnesses = unpackWitnesses(r.witnesses);
    if (r.inputs) req.inputs = JSON.parse(r.inputs) as Record<string, unknown>[];
    if (r.wasm) req.wasm = r.wasm;
    job.request = req;
  }
  return job;
}

export class SqliteJobStore implements JobStore {
  readonly #db: Database.Database;
  readonly #stmts;

  constructor(file: string) {
    try {
      if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
      this.#db = new Database(file);
    } catch (cause) {
      throw new CuzkError('E_INVALID_ARG', `journal ${file}: cannot open (${(cause as Error).message})`, { cause });
    }
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = FULL');
    this.#db.pragma('busy_timeout = 5000');
    this.#db.pragma('secure_delete = ON');
    this.#db.exec(SCHEMA);
    const cols = (this.#db.pragma('table_info(jobs)') as { name: string }[]).map((c) => c.name);
    if (!cols.includes('witness_files')) this.#db.exec('ALTER TABLE jobs ADD COLUMN witness_files TEXT');
    const db = this.#db;
    this.#stmts = {
      insert: db.prepare(`INSERT INTO jobs (id, request_id, fingerprint, key, priority, state, partitions, submitted_at, deadline_ms, wasm, inputs, witness_files)
        VALUES (@id, @request_id, @fingerprint, @key, @priority, @state, @partitions, @submitted_at, @deadline_ms, @wasm, @inputs, @witness_files)`),
      remove: db.prepare('DELETE FROM jobs WHERE id = ?'),
      get: db.prepare('SELECT * FROM jobs WHERE id = ?'),
      byRequestId: db.prepare('SELECT * FROM jobs WHERE request_id = ?'),
      finish: db.prepare('UPDATE jobs SET state = ?, finished_at = ?, result = ?, witnesses = NULL, inputs = NULL, witness_files = NULL WHERE id = ?'),
      unfinished: db.prepare("SELECT * FROM jobs WHERE state IN ('queued', 'running') ORDER BY submitted_at, rowid"),
      purge: db.prepare('DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ?'),
      counts: db.prepare('SELECT state, COUNT(*) AS n FROM jobs GROUP BY state'),
      putKey: db.prepare('INSERT OR REPLACE INTO keys (id, path, added_at) VALUES (?, ?, ?)'),
      deleteKey: db.prepare('DELETE FROM keys WHERE id = ?'),
      keys: db.prepare('SELECT id, path FROM keys ORDER BY added_at'),
    };
  }

  async insert(job: StoredJob): Promise<InsertResult> {
    const req = job.request;
    try {
      this.#stmts.insert.run({
        id: job.id,
        request_id: job.requestId ?? null,
        fingerprint: job.fingerprint,
        key: job.key,
        priority: job.priority,
        state: job.state,
        partitions: job.partitions,
        submitted_at: job.submittedAt,
        deadline_ms: job.deadlineMs ?? null,
        wasm: req?.wasm ?? null,
        inputs: req?.inputs ? JSON.stringify(req.inputs) : null,
        witness_files: req?.witnessFiles ? JSON.stringify(req.witnessFiles) : null,
      });
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

  async close(): Promise<void> {
    this.#db.close();
  }
}
