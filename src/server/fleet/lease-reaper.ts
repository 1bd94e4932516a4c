// The reaper every daemon on a shared PostgreSQL queue runs: running jobs whose lease expired (their
// daemon died, or lost the database for longer than the lease) go back to the queue, and the idle
// daemons are told (NOTIFY, or their own timers where the database has none: fleet-member.ts
// publish); a job whose cancel was asked for ends cancelled instead. Several
// reapers at once are harmless: a row is requeued by whichever UPDATE reaches it first.
import type { Logger } from '../../log.js';
import { CHANNELS, type PgClaims } from './pg-claims.js';
import type { PgFleet } from './pg-fleet.js';
import { errorMessage } from '../../errors.js';

export class LeaseReaper {
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(
    private readonly claims: PgClaims,
    private readonly fleet: PgFleet,
    private readonly opts: { leaseMs: number; log: Logger; publish: (channel: string, payload?: string) => Promise<void> },
  ) {}

  /** Reaps every max(1 s, lease / 2): an expired lease waits at most that long to be noticed. */
  start(): void {
    this.#timer = setInterval(() => void this.reap(), Math.max(1000, this.opts.leaseMs / 2));
    this.#timer.unref();
  }

  async reap(): Promise<number> {
    if (this.#running) return 0;
    this.#running = true;
    const { log } = this.opts;
    try {
      const { requeued, cancelled } = await this.claims.reap();
      for (const j of requeued) log.warn({ jobId: j.id, owner: j.owner }, 'lease expired: job requeued');
      for (const id of cancelled) log.info({ jobId: id }, 'lease expired on a job whose cancel was asked for: it ends cancelled');
      if (cancelled.length > 0) await Promise.all(cancelled.map((id) => this.opts.publish(CHANNELS.done, id)));
      if (requeued.length > 0) await this.opts.publish(CHANNELS.jobs);
      // a daemon silent for a hundred leases is gone: its row only clutters GetStatus
      await this.fleet.forget(Math.max(60_000, this.opts.leaseMs * 100));
      return requeued.length;
    } catch (err) {
      log.error({ err: errorMessage(err) }, 'reaping expired leases failed: retried at the next interval');
      return 0;
    } finally {
      this.#running = false;
    }
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
