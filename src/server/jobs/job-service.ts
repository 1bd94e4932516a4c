// Jobs between the network and the engine: a request is validated once (request-check.ts), its
// witnesses stored as files (witness-intake.ts), the job journaled (JobStore) before it is
// acknowledged, then handed to the runner of the daemon's mode: local-runner.ts runs it in this
// engine, fleet-runner.ts announces it to a shared queue. The journal alone owns request-id
// idempotency: the engine never sees request ids. Jobs this engine holds are answered from it
// (engine-jobs.ts), others from the journal through the runner.
import { randomUUID } from 'node:crypto';
import { InputError, ResourceError } from '../../errors.js';
import type { JobEvent, JobInfo } from '../../engine/api.js';
import type { FleetMember } from '../fleet/fleet-member.js';
import type { ServeConfig } from '../startup/config.js';
import { checkJobRequest, confineJobPaths, type JobSubmission } from '../intake/request-check.js';
import { jobFingerprint, type WitnessIntake } from '../intake/witness-intake.js';
import type { JobStore, StoredJob } from '../journal/job-store.js';
import type { JobRunner, RecoverCounts } from './job-runner.js';

export class JobService {
  constructor(
    private readonly runner: JobRunner,
    private readonly store: JobStore,
    private readonly intake: WitnessIntake,
    private readonly cfg: ServeConfig,
  ) {}

  get fleet(): FleetMember | undefined {
    return this.runner.fleet;
  }

  get accepting(): boolean {
    return this.runner.live.accepting;
  }

  async submit(req: JobSubmission): Promise<{ job: JobInfo; deduplicated: boolean }> {
    if (!this.accepting) throw new ResourceError('E_OVERLOADED', 'the daemon is shutting down: not accepting jobs', { retryable: true, details: { draining: true } });
    const live = this.runner.live;
    const v = await confineJobPaths(checkJobRequest(req, this.cfg), this.cfg, (k) => live.engine.listKeys().some((x) => x.id === k));
    const key = await this.intake.keyShape(v.key);
    const files = await this.intake.files(v, key);
    let kept = false;
    try {
      const fingerprint = jobFingerprint(v, files);
      const src = v.source;
      const stored: StoredJob = {
        id: randomUUID(), requestId: v.requestId, fingerprint, key: v.key, priority: v.priority, state: 'queued', partitions: v.partitions,
        submittedAt: Date.now(), deadlineMs: v.deadlineMs, request: src.kind === 'inputs' ? { inputs: src.inputs, wasm: src.wasm } : { witnessFiles: files },
      };
      await this.runner.prepare(stored, key);
      const ins = await this.store.insert(stored);
      if (!ins.inserted) {
        if (ins.existing.fingerprint !== fingerprint) throw new InputError('E_INVALID_ARG', `request_id ${ins.existing.requestId} was already used for job ${ins.existing.id} with other content`);
        return { job: await this.get(ins.existing.id), deduplicated: true };
      }
      const job = await this.runner.accept(stored, files);
      kept = true;
      return { job, deduplicated: false };
    } finally {
      if (!kept) await this.intake.spool.release(files);
    }
  }

  async get(id: string): Promise<JobInfo> {
    return this.runner.live.get(id) ?? this.runner.stored(id, 0);
  }

  /** Terminal, or current after the timeout, or current once the daemon has drained (so callers get an answer before it exits). */
  async await(id: string, timeoutMs: number | undefined): Promise<JobInfo> {
    const wait = Math.min(timeoutMs ?? this.cfg.maxAwaitMs, this.cfg.maxAwaitMs);
    return this.runner.live.get(id) ? this.runner.live.await(id, wait) : this.runner.stored(id, wait);
  }

  async cancel(id: string): Promise<JobInfo> {
    const live = this.runner.live;
    if (live.get(id)) {
      const info = live.cancel(id);
      live.log.info({ jobId: id, state: info.state }, 'cancel requested');
      return info;
    }
    const s = await this.store.get(id);
    if (!s) throw new InputError('E_NOT_FOUND', `no job ${id}`);
    return s.result ?? this.runner.cancelStored(s);
  }

  /** A job's events until it is terminal; a job only in the journal gives its state, then (in a fleet) its changes. */
  async *watch(id: string, signal: AbortSignal): AsyncGenerator<JobEvent> {
    if (this.runner.live.get(id)) return yield* this.runner.live.watch(id, signal);
    const info = await this.get(id);
    yield { type: 'state', jobId: id, at: info.finishedAt ?? info.submittedAt, state: info.state, error: info.error };
    yield* this.runner.watchStored(id, info, signal);
  }

  /** At start: the journal's unfinished jobs, resubmitted (local) or left to be claimed (fleet). */
  recover(unfinished: StoredJob[]): Promise<RecoverCounts> {
    return this.runner.recover(unfinished);
  }

  /** Forgets what it kept of jobs submitted before `before` (their results are purged too). */
  prune(before: number): void {
    this.runner.live.prune(before);
  }

  /** Stops intake; results of jobs still finishing are journaled as they arrive. */
  stopIntake(): void {
    this.runner.live.stopIntake();
  }

  /** The engine has drained: pending awaits answer with the jobs' current state. */
  drained(): void {
    this.runner.live.drained();
  }

  /** Waits until the results the engine has reported are journaled. */
  settle(): Promise<void> {
    return this.runner.live.settle();
  }
}
