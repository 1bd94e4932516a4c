// JobStore: the daemon's journal of accepted jobs and their results. A job is written here before
// the client hears "accepted", and its row is rewritten once terminal (results kept for a retention
// period); on start the daemon resubmits every non-terminal job with its id and request id.
// sqlite-store.ts is the embedded default; pg-store.ts keeps the same journal in PostgreSQL, a queue
// several daemons share: they claim its jobs (pg-claims.ts) instead of replaying them at start.
// Both pass test/server/store-conformance.ts.
import type { JobInfo, JobState, Priority } from '../../engine/api.js';
import type { SpooledWitness } from '../intake/spool.js';

export interface StoredJob {
  id: string;
  requestId?: string;
  /** Hash of what the job asks for (jobFingerprint, intake/witness-intake.ts: its key, each witness's
   * sha256 or a server file's identity, its inputs): a reused request id must match it. */
  fingerprint: string;
  key: string;
  priority: Priority;
  /** SQLite: 'queued' until terminal (a job running when the daemon stopped is rerun after a restart);
   * PostgreSQL: 'running' while a daemon holds it under a lease (pg-claims.ts), 'queued' again if the lease expires. */
  state: JobState;
  partitions: number;
  submittedAt: number;
  deadlineMs?: number;
  /** What the job proves, while it is not terminal: its witness files (path, size, sha256; never the
   * bytes), or its circuit inputs and wasm. `witnesses`: bytes journaled before the spool existed. */
  request?: StoredRequest;
  /** The terminal JobInfo (with proofs when completed). */
  result?: JobInfo;
  /** What it needs of a daemon's memory budget (job-need.ts): a store that daemons share
   * (PostgreSQL) claims by it; SQLite, one daemon's journal, does not keep it. */
  need?: MemoryNeed;
  /** The sha256 of the key file the accepting daemon holds (key-hash.ts): a daemon whose copy differs
   * refuses the job. Kept by a store daemons share (PostgreSQL), as `need` is. */
  keyHash?: string;
  /** The daemon that accepted the job and spooled its witnesses (a fleet's `daemons` id): a claimer
   * elsewhere fetches them from it (witness-fetch.ts). */
  acceptedBy?: string;
}

/** Bytes one partition of a job holds while it runs: host scratch (on the CPU core), pinned buffers,
 * one GPU's scratch, and the key's host bytes when the daemon does not hold the key yet. */
export interface MemoryNeed {
  host: number;
  pinned: number;
  gpu: number;
  key: number;
}

export interface StoredRequest {
  witnessFiles?: SpooledWitness[];
  witnesses?: Uint8Array[];
  inputs?: Record<string, unknown>[];
  wasm?: string;
}

/** A journaled job as a JobInfo: its result once terminal, else what the journal knows of it. */
export function storedInfo(s: StoredJob): JobInfo {
  if (s.result) return s.result;
  return { id: s.id, requestId: s.requestId, key: s.key, priority: s.priority, state: s.state, partitions: s.partitions, submittedAt: s.submittedAt, timings: {} };
}

export type InsertResult = { inserted: true } | { inserted: false; existing: StoredJob };

export interface JobStore {
  /** Journals a new job; when its requestId is already journaled, returns that job instead. */
  insert(job: StoredJob): Promise<InsertResult>;
  /** Removes a job the engine refused right after it was journaled (it was never acknowledged). */
  remove(id: string): Promise<void>;
  get(id: string): Promise<StoredJob | undefined>;
  byRequestId(requestId: string): Promise<StoredJob | undefined>;
  /** Records a terminal job; drops its request payload. */
  finish(info: JobInfo): Promise<void>;
  /** Non-terminal jobs with their requests, oldest first. */
  unfinished(): Promise<StoredJob[]>;
  /** Deletes terminal jobs finished before `before` (epoch ms); returns how many. */
  purge(before: number): Promise<number>;
  counts(): Promise<Record<string, number>>;
  /** Keys registered with LoadKey, reloaded on start. */
  putKey(id: string, path: string): Promise<void>;
  deleteKey(id: string): Promise<void>;
  keys(): Promise<{ id: string; path: string }[]>;
  /** Undefined when the store can be written now (it may try a small write), else why not (/readyz). */
  writeProblem(): Promise<string | undefined>;
  close(): Promise<void>;
}
