// The daemons sharing one PostgreSQL queue, as rows of the `daemons` table (each daemon's heartbeat
// rewrites its own: address, devices, keys, budget, running jobs), and the one LISTEN connection a
// daemon keeps for the queue's NOTIFY channels (pg-claims.ts CHANNELS). The listener reconnects by
// itself (1 s apart); what it missed meanwhile the daemon's once-a-second claim pass and heartbeat
// catch up on, so a lost notification delays work by at most that, never loses it.
import pg from 'pg';
import { errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import { CHANNELS, NOW_MS } from './pg-claims.js';

/** What a daemon says of itself at each heartbeat (GetStatus shows it for every daemon). */
export interface DaemonReport {
  address: string;
  backend: string;
  devices: { id: string; name: string; memoryTotal: number; memoryFree: number }[];
  keys: string[];
  budget: { host: { limit: number; used: number }; pinned: { limit: number; used: number }; gpu: { id: string; limit: number; used: number }[] };
  running: string[];
}

export interface FleetMember extends DaemonReport {
  id: string;
  startedAt: number;
  heartbeatAt: number;
  /** Milliseconds since its last heartbeat, by the database's clock. */
  heartbeatAgeMs: number;
}

export class PgFleet {
  constructor(private readonly pool: pg.Pool) {}

  async beat(id: string, report: DaemonReport): Promise<void> {
    await this.pool.query(
      `INSERT INTO daemons (id, address, started_at, heartbeat_at, status) VALUES ($1, $2, ${NOW_MS}, ${NOW_MS}, $3)
       ON CONFLICT (id) DO UPDATE SET address = $2, heartbeat_at = ${NOW_MS}, status = $3`,
      [id, report.address, JSON.stringify(report)],
    );
  }

  async leave(id: string): Promise<void> {
    await this.pool.query('DELETE FROM daemons WHERE id = $1', [id]);
  }

  /** Forgets daemons silent for longer than `silentMs` (dead; their jobs were requeued long ago). */
  async forget(silentMs: number): Promise<number> {
    return (await this.pool.query(`DELETE FROM daemons WHERE heartbeat_at < ${NOW_MS} - $1`, [silentMs])).rowCount ?? 0;
  }

  /** The address daemon `id` last advertised; undefined when it is not in the table. */
  async address(id: string): Promise<string | undefined> {
    return (await this.pool.query<{ address: string }>('SELECT address FROM daemons WHERE id = $1', [id])).rows[0]?.address;
  }

  async members(): Promise<FleetMember[]> {
    const r = await this.pool.query<{ id: string; started_at: string; heartbeat_at: string; age: string; status: string }>(
      `SELECT id, started_at, heartbeat_at, ${NOW_MS} - heartbeat_at AS age, status FROM daemons ORDER BY started_at, id`,
    );
    return r.rows.map((x) => ({ ...(JSON.parse(x.status) as DaemonReport), id: x.id, startedAt: Number(x.started_at), heartbeatAt: Number(x.heartbeat_at), heartbeatAgeMs: Number(x.age) }));
  }
}

/** LISTENs on every channel of CHANNELS; `onNotify` gets (channel, payload). */
export class QueueListener {
  #client: pg.Client | undefined;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly onNotify: (channel: string, payload: string) => void,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const c = new pg.Client({ connectionString: this.url, application_name: 'cuzk serve listen' });
    const lost = (err?: unknown) => {
      if (this.#client !== c) return;
      this.#client = undefined;
      c.removeAllListeners('notification');
      c.end().catch(() => undefined);
      if (this.#closed) return;
      this.log.warn({ err: err === undefined ? undefined : errorMessage(err) }, 'queue listener lost its connection: reconnecting in 1 s (work is still claimed once a second)');
      this.#schedule();
    };
    c.on('error', lost);
    c.on('end', () => lost());
    c.on('notification', (n) => this.onNotify(n.channel, n.payload ?? ''));
    this.#client = c;
    try {
      await c.connect();
      for (const ch of Object.values(CHANNELS)) await c.query(`LISTEN ${ch}`);
    } catch (err) {
      lost(err);
    }
  }

  #schedule(): void {
    this.#retry = setTimeout(() => void this.start(), 1000);
    this.#retry.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const c = this.#client;
    this.#client = undefined;
    await c?.end().catch(() => undefined);
  }
}
