// Claims on the PostgreSQL queue that several `cuzk serve` daemons share. One statement picks the
// next job by priority and age whose memory need fits what the claiming daemon has free (host, pinned,
// its roomiest GPU; a key it does not hold counts against its host budget), preferring jobs whose key
// it already holds, and marks it running under a lease: the owner's id, an expiry, and an attempt
// number that fences the result (FOR UPDATE SKIP LOCKED: daemons claiming at once never wait on
// each other's rows). Leases are renewed by heartbeats and requeued by any daemon's reaper once
// expired. Lease times are the database server's clock, so the daemons' clocks need not agree.
// The first valid proof of a job wins, whichever attempt made it; any other terminal state counts
// only from the current owner; everything else is a late result, discarded (and counted by the caller).
import type pg from 'pg';
import type { JobInfo } from '../../engine/api.js';
import { jobFromRow, type JobRow } from '../journal/job-row.js';
import type { MemoryNeed, StoredJob } from '../journal/job-store.js';

/** The database server's clock in epoch ms. */
export const NOW_MS = '(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint';
/** NOTIFY channels: a job was queued (or requeued); a job's cancel was asked for; a job ended. */
export const CHANNELS = { jobs: 'cuzk_jobs', cancel: 'cuzk_cancel', done: 'cuzk_done' } as const;

const COLUMNS = 'j.id, j.request_id, j.fingerprint, j.key, j.priority, j.state, j.partitions, j.submitted_at, j.deadline_ms, j.wasm, j.inputs, j.witness_files, j.result';

/** What a daemon can take on now, in bytes (`gpu`: its roomiest GPU; a CPU-only daemon gives Infinity). */
export interface FreeBudget {
  host: number;
  pinned: number;
  gpu: number;
}

export interface ClaimedJob {
  job: StoredJob;
  /** The fencing token: the result of this run counts only while it is the job's attempt (or it is the first proof). */
  attempt: number;
  /** The claiming daemon held the job's key when it claimed it. */
  resident: boolean;
  need: MemoryNeed;
}

export interface Fence {
  owner: string;
  attempt: number;
}

const big = (n: number) => (Number.isFinite(n) ? String(Math.max(0, Math.floor(n))) : '9223372036854775807');

export class PgClaims {
  constructor(private readonly pool: pg.Pool) {}

  /** The next job that fits `free`, claimed for `owner` for `leaseMs`; undefined when none fits. */
  async claim(owner: string, free: FreeBudget, residentKeys: readonly string[], leaseMs: number): Promise<ClaimedJob | undefined> {
    const r = await this.pool.query<JobRow & { attempt: number; claimed_resident: boolean; need_host: string; need_pinned: string; need_gpu: string; need_key: string; key_hash: string | null; accepted_by: string | null }>(
      `WITH next AS (
         SELECT id FROM jobs
         WHERE state = 'queued' AND NOT cancel_requested
           AND need_pinned <= $2 AND need_gpu <= $4
           AND need_host + CASE WHEN key = ANY($5::text[]) THEN 0 ELSE need_key END <= $3
         ORDER BY priority_rank, (key = ANY($5::text[])) DESC, submitted_at, seq
         LIMIT 1
         FOR UPDATE SKIP LOCKED)
       UPDATE jobs j SET state = 'running', owner = $1, attempt = j.attempt + 1, lease_until = ${NOW_MS} + $6,
         claimed_at = ${NOW_MS}, claimed_resident = (j.key = ANY($5::text[]))
       FROM next WHERE j.id = next.id
       RETURNING ${COLUMNS}, j.attempt, j.claimed_resident, j.need_host, j.need_pinned, j.need_gpu, j.need_key, j.key_hash, j.accepted_by`,
      [owner, big(free.pinned), big(free.host), big(free.gpu), residentKeys, leaseMs],
    );
    const row = r.rows[0];
    if (!row) return undefined;
    const need = { host: Number(row.need_host), pinned: Number(row.need_pinned), gpu: Number(row.need_gpu), key: Number(row.need_key) };
    const job: StoredJob = { ...jobFromRow(row), need };
    if (row.key_hash) job.keyHash = row.key_hash;
    if (row.accepted_by) job.acceptedBy = row.accepted_by;
    return { job, attempt: row.attempt, resident: row.claimed_resident, need };
  }

  /** Extends `owner`'s leases; returns its jobs whose cancel was asked for (a missed NOTIFY is caught here). */
  async renew(owner: string, leaseMs: number): Promise<{ cancelRequested: string[]; held: string[] }> {
    const r = await this.pool.query<{ id: string; cancel_requested: boolean }>(
      `UPDATE jobs SET lease_until = ${NOW_MS} + $2 WHERE owner = $1 AND state = 'running' RETURNING id, cancel_requested`,
      [owner, leaseMs],
    );
    return { cancelRequested: r.rows.filter((x) => x.cancel_requested).map((x) => x.id), held: r.rows.map((x) => x.id) };
  }

  /** Requeues running jobs whose lease expired (a job whose cancel was asked for ends cancelled instead). */
  async reap(): Promise<{ requeued: { id: string; owner: string }[]; cancelled: string[] }> {
    const c = await this.pool.query<{ id: string }>(
      `UPDATE jobs SET state = 'cancelled', finished_at = ${NOW_MS}, owner = NULL, lease_until = NULL, wasm = NULL, inputs = NULL, witness_files = NULL
       WHERE state = 'running' AND lease_until < ${NOW_MS} AND cancel_requested RETURNING id`,
    );
    const q = await this.pool.query<{ id: string; owner: string }>(
      `UPDATE jobs j SET state = 'queued', owner = NULL, lease_until = NULL FROM jobs old
       WHERE j.id = old.id AND j.state = 'running' AND j.lease_until < ${NOW_MS} RETURNING j.id, old.owner`,
    );
    return { requeued: q.rows, cancelled: c.rows.map((x) => x.id) };
  }

  /** Records a terminal job if it still counts (see the header); false: a late result, not recorded. */
  async finish(info: JobInfo, fence: Fence): Promise<boolean> {
    const params = [info.id, info.state, info.finishedAt ?? Date.now(), JSON.stringify(info)];
    const set = `SET state = $2, finished_at = $3, result = $4, owner = NULL, lease_until = NULL, wasm = NULL, inputs = NULL, witness_files = NULL`;
    const r = info.state === 'completed'
      ? await this.pool.query(`UPDATE jobs ${set} WHERE id = $1 AND state IN ('queued', 'running')`, params)
      : await this.pool.query(`UPDATE jobs ${set} WHERE id = $1 AND state = 'running' AND owner = $5 AND attempt = $6`, [...params, fence.owner, fence.attempt]);
    return r.rowCount === 1;
  }

  /** Gives `owner`'s running jobs back to the queue (a daemon stopping with jobs unfinished). */
  async release(owner: string, ids: readonly string[]): Promise<number> {
    const r = await this.pool.query(`UPDATE jobs SET state = 'queued', owner = NULL, lease_until = NULL WHERE owner = $1 AND state = 'running' AND id = ANY($2::text[])`, [owner, ids]);
    return r.rowCount ?? 0;
  }

  /** Ends a job that is still queued as `info` (cancelled); false when it is not queued (running or terminal). */
  async cancelQueued(info: JobInfo): Promise<boolean> {
    const r = await this.pool.query(
      `UPDATE jobs SET state = 'cancelled', finished_at = $2, result = $3, wasm = NULL, inputs = NULL, witness_files = NULL WHERE id = $1 AND state = 'queued'`,
      [info.id, info.finishedAt ?? Date.now(), JSON.stringify(info)],
    );
    return r.rowCount === 1;
  }

  /** Marks a running job's cancel as asked for; returns its owner (undefined: it is not running). */
  async requestCancel(id: string): Promise<string | undefined> {
    const r = await this.pool.query<{ owner: string }>(`UPDATE jobs SET cancel_requested = TRUE WHERE id = $1 AND state = 'running' RETURNING owner`, [id]);
    return r.rows[0]?.owner;
  }

  /** The job's owner and claim, for GetStatus and tests. */
  async claimOf(id: string): Promise<{ owner: string | null; attempt: number; state: string } | undefined> {
    return (await this.pool.query<{ owner: string | null; attempt: number; state: string }>('SELECT owner, attempt, state FROM jobs WHERE id = $1', [id])).rows[0];
  }

  /** The state of each of `ids` still in the table, and whether its cancel was asked for (the poll
   * that stands in for NOTIFY when the database has none). */
  async states(ids: readonly string[]): Promise<{ id: string; state: string; owner: string | null; cancelRequested: boolean }[]> {
    const r = await this.pool.query<{ id: string; state: string; owner: string | null; cancel_requested: boolean }>(
      'SELECT id, state, owner, cancel_requested FROM jobs WHERE id = ANY($1::text[])',
      [ids],
    );
    return r.rows.map((x) => ({ id: x.id, state: x.state, owner: x.owner, cancelRequested: x.cancel_requested }));
  }

  /** Only on its own statement (never inside a job's transaction): a database without NOTIFY fails it. */
  async notify(channel: string, payload = ''): Promise<void> {
    await this.pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }
}
