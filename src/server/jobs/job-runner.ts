// What JobService asks of the mode it runs in: a daemon that runs what it accepts (local-runner.ts)
// or one of several sharing a PostgreSQL queue (fleet-runner.ts). Both hand the jobs that run here to
// their EngineJobs; they differ in where an accepted job goes, how a result is journaled, and how
// a job this engine does not hold is read, awaited, watched and cancelled.
import type { JobEvent, JobInfo } from '../../engine/api.js';
import type { KeyShape, SpooledWitness } from '../intake/spool.js';
import type { KeySize } from '../intake/witness-intake.js';
import type { StoredJob } from '../journal/job-store.js';
import type { FleetMember } from '../fleet/fleet-member.js';
import type { EngineJobs } from './engine-jobs.js';

export interface RecoverCounts {
  resubmitted: number;
  expired: number;
  lost: number;
  waiting: number;
}

export interface JobRunner {
  /** The jobs this daemon's engine runs. */
  readonly live: EngineJobs;
  /** The shared queue, in a fleet. */
  readonly fleet?: FleetMember;
  /** Fills what the journal row needs before it is inserted (a fleet's memory need, key hash, acceptor). */
  prepare(stored: StoredJob, key: KeyShape & KeySize): Promise<void>;
  /** A job just journaled (not a duplicate): started here, or announced to the fleet. Its spool
   * files are the runner's from then on; a throw means nothing was kept (the job is not in the journal). */
  accept(stored: StoredJob, files: SpooledWitness[] | undefined): Promise<JobInfo>;
  /** A job this engine does not hold, from the journal; in a fleet, waited for up to `waitMs` while it runs elsewhere. */
  stored(id: string, waitMs: number): Promise<JobInfo>;
  /** After a job's first state from the journal: its later states while it runs elsewhere (none locally). */
  watchStored(id: string, first: JobInfo, signal: AbortSignal): AsyncGenerator<JobEvent>;
  /** Cancels a journaled job this engine does not hold. */
  cancelStored(s: StoredJob): Promise<JobInfo>;
  /** At start: the journal's unfinished jobs (a fleet replays nothing: they are claimed). */
  recover(unfinished: StoredJob[]): Promise<RecoverCounts>;
}
