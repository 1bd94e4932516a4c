// Jobs of a daemon that runs what it accepts (the SQLite journal, or a store no other daemon shares):
// a journaled job goes straight to this engine, its result is journaled when the engine reports it,
// and at start the journal's unfinished jobs are resubmitted under their ids (expired ones end
// expired, one whose witness file is gone ends failed). Jobs beyond the engine's queue wait in a
// backlog, refilled as jobs finish.
import { existsSync } from 'node:fs';
import { CuzkError, errorForCode, InputError, toCuzkError } from '../../errors.js';
import type { JobEvent, JobInfo } from '../../engine/api.js';
import type { Logger } from '../../log.js';
import type { ServeConfig } from '../startup/config.js';
import { confineStored } from '../intake/request-check.js';
import type { KeyShape, SpooledWitness, WitnessSpool } from '../intake/spool.js';
import { knownParts } from '../intake/witness-intake.js';
import { storedInfo, type JobStore, type StoredJob } from '../journal/job-store.js';
import { EngineJobs } from './engine-jobs.js';
import type { JobRunner, RecoverCounts } from './job-runner.js';

export class LocalRunner implements JobRunner {
  readonly live: EngineJobs;
  /** Journaled jobs waiting for room in the engine's queue (after a restart with a long journal). */
  readonly #backlog: StoredJob[] = [];

  constructor(
    engine: EngineJobs['engine'],
    private readonly store: JobStore,
    private readonly spool: Pick<WitnessSpool, 'release'>,
    private readonly cfg: Pick<ServeConfig, 'keyDirs' | 'inputDirs'>,
    private readonly log: Logger,
  ) {
    this.live = new EngineJobs(engine, spool, async (info) => (await store.finish(info), true), log);
    this.live.afterResult = () => this.#pumpBacklog();
  }

  async prepare(): Promise<void> {}

  async accept(stored: StoredJob, files: SpooledWitness[] | undefined, key?: KeyShape): Promise<JobInfo> {
    let job: JobInfo;
    try {
      job = this.live.start(stored, knownParts(files, key));
    } catch (err) {
      await this.store.remove(stored.id).catch((e: unknown) => this.log.error({ jobId: stored.id, err: toCuzkError(e).message }, 'a refused job stays in the journal: it runs after a restart'));
      throw err;
    }
    this.log.info({ jobId: stored.id, requestId: stored.requestId, key: stored.key, priority: job.priority, partitions: job.partitions, bytes: files?.reduce((n, f) => n + f.size, 0) }, 'job accepted');
    return job;
  }

  async stored(id: string): Promise<JobInfo> {
    const s = await this.store.get(id);
    if (!s) throw new InputError('E_NOT_FOUND', `no job ${id} (unknown, or its result is older than the retention period)`);
    return storedInfo(s);
  }

  async *watchStored(): AsyncGenerator<JobEvent> {}

  async cancelStored(s: StoredJob): Promise<JobInfo> {
    const i = this.#backlog.findIndex((b) => b.id === s.id);
    if (i >= 0) this.#backlog.splice(i, 1);
    const info: JobInfo = { ...storedInfo(s), state: 'cancelled', finishedAt: Date.now() };
    await this.store.finish(info);
    await this.spool.release(s.request?.witnessFiles);
    return info;
  }

  /** Resubmits journaled unfinished jobs (`unfinished`, read before the spool was swept) under their
   * ids; expired ones end expired, and one whose witness file is gone ends failed, said in the log. */
  async recover(unfinished: StoredJob[]): Promise<RecoverCounts> {
    let expired = 0, lost = 0;
    const now = Date.now();
    for (const s of unfinished) {
      const files = s.request?.witnessFiles ?? [];
      const missing = files.find((f) => !existsSync(f.path));
      if (s.deadlineMs && s.submittedAt + s.deadlineMs <= now) {
        await this.#end(s, 'expired', new CuzkError('E_TIMEOUT', `deadline of ${s.deadlineMs} ms passed while the daemon was down`));
        expired++;
      } else if (missing) {
        this.log.error({ jobId: s.id, path: missing.path }, 'journaled job lost its witness file: it ends failed');
        await this.#end(s, 'failed', new InputError('E_NOT_FOUND', `after a restart: witness file ${missing.path} is gone (removed outside the daemon?): submit the job again`));
        lost++;
      } else {
        try {
          // the directories may have changed since it was accepted, and the files with them
          await confineStored(s, this.cfg, this.#isKeyId);
        } catch (err) {
          await this.#resubmitFailed(s, err);
          continue;
        }
        this.#backlog.push(s);
      }
    }
    const before = this.#backlog.length;
    this.#pumpBacklog();
    return { resubmitted: before - this.#backlog.length, expired, lost, waiting: this.#backlog.length };
  }

  readonly #isKeyId = (key: string) => this.live.engine.listKeys().some((k) => k.id === key);

  async #end(s: StoredJob, state: 'expired' | 'failed', e: CuzkError): Promise<void> {
    await this.store.finish({ ...storedInfo(s), state, finishedAt: Date.now(), error: { code: e.code, message: e.message } });
    await this.spool.release(s.request?.witnessFiles);
  }

  async #resubmitFailed(s: StoredJob, err: unknown): Promise<void> {
    const e = toCuzkError(err);
    this.log.warn({ jobId: s.id, code: e.code, err: e.message }, 'journaled job could not be resubmitted');
    await this.#end(s, 'failed', errorForCode(e.code, `after a restart: ${e.message}`, { cause: e }));
  }

  #pumpBacklog(): void {
    while (this.live.accepting && this.#backlog.length > 0) {
      const s = this.#backlog[0]!;
      try {
        this.live.start(s);
      } catch (err) {
        if (err instanceof CuzkError && err.code === 'E_OVERLOADED') return; // retried when a job finishes
        this.#backlog.shift();
        this.#resubmitFailed(s, err).catch((fe: unknown) => this.log.error({ jobId: s.id, err: toCuzkError(fe).message }, 'journaling the failure failed'));
        continue;
      }
      this.#backlog.shift();
      this.log.info({ jobId: s.id, requestId: s.requestId }, 'journaled job resubmitted');
    }
  }
}
