// Jobs between the network and the engine: a request is validated once (request-check.ts), its
// witnesses stored as files (witness-intake.ts), the job journaled (JobStore) before it is
// acknowledged, handed to the engine with its journal id, and its terminal state journaled when the
// engine reports it (its spool files are then removed). The journal alone owns request-id
// idempotency: the engine never sees request ids. On start, journaled jobs that never finished are
// resubmitted with the same id; while stopping, jobs the engine gives back unfinished stay queued.
// With a fleet (a PostgreSQL queue shared by several daemons, fleet-member.ts) a submitted job is
// only journaled and announced: whichever daemon claims it runs it (runClaimed), its result is
// recorded fenced, and Await, WatchJob, GetJob and Cancel answer for jobs running on other daemons
// from the store, woken by the fleet's NOTIFY (or its poll). Witnesses spooled by the accepting daemon are fetched
// from it by the claimer (witness-fetch.ts) and removed at the acceptor when the job ends anywhere.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { CuzkError, InputError, ResourceError } from '../../errors.js';
import { TERMINAL_STATES, type JobEvent, type JobInfo, type JobRequest, type ProvingEngine } from '../../engine/api.js';
import type { Logger } from '../../log.js';
import type { FleetMember } from '../fleet/fleet-member.js';
import { jobNeed } from '../fleet/job-need.js';
import type { ServeConfig } from '../startup/config.js';
import type { JobStore, StoredJob } from '../journal/job-store.js';
import { checkJobRequest, confineJobPaths, confineKey, confineWasm, type JobSubmission, type ValidJob } from '../intake/request-check.js';
import type { SpooledWitness } from '../intake/spool.js';
import { fetchWitnesses, spooledElsewhere } from '../fleet/witness-fetch.js';
import { jobFingerprint, type WitnessIntake } from '../intake/witness-intake.js';

const terminal = (s: string) => (TERMINAL_STATES as readonly string[]).includes(s);

/** A journaled job the engine has not seen (yet), as a JobInfo. */
function storedInfo(s: StoredJob): JobInfo {
  if (s.result) return s.result;
  return { id: s.id, requestId: s.requestId, key: s.key, priority: s.priority, state: s.state, partitions: s.partitions, submittedAt: s.submittedAt, timings: {} };
}

export class JobService {
  #accepting = true;
  readonly #userCancelled = new Set<string>();
  /** Runs of jobs another daemon finished first: ended here without a result. */
  readonly #superseded = new Set<string>();
  #fleet: FleetMember | undefined;
  /** Journaled jobs waiting for room in the engine's queue (after a restart with a long journal). */
  readonly #backlog: StoredJob[] = [];
  /** What the journal knows and the engine does not: the submission time as journaled (the engine
   * stamps its own a little later, or at the replay), the request id, the spool files. */
  readonly #meta = new Map<string, { submittedAt: number; requestId?: string; files?: SpooledWitness[] }>();
  readonly #pending = new Set<Promise<void>>();
  /** Claimed jobs whose witnesses are being fetched from the daemon that spooled them. */
  readonly #fetching = new Map<string, { cancelled: boolean }>();
  /** Spool files of jobs this daemon accepted into the shared queue, until they end anywhere. */
  readonly #acceptedHere = new Map<string, SpooledWitness[]>();
  #onDrained!: () => void;
  readonly #drained = new Promise<void>((r) => (this.#onDrained = r));

  constructor(
    private readonly engine: ProvingEngine,
    private readonly store: JobStore,
    private readonly intake: WitnessIntake,
    private readonly cfg: ServeConfig,
    private readonly log: Logger,
  ) {}

  /** Joins a shared queue: jobs are claimed from it (fleet-member.ts), not run where they were accepted. */
  useFleet(fleet: FleetMember): void {
    this.#fleet = fleet;
  }

  get fleet(): FleetMember | undefined {
    return this.#fleet;
  }

  get accepting(): boolean {
    return this.#accepting;
  }

  async submit(req: JobSubmission): Promise<{ job: JobInfo; deduplicated: boolean }> {
    if (!this.#accepting) throw new ResourceError('E_OVERLOADED', 'the daemon is shutting down: not accepting jobs', { retryable: true, details: { draining: true } });
    const v = await this.#confine(checkJobRequest(req, this.cfg));
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
      if (this.#fleet) {
        stored.need = jobNeed(key);
        stored.keyHash = await this.#fleet.keyHashes.of(this.#keyFile(v.key));
        stored.acceptedBy = this.#fleet.id;
      }
      const ins = await this.store.insert(stored);
      if (!ins.inserted) return await this.#dedup(ins.existing, fingerprint);
      if (this.#fleet) {
        kept = true; // its files stay for whichever daemon claims it (served to it: witness-serve.ts)
        if (files?.some((f) => f.owned)) this.#acceptedHere.set(stored.id, files);
        await this.#fleet.announce();
        this.log.info({ jobId: stored.id, requestId: v.requestId, key: v.key, priority: stored.priority, partitions: stored.partitions }, 'job accepted into the shared queue');
        return { job: storedInfo(stored), deduplicated: false };
      }
      let job: JobInfo;
      try {
        job = this.engine.submit(this.#engineRequest(stored));
      } catch (err) {
        await this.store.remove(stored.id).catch((e: Error) => this.log.error({ jobId: stored.id, err: e.message }, 'a refused job stays in the journal: it runs after a restart'));
        throw err;
      }
      kept = true;
      this.#meta.set(stored.id, { submittedAt: stored.submittedAt, requestId: v.requestId, files });
      this.#track(stored.id);
      this.log.info({ jobId: stored.id, requestId: v.requestId, key: v.key, priority: job.priority, partitions: job.partitions, bytes: files?.reduce((n, f) => n + f.size, 0) }, 'job accepted');
      return { job: this.#withMeta(job), deduplicated: false };
    } finally {
      if (!kept) await this.intake.spool.release(files);
    }
  }

  /** The engine's request for a journaled job: no request id (the journal owns those), a deadline
   * that counts from the journaled submission time. */
  #engineRequest(s: StoredJob): JobRequest {
    const r = s.request ?? {};
    const req: JobRequest = { id: s.id, key: s.key, priority: s.priority };
    if (r.witnessFiles) req.witnessFiles = r.witnessFiles.map((f) => f.path);
    else if (r.witnesses) req.witnesses = r.witnesses; // journaled before the spool existed
    else {
      req.inputs = r.inputs;
      req.wasm = r.wasm;
    }
    if (s.deadlineMs) req.deadlineMs = Math.max(1, s.submittedAt + s.deadlineMs - Date.now());
    return req;
  }

  readonly #isKeyId = (key: string) => this.engine.listKeys().some((k) => k.id === key);

  /** The file of a confined key name: a loaded key's (by id or path), else the path itself. */
  #keyFile(key: string): string {
    return this.engine.listKeys().find((k) => k.id === key || k.path === key)?.path ?? key;
  }

  /** Refuses a claimed job whose key file here is not the one it was accepted with (by sha256). */
  async #checkKeyHash(s: StoredJob): Promise<void> {
    if (!s.keyHash) return;
    const file = this.#keyFile(s.key);
    const mine = await this.#fleet!.keyHashes.of(file);
    if (mine !== s.keyHash) {
      throw new InputError('E_INVALID_ARG', `key ${s.key}: this daemon's copy (${file}, sha256 ${mine.slice(0, 12)}…) is not the key the job was submitted with (sha256 ${s.keyHash.slice(0, 12)}…): install the same key file on every daemon of the fleet`);
    }
  }

  #confine(job: ValidJob): Promise<ValidJob> {
    return confineJobPaths(job, this.cfg, this.#isKeyId);
  }

  /** A journaled job's key and wasm, confined again (their real paths replace them). */
  async #confineStored(s: StoredJob): Promise<void> {
    s.key = await confineKey(s.key, this.cfg, this.#isKeyId);
    if (s.request?.wasm) s.request.wasm = await confineWasm(s.request.wasm, this.cfg);
  }

  async #dedup(prior: StoredJob, fingerprint: string): Promise<{ job: JobInfo; deduplicated: boolean }> {
    if (prior.fingerprint !== fingerprint) throw new InputError('E_INVALID_ARG', `request_id ${prior.requestId} was already used for job ${prior.id} with other content`);
    return { job: await this.get(prior.id), deduplicated: true };
  }

  #track(id: string): void {
    const p = this.engine.await(id).then((info) => this.#record(info)).catch((err) => this.log.error({ jobId: id, err }, 'journaling the result failed'));
    this.#pending.add(p);
    void p.finally(() => this.#pending.delete(p));
  }

  async #record(info: JobInfo): Promise<void> {
    if (!this.#accepting && info.state === 'cancelled' && !this.#userCancelled.has(info.id)) {
      this.log.info({ jobId: info.id }, 'job stopped by shutdown: stays queued in the journal');
      return;
    }
    this.#userCancelled.delete(info.id);
    try {
      if (!this.#fleet) await this.store.finish(this.#withMeta(info));
      else {
        const superseded = this.#superseded.delete(info.id);
        if (!(await this.#fleet.finish(this.#withMeta(info))) || superseded) return; // the job's result is another run's
      }
    } catch (err) {
      this.log.error({ jobId: info.id, state: info.state, err: (err as Error).message }, 'journaling the result failed: the job runs again after a restart');
      return; // its spool files stay for that run
    }
    await this.intake.spool.release(this.#meta.get(info.id)?.files);
    const fields = { jobId: info.id, state: info.state, ms: (info.finishedAt ?? 0) - (info.startedAt ?? info.submittedAt), device: info.device, error: info.error };
    if (info.state === 'failed') this.log.warn(fields, 'job failed');
    else this.log.info(fields, `job ${info.state}`);
    this.#pumpBacklog();
  }

  async get(id: string): Promise<JobInfo> {
    const live = this.engine.get(id);
    if (live) return this.#withMeta(live);
    const s = await this.store.get(id);
    if (!s) throw new InputError('E_NOT_FOUND', `no job ${id} (unknown, or its result is older than the retention period)`);
    return storedInfo(s);
  }

  #withMeta(info: JobInfo): JobInfo {
    const m = this.#meta.get(info.id);
    if (!m) return info;
    const out = { ...info, submittedAt: m.submittedAt };
    if (m.requestId !== undefined) out.requestId = m.requestId;
    return out;
  }

  /** Terminal, or current after the timeout, or current once the daemon has drained (so callers get an answer before it exits). */
  async await(id: string, timeoutMs: number | undefined): Promise<JobInfo> {
    const wait = Math.min(timeoutMs ?? this.cfg.maxAwaitMs, this.cfg.maxAwaitMs);
    if (!this.engine.get(id)) return this.#fleet ? this.#awaitInFleet(id, wait) : this.get(id);
    const info = await Promise.race([this.engine.await(id, wait), this.#drained.then(() => this.get(id))]);
    return this.#withMeta(info);
  }

  /** A job of the shared queue not running here: read again whenever a job ends (NOTIFY), at least once a second. */
  async #awaitInFleet(id: string, wait: number): Promise<JobInfo> {
    const until = Date.now() + wait;
    for (;;) {
      const live = this.engine.get(id); // claimed here meanwhile
      const info = live ? this.#withMeta(live) : await this.get(id);
      const left = until - Date.now();
      if (terminal(info.state) || left <= 0 || !this.#accepting) return info;
      if (live) return this.#withMeta(await this.engine.await(id, left));
      await Promise.race([this.#fleet!.waitDone(id, Math.min(left, 1000)), this.#drained]);
    }
  }

  /** A cancel from the fleet: the owner of a job asked to cancel elsewhere, or a duplicate run to drop. */
  cancelHere(id: string, superseded: boolean): void {
    const fetching = this.#fetching.get(id);
    if (fetching) {
      fetching.cancelled = true; // it ends cancelled once its witnesses are here
      return;
    }
    if (superseded) this.#superseded.add(id);
    else this.#userCancelled.add(id);
    const info = this.engine.cancel(id);
    this.log.info({ jobId: id, state: info.state, superseded }, superseded ? 'duplicate run dropped: another daemon finished the job first' : 'cancel from another daemon applied');
  }

  /** A job this daemon claimed from the shared queue, handed to its engine; witnesses another daemon
   * spooled are fetched from it first (witness-fetch.ts), without holding up further claims. */
  async runClaimed(s: StoredJob): Promise<void> {
    try {
      await this.#confineStored(s);
      await this.#checkKeyHash(s);
    } catch (err) {
      return this.#failClaimed(s, err);
    }
    const fleet = this.#fleet!;
    if (s.acceptedBy && s.acceptedBy !== fleet.id && s.request?.witnessFiles?.some((f) => spooledElsewhere(f, this.intake.spool.dir))) {
      this.#fetching.set(s.id, { cancelled: false });
      const p = this.#fetchThenRun(s).finally(() => this.#fetching.delete(s.id));
      this.#pending.add(p);
      void p.finally(() => this.#pending.delete(p));
      return;
    }
    this.#startClaimed(s);
  }

  #startClaimed(s: StoredJob): void {
    this.engine.submit(this.#engineRequest(s));
    this.#meta.set(s.id, { submittedAt: s.submittedAt, requestId: s.requestId, files: s.request?.witnessFiles });
    this.#track(s.id);
  }

  async #fetchThenRun(s: StoredJob): Promise<void> {
    const fleet = this.#fleet!;
    let files;
    try {
      files = await fetchWitnesses(s, {
        spool: this.intake.spool, key: await this.intake.keyShape(s.key), token: this.cfg.token, tls: this.cfg.tlsCert !== '',
        waitMs: this.cfg.witnessWaitMs, addressOf: (id) => fleet.addressOf(id), log: this.log,
      });
    } catch (err) {
      return this.#failClaimed(s, err);
    }
    s.request = { ...s.request, witnessFiles: files };
    if (this.#fetching.get(s.id)?.cancelled) {
      await this.intake.spool.release(files);
      await fleet.finish({ ...storedInfo(s), state: 'cancelled', finishedAt: Date.now() });
      return;
    }
    try {
      this.#startClaimed(s);
    } catch (err) {
      await this.intake.spool.release(files);
      this.log.warn({ jobId: s.id, err: (err as Error).message }, 'claimed job refused by the engine: given back to the queue');
      await fleet.giveBack(s.id);
    }
  }

  async #failClaimed(s: StoredJob, err: unknown): Promise<void> {
    const e = err instanceof CuzkError ? err : new CuzkError('E_INTERNAL', String(err));
    const info: JobInfo = { ...storedInfo(s), state: 'failed', finishedAt: Date.now(), error: { code: e.code, message: e.message } };
    this.log.warn({ jobId: s.id, code: e.code, err: e.message }, 'claimed job cannot run here: it ends failed');
    await this.#fleet!.finish(info);
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
    void this.intake.spool.release(files).catch((err: Error) => this.log.warn({ jobId: id, err: err.message }, 'removing a finished job\'s spool files failed: they go at the next start'));
  }

  async cancel(id: string): Promise<JobInfo> {
    const live = this.engine.get(id);
    if (live) {
      if (!terminal(live.state)) this.#userCancelled.add(id);
      const info = this.engine.cancel(id);
      this.log.info({ jobId: id, state: info.state }, 'cancel requested');
      return this.#withMeta(info);
    }
    const s = await this.store.get(id);
    if (!s) throw new InputError('E_NOT_FOUND', `no job ${id}`);
    if (s.result) return s.result;
    const i = this.#backlog.findIndex((b) => b.id === id);
    if (i >= 0) this.#backlog.splice(i, 1);
    const info: JobInfo = { ...storedInfo(s), state: 'cancelled', finishedAt: Date.now() };
    if (this.#fleet) {
      const how = await this.#fleet.cancel(info);
      if (how === 'requested') return { ...storedInfo(s), state: 'running' }; // the owner stops it at its next phase boundary
      if (how === 'none') return this.get(id); // it ended meanwhile
    } else await this.store.finish(info);
    await this.intake.spool.release(s.request?.witnessFiles);
    return info;
  }

  /** A job's events until it is terminal; a job only in the journal gives its state once. */
  async *watch(id: string, signal: AbortSignal): AsyncGenerator<JobEvent> {
    if (!this.engine.get(id)) {
      let info = await this.get(id);
      yield { type: 'state', jobId: id, at: info.finishedAt ?? info.submittedAt, state: info.state, error: info.error };
      // on another daemon of the fleet: its state changes as the store sees them, until it ends
      while (this.#fleet && !terminal(info.state) && !signal.aborted && this.#accepting) {
        const next = await this.#awaitInFleet(id, 1000);
        if (next.state !== info.state) yield { type: 'state', jobId: id, at: next.finishedAt ?? Date.now(), state: next.state, error: next.error };
        info = next;
      }
      return;
    }
    const queue: JobEvent[] = [];
    let wake: (() => void) | undefined;
    const unsubscribe = this.engine.subscribe(id, (e) => {
      queue.push(e);
      wake?.();
    });
    const onAbort = () => wake?.();
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted) {
        const e = queue.shift();
        if (!e) {
          await new Promise<void>((r) => (wake = r));
          wake = undefined;
          continue;
        }
        yield e;
        if (e.type === 'state' && terminal(e.state)) return;
      }
    } finally {
      unsubscribe();
      signal.removeEventListener('abort', onAbort);
    }
  }

  /** Resubmits journaled unfinished jobs (`unfinished`, read before the spool was swept) under their
   * ids; expired ones end expired, and one whose witness file is gone ends failed, said in the log. */
  async recover(unfinished: StoredJob[]): Promise<{ resubmitted: number; expired: number; lost: number; waiting: number }> {
    let expired = 0, lost = 0;
    const now = Date.now();
    for (const s of unfinished) {
      const files = s.request?.witnessFiles ?? [];
      const missing = files.find((f) => !existsSync(f.path));
      if (s.deadlineMs && s.submittedAt + s.deadlineMs <= now) {
        await this.store.finish({ ...storedInfo(s), state: 'expired', finishedAt: now, error: { code: 'E_TIMEOUT', message: `deadline of ${s.deadlineMs} ms passed while the daemon was down` } });
        await this.intake.spool.release(files);
        expired++;
      } else if (missing) {
        const message = `after a restart: witness file ${missing.path} is gone (removed outside the daemon?): submit the job again`;
        this.log.error({ jobId: s.id, path: missing.path }, 'journaled job lost its witness file: it ends failed');
        await this.store.finish({ ...storedInfo(s), state: 'failed', finishedAt: now, error: { code: 'E_NOT_FOUND', message } });
        await this.intake.spool.release(files);
        lost++;
      } else {
        try {
          // the directories may have changed since it was accepted, and the files with them
          await this.#confineStored(s);
        } catch (err) {
          const e = err instanceof CuzkError ? err : new CuzkError('E_INTERNAL', String(err));
          this.log.warn({ jobId: s.id, code: e.code, err: e.message }, 'journaled job could not be resubmitted');
          await this.store.finish({ ...storedInfo(s), state: 'failed', finishedAt: now, error: { code: e.code, message: `after a restart: ${e.message}` } });
          await this.intake.spool.release(files);
          continue;
        }
        this.#backlog.push(s);
      }
    }
    const before = this.#backlog.length;
    this.#pumpBacklog();
    return { resubmitted: before - this.#backlog.length, expired, lost, waiting: this.#backlog.length };
  }

  #pumpBacklog(): void {
    while (this.#accepting && this.#backlog.length > 0) {
      const s = this.#backlog[0]!;
      try {
        this.engine.submit(this.#engineRequest(s));
      } catch (err) {
        if (err instanceof CuzkError && err.code === 'E_OVERLOADED') return; // retried when a job finishes
        this.#backlog.shift();
        const e = err instanceof CuzkError ? err : new CuzkError('E_INTERNAL', String(err));
        this.log.warn({ jobId: s.id, code: e.code, err: e.message }, 'journaled job could not be resubmitted');
        this.store.finish({ ...storedInfo(s), state: 'failed', finishedAt: Date.now(), error: { code: e.code, message: `after a restart: ${e.message}` } })
          .then(() => this.intake.spool.release(s.request?.witnessFiles))
          .catch((fe: Error) => this.log.error({ jobId: s.id, err: fe.message }, 'journaling the failure failed'));
        continue;
      }
      this.#backlog.shift();
      this.#meta.set(s.id, { submittedAt: s.submittedAt, requestId: s.requestId, files: s.request?.witnessFiles });
      this.#track(s.id);
      this.log.info({ jobId: s.id, requestId: s.requestId }, 'journaled job resubmitted');
    }
  }

  /** Forgets what it kept of jobs submitted before `before` (their results are purged too). */
  prune(before: number): void {
    for (const [id, m] of this.#meta) if (m.submittedAt < before) this.#meta.delete(id);
  }

  /** Stops intake; results of jobs still finishing are journaled as they arrive. */
  stopIntake(): void {
    this.#accepting = false;
  }

  /** The engine has drained: pending awaits answer with the jobs' current state. */
  drained(): void {
    this.#onDrained();
  }

  /** Waits until the results the engine has reported are journaled. */
  async settle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }
}
