// This daemon as one of several sharing a PostgreSQL queue (`--store postgres://…`). Jobs accepted by
// any daemon wait in the queue; this one claims (pg-claims.ts) what fits its free budget, as long as
// it has fewer jobs in hand than its lanes can pipeline, and hands them to its engine (JobService's
// runClaimed). It claims when woken by NOTIFY (a job queued or requeued, here or elsewhere), when one
// of its jobs ends, and once a second (what a lost notification missed). Its heartbeat renews its
// leases (lease / 3) and rewrites its row in `daemons` (GetStatus's fleet); a cancel asked of any daemon
// reaches the owner by NOTIFY (or, if that was missed, by the next heartbeat). Results are fenced: a
// late one is discarded and counted (cuzk_fleet_late_results_total).
// On a database without LISTEN/NOTIFY (store.notify, pg-notify.ts) nothing calls pg_notify: what
// would be a notice is delivered to this daemon only, idle daemons find jobs by the 1 s claim timer,
// and once a second one store read of the jobs it runs or spooled witnesses for brings cancels and
// job ends from other daemons (Await and WatchJob on other daemons already read the store each second).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type pg from 'pg';
import { TERMINAL_STATES, type JobInfo, type ProvingEngine } from '../../engine/api.js';
import type { Logger } from '../../log.js';
import type { StoredJob } from '../journal/job-store.js';
import { KeyHashes } from './key-hash.js';
import { LeaseReaper } from './lease-reaper.js';
import { CHANNELS, PgClaims, type FreeBudget } from './pg-claims.js';
import { PgFleet, QueueListener, type FleetMember as Member } from './pg-fleet.js';
import { decideNotices, probeNotices, type NotifyMode } from './pg-notify.js';
import { errorMessage } from '../../errors.js';

/** What the fleet asks of the daemon's JobService. */
export interface ClaimRunner {
  /** Hands a claimed job to the engine; throws when the engine refuses it. */
  runClaimed(job: StoredJob): Promise<void>;
  /** Cancels a job running here (a cancel asked of another daemon), or drops a duplicate run (`superseded`). */
  cancelHere(id: string, superseded: boolean): void;
  /** A job ended somewhere in the fleet (what this daemon spooled for it can go). */
  ended(id: string): void;
  /** Jobs accepted here whose end this daemon must hear of (their spooled witnesses). */
  watched(): Iterable<string>;
}

const TERMINAL = new Set<string>(TERMINAL_STATES);

interface Held {
  attempt: number;
  need: { host: number; pinned: number; gpu: number };
}

export class FleetMember {
  readonly id = `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  readonly claims: PgClaims;
  readonly fleet: PgFleet;
  /** The content hashes of this daemon's key files (a job names its key's). */
  readonly keyHashes = new KeyHashes();
  readonly #held = new Map<string, Held>();
  readonly #waiters = new Map<string, Set<() => void>>();
  readonly #listener: QueueListener;
  readonly #reaper: LeaseReaper;
  #runner: ClaimRunner | undefined;
  #address = '';
  #timers: NodeJS.Timeout[] = [];
  #claiming = false;
  #again = false;
  #stopped = false;
  /** LISTEN/NOTIFY in use (decided at start from store.notify). */
  #notices = true;
  #polling = false;
  /** Held jobs a cancel (or a drop) was applied to: applied once, whichever path brought it. */
  readonly #cancelApplied = new Set<string>();
  readonly stats = { claims: 0, resident: 0, lateResults: 0, claimMs: [] as number[] };

  constructor(
    pool: pg.Pool,
    private readonly url: string,
    private readonly engine: ProvingEngine,
    private readonly leaseMs: number,
    private readonly log: Logger,
    /** The fleet's credential (the store's fleet_secret): sent and required on witness fetches. */
    readonly secret: string,
    private readonly notify: NotifyMode = 'auto',
  ) {
    this.claims = new PgClaims(pool);
    this.fleet = new PgFleet(pool);
    this.#listener = new QueueListener(url, (ch, payload) => this.#notified(ch, payload), log);
    this.#reaper = new LeaseReaper(this.claims, this.fleet, { leaseMs, log, publish: (ch, payload) => this.#publish(ch, payload) });
  }

  async start(address: string, runner: ClaimRunner): Promise<void> {
    this.#address = address;
    this.#runner = runner;
    const d = await decideNotices(this.notify, () => probeNotices(this.url));
    this.#notices = d.notices;
    if (d.notices) await this.#listener.start();
    else {
      const cost = 'queue notices off: idle daemons find new jobs by their 1 s claim timer, and cancels and job ends reach other daemons by a store read once a second (up to 1 s later than by LISTEN/NOTIFY)';
      if (this.notify === 'off') this.log.info({ why: d.why }, cost);
      else this.log.warn({ why: d.why }, `the database does not deliver LISTEN/NOTIFY: ${cost}`);
    }
    await this.#beat();
    this.#reaper.start();
    this.#timers = [
      setInterval(() => void this.#beat(), Math.max(200, this.leaseMs / 3)),
      setInterval(() => this.wake(), 1000),
    ];
    if (!d.notices) this.#timers.push(setInterval(() => void this.#poll(), 1000));
    for (const t of this.#timers) t.unref();
    this.log.info({ daemonId: this.id, leaseMs: this.leaseMs, notices: d.notices ? 'listen/notify' : 'polling' }, 'joined the fleet: claiming jobs from the shared queue');
    this.wake();
  }

  /** Tells every daemon a job is queued. */
  async announce(): Promise<void> {
    await this.#publish(CHANNELS.jobs);
  }

  /** A notice to every daemon by NOTIFY; without notices to this one only (the others poll). */
  async #publish(channel: string, payload = ''): Promise<void> {
    if (this.#notices) await this.claims.notify(channel, payload);
    else this.#notified(channel, payload);
  }

  /** Without notices: the jobs this daemon runs or spooled witnesses for, read once a second; a job
   * ended elsewhere (or gone) is a done notice, a cancel asked of another daemon a cancel notice. */
  async #poll(): Promise<void> {
    const ids = [...new Set([...this.#held.keys(), ...(this.#runner?.watched() ?? [])])];
    if (this.#polling || this.#stopped || ids.length === 0) return;
    this.#polling = true;
    try {
      const rows = new Map((await this.claims.states(ids)).map((r) => [r.id, r]));
      for (const id of ids) {
        const r = rows.get(id);
        if (!r || TERMINAL.has(r.state)) this.#notified(CHANNELS.done, id);
        else if (r.cancelRequested && r.owner === this.id) this.#notified(CHANNELS.cancel, id);
      }
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'reading the state of this daemon\'s jobs failed: retried in 1 s');
    } finally {
      this.#polling = false;
    }
  }

  /** Applies a cancel (or a drop of a duplicate run) to a job held here, once. */
  #cancelHere(id: string, superseded: boolean): void {
    if (!this.#held.has(id) || this.#cancelApplied.has(id)) return;
    try {
      this.#runner?.cancelHere(id, superseded);
      this.#cancelApplied.add(id);
    } catch (err) {
      // claimed but not yet in the engine: the next heartbeat (or poll) applies it
      this.log.debug({ jobId: id, err: errorMessage(err) }, 'cancel not applied yet');
    }
  }

  /** Claims until nothing fits or its hands are full; a call during a pass runs one more pass. */
  wake(): void {
    if (this.#stopped || !this.#runner) return;
    if (this.#claiming) {
      this.#again = true;
      return;
    }
    this.#claiming = true;
    void this.#claimPass().finally(() => (this.#claiming = false));
  }

  async #claimPass(): Promise<void> {
    try {
      do {
        this.#again = false;
        while (!this.#stopped && this.#takesWork() && this.#held.size < this.#maxInHand()) {
          const t0 = performance.now();
          const keys = this.engine.listKeys().flatMap((k) => [k.id, k.path]);
          const c = await this.claims.claim(this.id, this.#free(), keys, this.leaseMs);
          this.#sample(performance.now() - t0);
          if (!c) break;
          this.stats.claims++;
          if (c.resident) this.stats.resident++;
          this.#held.set(c.job.id, { attempt: c.attempt, need: c.need });
          this.log.info({ jobId: c.job.id, attempt: c.attempt, resident: c.resident, daemonId: this.id }, 'job claimed');
          try {
            await this.#runner!.runClaimed(c.job);
          } catch (err) {
            this.#held.delete(c.job.id);
            await this.claims.release(this.id, [c.job.id]);
            this.log.warn({ jobId: c.job.id, err: errorMessage(err) }, 'claimed job refused by the engine: given back to the queue');
            break;
          }
        }
      } while (this.#again && !this.#stopped);
    } catch (err) {
      this.log.error({ err: errorMessage(err) }, 'claiming failed: retried within a second');
    }
  }

  /** Not paused, and a device lane is healthy: a daemon whose devices are all lost claims nothing
   * (the engine would refuse it with E_NO_DEVICE), and the other daemons take the queue. */
  #takesWork(): boolean {
    const s = this.engine.status();
    return !s.paused && s.devices.some((d) => d.healthy);
  }

  /** Jobs in hand: each healthy lane's slots plus the one whose phase 1 overlaps them. */
  #maxInHand(): number {
    const gpus = this.engine.status().devices.filter((d) => d.id.startsWith('gpu:') && d.healthy).length;
    return gpus > 0 ? gpus * 3 : 2;
  }

  /** The budget's room less what claimed jobs not yet started will reserve. */
  #free(): FreeBudget {
    const b = this.engine.status().budget;
    const pending = { host: 0, pinned: 0, gpu: 0 };
    for (const [id, h] of this.#held) {
      const state = this.engine.get(id)?.state;
      if (state !== undefined && state !== 'queued') continue; // running: its reservations are in `used`
      pending.host += h.need.host;
      pending.pinned += h.need.pinned;
      pending.gpu += h.need.gpu;
    }
    const gpu = b.gpu.length === 0 ? Infinity : Math.max(...b.gpu.map((g) => g.limit - g.used)) - pending.gpu;
    return { host: b.host.limit - b.host.used - pending.host, pinned: b.pinned.limit - b.pinned.used - pending.pinned, gpu };
  }

  #sample(ms: number): void {
    const s = this.stats.claimMs;
    s.push(ms);
    if (s.length > 4096) s.splice(0, s.length - 4096);
  }

  /** Records a terminal job of this daemon's if it still counts; false: a late result, discarded. */
  async finish(info: JobInfo): Promise<boolean> {
    const held = this.#held.get(info.id);
    this.#held.delete(info.id);
    this.#cancelApplied.delete(info.id);
    const ok = await this.claims.finish(info, { owner: this.id, attempt: held?.attempt ?? -1 });
    if (ok) await this.#publish(CHANNELS.done, info.id);
    else {
      this.stats.lateResults++;
      this.log.warn({ jobId: info.id, state: info.state, attempt: held?.attempt }, 'late result discarded: the job already ended, or another daemon holds it now');
    }
    this.wake();
    return ok;
  }

  /** Cancels a job that is not running here: at once if queued, else by NOTIFY (or its poll) to its owner. */
  async cancel(info: JobInfo): Promise<'cancelled' | 'requested' | 'none'> {
    if (await this.claims.cancelQueued(info)) {
      await this.#publish(CHANNELS.done, info.id);
      return 'cancelled';
    }
    const owner = await this.claims.requestCancel(info.id);
    if (owner === undefined) return 'none';
    await this.#publish(CHANNELS.cancel, info.id);
    this.log.info({ jobId: info.id, owner }, 'cancel sent to the daemon running the job');
    return 'requested';
  }

  /** Resolves when `id` ends anywhere in the fleet (NOTIFY), or after `ms`. */
  waitDone(id: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.#waiters.get(id) ?? new Set();
      this.#waiters.set(id, set);
      const done = () => {
        clearTimeout(t);
        set.delete(done);
        if (set.size === 0) this.#waiters.delete(id);
        resolve();
      };
      const t = setTimeout(done, ms);
      set.add(done);
    });
  }

  #notified(channel: string, payload: string): void {
    if (channel === CHANNELS.jobs) this.wake();
    else if (channel === CHANNELS.cancel) this.#cancelHere(payload, false);
    else if (channel === CHANNELS.done) {
      for (const w of [...(this.#waiters.get(payload) ?? [])]) w();
      this.#runner?.ended(payload);
      // our run of a job that another daemon finished first (its lease had expired here): drop it
      const here = this.engine.get(payload);
      if (here && !TERMINAL.has(here.state)) this.#cancelHere(payload, true);
    }
  }

  async #beat(): Promise<void> {
    try {
      const { cancelRequested } = await this.claims.renew(this.id, this.leaseMs);
      for (const id of cancelRequested) this.#cancelHere(id, false);
      const s = this.engine.status();
      await this.fleet.beat(this.id, {
        address: this.#address, backend: s.backend, running: [...this.#held.keys()],
        devices: s.devices.map((d) => ({ id: d.id, name: d.name, memoryTotal: d.memoryTotal, memoryFree: d.memoryFree })),
        keys: s.keys.map((k) => k.id), budget: s.budget,
      });
    } catch (err) {
      this.log.error({ err: errorMessage(err) }, 'heartbeat failed: leases run out unless the next one succeeds');
    }
  }

  /** Gives a claimed job back to the queue (it could not be started here). */
  async giveBack(id: string): Promise<void> {
    this.#held.delete(id);
    this.#cancelApplied.delete(id);
    await this.claims.release(this.id, [id]);
    await this.announce();
  }

  addressOf(id: string): Promise<string | undefined> {
    return this.fleet.address(id);
  }

  members(): Promise<Member[]> {
    return this.fleet.members();
  }

  /** Claims no more (the daemon is stopping); jobs in hand still finish. */
  stopClaiming(): void {
    this.#stopped = true;
  }

  /** Gives the jobs that did not finish back to the queue and leaves the fleet. */
  async stop(unfinished: readonly string[]): Promise<void> {
    this.#stopped = true;
    for (const t of this.#timers) clearInterval(t);
    this.#reaper.stop();
    if (this.#notices) await this.#listener.close();
    try {
      const n = await this.claims.release(this.id, unfinished);
      if (n > 0) this.log.info({ requeued: n }, 'unfinished jobs given back to the shared queue');
      if (n > 0) await this.announce();
      await this.fleet.leave(this.id);
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'leaving the fleet failed: its leases run out and other daemons requeue its jobs');
    }
  }
}

const quantile = (sorted: number[], q: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);

/** The fleet's Prometheus lines (appended to /metrics beside the journal's). */
export function fleetMetrics(m: FleetMember): string[] {
  const ms = [...m.stats.claimMs].sort((a, b) => a - b);
  return [
    '# HELP cuzk_fleet_claims_total Jobs this daemon claimed from the shared queue, by whether it held their key.',
    '# TYPE cuzk_fleet_claims_total counter',
    `cuzk_fleet_claims_total{resident="true"} ${m.stats.resident}`,
    `cuzk_fleet_claims_total{resident="false"} ${m.stats.claims - m.stats.resident}`,
    '# HELP cuzk_fleet_late_results_total Results discarded because the job had ended, or another daemon held it.',
    '# TYPE cuzk_fleet_late_results_total counter',
    `cuzk_fleet_late_results_total ${m.stats.lateResults}`,
    '# HELP cuzk_fleet_claim_seconds Claim statement latency over the last 4096 claims.',
    '# TYPE cuzk_fleet_claim_seconds summary',
    `cuzk_fleet_claim_seconds{quantile="0.5"} ${quantile(ms, 0.5) / 1000}`,
    `cuzk_fleet_claim_seconds{quantile="0.99"} ${quantile(ms, 0.99) / 1000}`,
    `cuzk_fleet_claim_seconds_count ${ms.length}`,
  ];
}
