// The PostgreSQL JobStore (`cuzk serve --store postgres://USER@HOST:PORT/DB`): the same journal as
// sqlite-store.ts, in a server's database, for a daemon whose jobs must outlive its machine. A job is
// committed (synchronous_commit: durable on the server) before the client hears "accepted". The schema
// is created or migrated at start under an advisory lock, and its version kept in schema_version; a
// database migrated by a newer cuzk is refused. Witnesses are never in the database: a row keeps the
// spool files' paths, sizes and hashes (JSON), or the job's inputs until it ends.
// Faults of the server (down, restarting, auth, database missing, disk full) are one line naming the
// URL without its password (pg-faults.ts); the store is not ready until a write succeeds again, and
// the pool reconnects by itself once the server is back. Calls are I/O on the pool, not on the event
// loop, so no journal thread is needed.
// Several daemons may share one database: they claim its jobs (pg-claims.ts, fleet-member.ts) rather
// than replay them at start; schema version 2 added the claim columns and the `daemons` table, 3 the
// key's content hash and the accepting daemon of each job.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { CuzkError, errorMessage, InputError } from '../../errors.js';
import type { JobInfo } from '../../engine/api.js';
import { INSERT_COLUMNS, jobFromRow, jobToRow, type JobRow } from './job-row.js';
import type { InsertResult, JobStore, StoredJob } from './job-store.js';
import { parseStoreUrl, redactUrl, storeFault } from './pg-faults.js';

/** Migrations in order: MIGRATIONS[i] takes the schema from version i to i + 1. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    seq BIGSERIAL NOT NULL,
    request_id TEXT UNIQUE,
    fingerprint TEXT NOT NULL,
    key TEXT NOT NULL,
    priority TEXT NOT NULL,
    state TEXT NOT NULL,
    partitions INTEGER NOT NULL,
    submitted_at BIGINT NOT NULL,
    deadline_ms BIGINT,
    wasm TEXT,
    inputs TEXT,
    witness_files TEXT,
    finished_at BIGINT,
    result TEXT
  );
  CREATE INDEX jobs_state ON jobs (state, submitted_at, seq);
  CREATE INDEX jobs_finished ON jobs (finished_at);
  CREATE TABLE keys (id TEXT PRIMARY KEY, path TEXT NOT NULL, added_at BIGINT NOT NULL);
  CREATE TABLE probe (id INTEGER PRIMARY KEY CHECK (id = 1), at BIGINT NOT NULL);`,
  // claims (pg-claims.ts): what a job needs of a daemon's budget, who holds it until when, which attempt
  `ALTER TABLE jobs
    ADD COLUMN priority_rank SMALLINT GENERATED ALWAYS AS (CASE priority WHEN 'critical' THEN 0 WHEN 'high' THEN 1 WHEN 'normal' THEN 2 ELSE 3 END) STORED,
    ADD COLUMN need_host BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN need_pinned BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN need_gpu BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN need_key BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN owner TEXT,
    ADD COLUMN lease_until BIGINT,
    ADD COLUMN attempt INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN claimed_at BIGINT,
    ADD COLUMN claimed_resident BOOLEAN,
    ADD COLUMN cancel_requested BOOLEAN NOT NULL DEFAULT FALSE;
  CREATE INDEX jobs_claim ON jobs (priority_rank, submitted_at, seq) WHERE state = 'queued';
  CREATE INDEX jobs_lease ON jobs (lease_until) WHERE state = 'running';
  CREATE TABLE daemons (
    id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL,
    status TEXT NOT NULL
  );`,
  // keys by content hash (key-hash.ts) and where a job's witnesses were spooled (witness-fetch.ts)
  `ALTER TABLE jobs ADD COLUMN key_hash TEXT, ADD COLUMN accepted_by TEXT;`,
  // the fleet's own credential for GET /v1/fleet/witnesses (witness-serve.ts): clients hold the
  // daemons' token but not the database, so a client cannot read an unfinished job's witnesses
  `CREATE TABLE fleet_secret (id INTEGER PRIMARY KEY CHECK (id = 1), secret TEXT NOT NULL);`,
];
export const SCHEMA_VERSION = MIGRATIONS.length;
/** One small durable write: whether the store can be written right now (readiness). */
const PROBE = 'INSERT INTO probe (id, at) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET at = $1';
/** pg_advisory_xact_lock key: daemons starting together migrate one at a time. */
const MIGRATION_LOCK = 0x63757a6b; // 'cuzk'

const COLUMNS = 'id, request_id, fingerprint, key, priority, state, partitions, submitted_at, deadline_ms, wasm, inputs, witness_files, result, key_hash, accepted_by';

type PgJobRow = JobRow & { key_hash: string | null; accepted_by: string | null };

/** A row with what only a shared store keeps: the key's hash and the accepting daemon. */
function fromPgRow(r: PgJobRow): StoredJob {
  const job = jobFromRow(r);
  if (r.key_hash) job.keyHash = r.key_hash;
  if (r.accepted_by) job.acceptedBy = r.accepted_by;
  return job;
}

/** Brings the schema to SCHEMA_VERSION in one transaction; refuses a newer one. */
async function migrate(client: pg.PoolClient, shownUrl: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)');
    const found = await client.query<{ version: number }>('SELECT version FROM schema_version WHERE id = 1');
    const from = found.rows[0]?.version ?? 0;
    if (from > SCHEMA_VERSION) {
      throw new InputError('E_INVALID_ARG', `store ${shownUrl}: its schema is version ${from}, newer than this cuzk's (${SCHEMA_VERSION}): upgrade cuzk, or give this daemon another database`);
    }
    for (let v = from; v < SCHEMA_VERSION; v++) await client.query(MIGRATIONS[v]!);
    await client.query('INSERT INTO schema_version (id, version) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET version = $1', [SCHEMA_VERSION]);
    // the first daemon's draw is the fleet's for good; 256 bits from node's CSPRNG
    await client.query('INSERT INTO fleet_secret (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [randomBytes(32).toString('hex')]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** The store and its pool (a fleet's claims share it: fleet-member.ts). */
export type PostgresStore = JobStore & { readonly pool: pg.Pool; readonly url: string; readonly fleetSecret: string };

/** The store at `url` (`poolSize` connections at most), connected, migrated and written once; throws one-line E_INVALID_ARG errors. */
export async function openPostgresStore(url: string, poolSize = 6): Promise<PostgresStore> {
  parseStoreUrl(url);
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 10_000, query_timeout: 30_000, idleTimeoutMillis: 30_000, application_name: 'cuzk serve' });
  const store = new PostgresJobStore(url, pool);
  try {
    const client = await pool.connect();
    try {
      await migrate(client, redactUrl(url));
      store.fleetSecret = (await client.query<{ secret: string }>('SELECT secret FROM fleet_secret WHERE id = 1')).rows[0]!.secret;
      await client.query(PROBE, [Date.now()]);
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    if (err instanceof CuzkError) throw err;
    throw storeFault(url, err, true) ?? new InputError('E_INVALID_ARG', `store ${redactUrl(url)}: cannot open (${errorMessage(err)})`, { cause: err });
  }
  return store;
}

class PostgresJobStore implements JobStore {
  /** The fleet's credential (fleet_secret), read once at open. */
  fleetSecret = '';
  /** The last fault of the server, until a write succeeds again (readiness). */
  #fault: CuzkError | undefined;

  constructor(
    readonly url: string,
    readonly pool: pg.Pool,
  ) {
    // an idle connection the server closed (restart, shutdown): without a listener it would crash the daemon
    pool.on('error', (err) => (this.#fault = storeFault(url, err, false) ?? this.#fault));
  }

  async insert(job: StoredJob): Promise<InsertResult> {
    const row = jobToRow(job);
    const need = job.need ?? { host: 0, pinned: 0, gpu: 0, key: 0 };
    const values = [...INSERT_COLUMNS.map((c) => row[c]), need.host, need.pinned, need.gpu, need.key, job.keyHash ?? null, job.acceptedBy ?? null];
    const columns = [...INSERT_COLUMNS, 'need_host', 'need_pinned', 'need_gpu', 'need_key', 'key_hash', 'accepted_by'];
    for (;;) {
      const r = await this.#query(
        true,
        `INSERT INTO jobs (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}) ON CONFLICT (request_id) DO NOTHING`,
        values,
      );
      if (r.rowCount === 1) return { inserted: true };
      if (job.requestId === undefined) throw new CuzkError('E_INTERNAL', `store: job ${job.id} was neither inserted nor refused`);
      const existing = await this.byRequestId(job.requestId);
      if (existing) return { inserted: false, existing };
      // the holder of the request id was purged between the two statements: insert again
    }
  }

  async remove(id: string): Promise<void> {
    await this.#query(true, 'DELETE FROM jobs WHERE id = $1', [id]);
  }

  async get(id: string): Promise<StoredJob | undefined> {
    const r = await this.#query<PgJobRow>(false, `SELECT ${COLUMNS} FROM jobs WHERE id = $1`, [id]);
    return r.rows[0] && fromPgRow(r.rows[0]);
  }

  async byRequestId(requestId: string): Promise<StoredJob | undefined> {
    const r = await this.#query<PgJobRow>(false, `SELECT ${COLUMNS} FROM jobs WHERE request_id = $1`, [requestId]);
    return r.rows[0] && fromPgRow(r.rows[0]);
  }

  async finish(info: JobInfo): Promise<void> {
    await this.#query(true, 'UPDATE jobs SET state = $1, finished_at = $2, result = $3, wasm = NULL, inputs = NULL, witness_files = NULL WHERE id = $4', [info.state, info.finishedAt ?? Date.now(), JSON.stringify(info), info.id]);
  }

  async unfinished(): Promise<StoredJob[]> {
    const r = await this.#query<PgJobRow>(false, `SELECT ${COLUMNS} FROM jobs WHERE state IN ('queued', 'running') ORDER BY submitted_at, seq`);
    return r.rows.map((r) => fromPgRow(r));
  }

  async purge(before: number): Promise<number> {
    return (await this.#query(true, 'DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < $1', [before])).rowCount ?? 0;
  }

  async counts(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const r of (await this.#query<{ state: string; n: string }>(false, 'SELECT state, COUNT(*) AS n FROM jobs GROUP BY state')).rows) out[r.state] = Number(r.n);
    return out;
  }

  async putKey(id: string, keyPath: string): Promise<void> {
    await this.#query(true, 'INSERT INTO keys (id, path, added_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET path = $2, added_at = $3', [id, keyPath, Date.now()]);
  }

  async deleteKey(id: string): Promise<void> {
    await this.#query(true, 'DELETE FROM keys WHERE id = $1', [id]);
  }

  async keys(): Promise<{ id: string; path: string }[]> {
    return (await this.#query<{ id: string; path: string }>(false, 'SELECT id, path FROM keys ORDER BY added_at, id')).rows;
  }

  async writeProblem(): Promise<string | undefined> {
    try {
      await this.probe();
    } catch {
      // the fault is kept in #fault
    }
    return this.#fault?.message;
  }

  async probe(): Promise<void> {
    await this.#query(true, PROBE, [Date.now()]);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** A statement whose store faults become E_UNAVAILABLE errors (others, e.g. constraints, pass as they are). */
  async #query<R extends pg.QueryResultRow = pg.QueryResultRow>(write: boolean, sql: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    let out: pg.QueryResult<R>;
    try {
      out = await this.pool.query<R>(sql, values);
    } catch (err) {
      const fault = storeFault(this.url, err, false);
      if (!fault) throw err;
      this.#fault = fault;
      throw fault;
    }
    if (write) this.#fault = undefined;
    return out;
  }
}
