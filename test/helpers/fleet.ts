// Several `cuzk serve` children on one PostgreSQL database (a fleet sharing one queue), and reads of
// the queue's tables for the tests' assertions.
import pg from 'pg';
import { CuzkClient } from '../../src/client/index.js';
import { makeDataDir, removeDataDir, startDaemon, type DaemonProcess } from './daemon.js';

export interface FleetDaemon {
  d: DaemonProcess;
  client: CuzkClient;
  /** Its id in the `daemons` table (from its "joined the fleet" log line). */
  id: string;
}

/** Starts `n` daemons on `url`, each with its own data dir and `args`; `env[i]` for the i-th. */
export async function startFleet(url: string, n: number, args: string[], env: NodeJS.ProcessEnv[] = []): Promise<FleetDaemon[]> {
  const out: FleetDaemon[] = [];
  for (let i = 0; i < n; i++) {
    const d = await startDaemon({ dataDir: makeDataDir(), args: ['--store', url, ...args], env: env[i] });
    const id = /"daemonId":"([^"]+)"[^\n]*"msg":"joined the fleet/.exec(d.logs())?.[1];
    if (!id) throw new Error(`daemon ${i} did not join the fleet:\n${d.logs()}`);
    out.push({ d, client: new CuzkClient({ address: d.address }), id });
  }
  return out;
}

export async function stopFleet(fleet: FleetDaemon[]): Promise<void> {
  for (const f of fleet) {
    await f.d.stop('SIGKILL');
    removeDataDir(f.d.dataDir);
  }
}

/** One query on its own connection. */
export async function queryOnce<R extends pg.QueryResultRow>(url: string, sql: string, values?: unknown[]): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(sql, values)).rows;
  } finally {
    await c.end();
  }
}

/** Epoch ms of each log line of `logs` whose message is `msg`, by its jobId. */
export function logTimes(logs: string, msg: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of logs.split('\n')) {
    if (!line.includes(`"msg":"${msg}"`)) continue;
    const o = JSON.parse(line) as { time: string; jobId?: string };
    if (o.jobId && !out.has(o.jobId)) out.set(o.jobId, Date.parse(o.time));
  }
  return out;
}
