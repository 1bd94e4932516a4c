// A job as a row of the `jobs` table, the same columns in every JobStore (sqlite-store.ts,
// pg-store.ts): one mapping each way, so that both stores journal exactly the same thing.
import type { JobInfo, JobState, Priority } from '../../engine/api.js';
import type { StoredJob, StoredRequest } from './job-store.js';
import type { SpooledWitness } from '../intake/spool.js';

export interface JobRow {
  id: string;
  request_id: string | null;
  fingerprint: string;
  key: string;
  priority: string;
  state: string;
  partitions: number;
  /** PostgreSQL's BIGINT comes back as a string. */
  submitted_at: number | string;
  deadline_ms: number | string | null;
  wasm: string | null;
  inputs: string | null;
  witness_files: string | null;
  result: string | null;
}

/** The columns an insert writes, in this order. */
export const INSERT_COLUMNS = ['id', 'request_id', 'fingerprint', 'key', 'priority', 'state', 'partitions', 'submitted_at', 'deadline_ms', 'wasm', 'inputs', 'witness_files'] as const;

export type InsertRow = Record<(typeof INSERT_COLUMNS)[number], string | number | null>;

export function jobToRow(job: StoredJob): InsertRow {
  const req = job.request;
  return {
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
    // the intake's layouts are the engine's, not the journal's: a replayed job is checked from its files
    witness_files: req?.witnessFiles ? JSON.stringify(req.witnessFiles.map(({ path, size, sha256, owned }) => ({ path, size, sha256, owned }))) : null,
  };
}

/** `legacyWitnesses`: witness bytes of a journal written before the spool (SQLite only). */
export function jobFromRow(r: JobRow, legacyWitnesses?: Uint8Array[]): StoredJob {
  const job: StoredJob = {
    id: r.id,
    requestId: r.request_id ?? undefined,
    fingerprint: r.fingerprint,
    key: r.key,
    priority: r.priority as Priority,
    state: r.state as JobState,
    partitions: r.partitions,
    submittedAt: Number(r.submitted_at),
    deadlineMs: r.deadline_ms === null ? undefined : Number(r.deadline_ms),
  };
  if (r.result) job.result = JSON.parse(r.result) as JobInfo;
  if (r.witness_files || legacyWitnesses || r.inputs) {
    const req: StoredRequest = {};
    if (r.witness_files) req.witnessFiles = JSON.parse(r.witness_files) as SpooledWitness[];
    if (legacyWitnesses) req.witnesses = legacyWitnesses;
    if (r.inputs) req.inputs = JSON.parse(r.inputs) as Record<string, unknown>[];
    if (r.wasm) req.wasm = r.wasm;
    job.request = req;
  }
  return job;
}
