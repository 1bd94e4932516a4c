// Jobs of a daemon that shares a PostgreSQL queue with others (fleet-member.ts): a submitted job is
// only journaled and announced; whichever daemon claims it runs it (runClaimed), its result recorded
// fenced (a late or superseded run's is dropped). Await, WatchJob, GetJob and Cancel answer for jobs
// running on other daemons from the store, woken by the fleet's NOTIFY (or its poll). Witnesses
// spooled by the accepting daemon are fetched from it by the claimer (witness-fetch.ts) and removed
// at the acceptor when the job ends anywhere.
import { InputError, toCuzkError } from '../../errors.js';
import type { JobEvent, JobInfo } from '../../engine/api.js';
import type { Logger } from '../../log.js';
import type { ServeConfig } from '../startup/config.js';
import type { ClaimRunner, FleetMember } from '../fleet/fleet-member.js';
import { jobNeed } from '../fleet/job-need.js';
import { fetchWitnesses, spooledElsewhere } from '../fleet/witness-fetch.js';
import { confineStored } from '../intake/request-check.js';
import type { KeyShape, SpooledWitness } from '../intake/spool.js';
import { knownParts, type KeySize, type WitnessIntake } from '../intake/witness-intake.js';
import { storedInfo, type JobStore, type StoredJob } from '../journal/job-store.js';
import { EngineJobs, isTerminal } from './engine-jobs.js';
import type { JobRunner, RecoverCounts } from './job-runner.js';

export type FleetRunnerConfig = Pick<ServeConfig, 'keyDirs' | 'inputDirs' | 'token' | 'tlsCert' | 'witnessWaitMs'>;

export class FleetRunner implements JobRunner, ClaimRunner {
  readonly live: EngineJobs;
  /** Runs of jobs another daemon finished first: ended here without a result. */
  readonly #superseded = new Set<string>();
  /** Claimed jobs whose witnesses are being fetched from the daemon that spooled them. */
  readonly #fetching = new Map<string, { cancelled: boolean }>();
  /** Spool files of jobs this daemon accepted into the shared queue, until they end anywhere. */
  readonly #acceptedHere = new Map<string, SpooledWitness[]>();

  constructor(
    engine: EngineJobs['engine'],
    readonly fleet: FleetMember,
    private readonly store: JobStore,
    private readonly intake: Pick<WitnessIntake, 'spool' | 'keyShape'>,
    private readonly cfg: FleetRunnerConfig,
    private readonly log: Logger,
  ) {
    this.live = new EngineJobs(engine, intake.spool, (info) => this.#journal(info), log);
  }

  async #journal(info: JobInfo): Promise<boolean> {
    const superseded = this.#superseded.delete(info.id);
    return (await this.fleet.finish(info)) && !superseded; // else the job's result is another run's
  }

  /** The file of a key name: a loaded key's (by id or path), else the path itself. */
  #keyFile(key: string): string {
    return this.live.engine.listKeys().find((k) => k.id === key || k.path === key)?.path ?? key;
  }

  readonly #isKeyId = (key: string) => this.live.engine.listKeys().some((k) => k.id === key);

  async prepare(stored: StoredJob, key: KeyShape & KeySize): Promise<void> {
    stored.need = jobNeed(key);
    stored.keyHash = await this.fleet.keyHashes.of(this.#keyFile(stored.key));
    stored.acceptedBy = this.fleet.id;
  }

  async accept(stored: StoredJob, files: SpooledWitness[] | undefined): Promise<JobInfo> {
    // its files stay for whichever daemon claims it (served to it: witness-serve.ts)
    if (files?.some((f) => f.owned)) this.#acceptedHere.set(stored.id, files);
    try {
      await this.fleet.announce();
    } catch (err) {
      // it is journaled: daemons find it by their claim timer (once a second) instead of the notice
      this.log.warn({ jobId: stored.id, err: toCuzkError(err).message }, 'announcing a queued job failed: it is claimed at the next poll');
    }
    this.log.info({ jobId: stored.id, requestId: stored.requestId, key: stored.key, priority: stored.priority, partitions: stored.partitions }, 'job accepted into the shared queue');
    return storedInfo(stored);
  }

  async #current(id: string): Promise<JobInfo> {
    const live = this.live.get(id); // claimed here meanwhile
    if (live) return live;
    const s = await this.store.get(id);
    if (!s) throw new InputError('E_NOT_FOUND', `no job ${id} (unknown, or its result is older than the retention period)`);
    return storedInfo(s);
  }

  /** A job of the shared queue not running here: read again whenever a job ends (NOTIFY), at least once a second. */
  async stored(id: string, waitMs: number): Promise<JobInfo> {
    const until = Date.now() + waitMs;
    for (;;) {
      const info = await this.#current(id);
      const left = until - Date.now();
      if (isTerminal(info.state) || left <= 0 || !this.live.accepting) return info;
      if (this.live.get(id)) return this.live.await(id, left);
      await Promise.race([this.fleet.waitDone(id, Math.min(left, 1000)), this.live.untilDrained]);
    }
  }

  async *watchStored(id: string, first: JobInfo, signal: AbortSignal): AsyncGenerator<JobEvent> {
    let info = first;
    while (!isTerminal(info.state) && !signal.aborted && this.live.accepting) {
      const next = await this.stored(id, 1000);
      if (next.state !== info.state) yield { type: 'state', jobId: id, at: next.finishedAt ?? Date.now(), state: next.state, error: next.error };
      info = next;
    }
  }

  async cancelStored(s: StoredJob): Promise<JobInfo> {
    const info: JobInfo = { ...storedInfo(s), state: 'cancelled', finishedAt: Date.now() };
    const how = await this.fleet.cancel(info);
    if (how === 'requested') return { ...storedInfo(s), state: 'running' }; // the owner stops it at its next phase boundary
    if (how === 'none') return this.#current(s.id); // it ended meanwhile
    await this.intake.spool.release(s.request?.witnessFiles);
    return info;
  }

  /** A fleet replays nothing at start: unfinished jobs are claimed, a dead daemon's once its leases expire. */
  async recover(): Promise<RecoverCounts> {
    return { resubmitted: 0, expired: 0, lost: 0, waiting: 0 };
  }

  /** A cancel from the fleet: the owner of a job asked to cancel elsewhere, or a duplicate run to drop. */
  cancelHere(id: string, superseded: boolean): void {
    const fetching = this.#fetching.get(id);
    if (fetching) {
      fetching.cancelled = true; // it ends cancelled once its witnesses are here
      return;
    }
    if (superseded) this.#superseded.add(id);
    const info = this.live.cancel(id, !superseded);
    this.log.info({ jobId: id, state: info.state, superseded }, superseded ? 'duplicate run dropped: another daemon finished the job first' : 'cancel from another daemon applied');
  }

  /** A job this daemon claimed from the shared queue, handed to its engine; witnesses another daemon
   * spooled are fetched from it first (witness-fetch.ts), without holding up further claims. */
  async runClaimed(s: StoredJob): Promise<void> {
    try {
      await confineStored(s, this.cfg, this.#isKeyId);
      await this.#checkKeyHash(s);
    } catch (err) {
      return this.#failClaimed(s, err);
    }
    if (s.acceptedBy && s.acceptedBy !== this.fleet.id && s.request?.witnessFiles?.some((f) => spooledElsewhere(f, this.intake.spool.dir))) {
      this.#fetching.set(s.id, { cancelled: false });
      this.live.track(this.#fetchThenRun(s).finally(() => this.#fetching.delete(s.id)));
      return;
    }
    this.live.start(s);
  }

  /** Refuses a claimed job whose key file here is not the one it was accepted with (by sha256). */
  async #checkKeyHash(s: StoredJob): Promise<void> {
    if (!s.keyHash) return;
    const file = this.#keyFile(s.key);
    const mine = await this.fleet.keyHashes.of(file);
    if (mine !== s.keyHash) {
      throw new InputError('E_INVALID_ARG', `key ${s.key}: this daemon's copy (${file}, sha256 ${mine.slice(0, 12)}…) is not the key the job was submitted with (sha256 ${s.keyHash.slice(0, 12)}…): install the same key file on every daemon of the fleet`);
    }
  }

  async #fetchThenRun(s: StoredJob): Promise<void> {
    let files, key;
    try {
      key = await this.intake.keyShape(s.key);
      files = await fetchWitnesses(s, {
        spool: this.intake.spool, key, token: this.cfg.token, fleetSecret: this.fleet.secret, tls: this.cfg.tlsCert !== '',
        waitMs: this.cfg.witnessWaitMs, addressOf: (id) => this.fleet.addressOf(id), log: this.log,
      });
    } catch (err) {
      return this.#failClaimed(s, err);
    }
    s.request = { ...s.request, witnessFiles: files };
    if (this.#fetching.get(s.id)?.cancelled) {
      await this.intake.spool.release(files);
      await this.fleet.finish({ ...storedInfo(s), state: 'cancelled', finishedAt: Date.now() });
      return;
    }
    try {
      this.live.start(s, knownParts(files, key));
    } catch (err) {
      await this.intake.spool.release(files);
      this.log.warn({ jobId: s.id, err: toCuzkError(err).message }, 'claimed job refused by the engine: given back to the queue');
      await this.fleet.giveBack(s.id);
    }
  }

  async #failClaimed(s: StoredJob, err: unknown): Promise<void> {
    const e = toCuzkError(err);
    const info: JobInfo = { ...storedInfo(s), state: 'failed', finishedAt: Date.now(), error: { code: e.code, message: e.message } };
    this.log.warn({ jobId: s.id, code: e.code, err: e.message }, 'claimed job cannot run here: it ends failed');
    await this.fleet.finish(info);
  }

  /** The fleet's jobs accepted here whose spooled witnesses wait for the job to end (anywhere). */
  watched(): Iterable<string> {
    return this.#acceptedHere.keys();
  }

  /** A job ended in the fleet: the witnesses this daemon spooled for it are no longer anyone's. */
  ended(id: string): void {
    const files = this.#acceptedHere.get(id);
    if (!files) return;
    this.#acceptedHere.delete(id);
    void this.intake.spool.release(files).catch((err: unknown) => this.log.warn({ jobId: id, err: toCuzkError(err).message }, 'removing a finished job\'s spool files failed: they go at the next start'));
  }
}
