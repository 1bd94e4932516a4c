// Whether the fleet's database delivers LISTEN/NOTIFY (store.notify: auto | on | off). PostgreSQL
// does; CockroachDB has no LISTEN, YugabyteDB only with a flag, and a pooler in transaction mode
// accepts LISTEN without keeping it. So `auto` proves a round trip instead of trusting that the
// statements succeed: on a connection of its own (it cannot abort a job's transaction), LISTEN on a
// probe channel, pg_notify on it, and the notification must come back within a bound. Without
// notices the fleet polls (fleet-member.ts): idle daemons claim by their 1 s timer, and cancels and
// job ends reach other daemons by a store read once a second.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { errorMessage } from '../../errors.js';

export const NOTIFY_MODES = ['auto', 'on', 'off'] as const;
export type NotifyMode = (typeof NOTIFY_MODES)[number];

export interface NoticesDecision {
  notices: boolean;
  /** Why: the setting, or what the probe found. */
  why: string;
}

const PROBE_CHANNEL = 'cuzk_probe';

/** store.notify applied: `on` and `off` as told; `auto` as `probe` finds (its reason: notices do not work). */
export async function decideNotices(mode: NotifyMode, probe: () => Promise<string | undefined>): Promise<NoticesDecision> {
  if (mode === 'on') return { notices: true, why: 'store.notify = on' };
  if (mode === 'off') return { notices: false, why: 'store.notify = off' };
  const problem = await probe();
  return problem === undefined ? { notices: true, why: 'a probe notification came back' } : { notices: false, why: problem };
}

/** An error the server answered with (a SQLSTATE), not a lost connection. */
const refusedByServer = (err: unknown) => {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('08');
};

/** Why notices do not work on `url` (undefined: they do). A connection that cannot be made throws. */
export async function probeNotices(url: string, timeoutMs = 2000): Promise<string | undefined> {
  const c = new pg.Client({ connectionString: url, application_name: 'cuzk serve notify probe' });
  c.on('error', () => undefined); // a lost connection fails the query below
  await c.connect();
  const nonce = randomUUID();
  let timer: NodeJS.Timeout | undefined;
  const back = new Promise<boolean>((resolve) => {
    c.on('notification', (n) => n.channel === PROBE_CHANNEL && n.payload === nonce && resolve(true));
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    for (const [what, sql, values] of [['LISTEN', `LISTEN ${PROBE_CHANNEL}`, []], ['pg_notify()', 'SELECT pg_notify($1, $2)', [PROBE_CHANNEL, nonce]]] as const) {
      try {
        await c.query(sql, [...values]);
      } catch (err) {
        if (!refusedByServer(err)) throw err;
        return `${what} refused: ${errorMessage(err)}`;
      }
    }
    return (await back) ? undefined : `LISTEN and pg_notify() were accepted but no notification came back within ${timeoutMs} ms (a pooler in transaction mode? set store.notify = off there)`;
  } finally {
    clearTimeout(timer);
    await c.end().catch(() => undefined);
  }
}
