// A claimed job's witnesses spooled by another daemon of the fleet, fetched from it: GET
// /v1/fleet/witnesses/<job>/<n> (witness-serve.ts) at the address its heartbeat wrote to the
// `daemons` table, with the token and the fleet's secret (FLEET_SECRET_HEADER), into this daemon's own spool through the spool's writer
// (header against the key, size as announced, sha256 computed on the way); the hash must be the one
// the job was accepted with. A daemon that cannot be reached (down, not yet up, gone from the table)
// is retried once a second for store.witness_wait_ms, then the job ends failed with the reason; an
// answer that cannot change (no such witness, wrong token, other bytes) fails it at once.
import path from 'node:path';
import { CuzkError, errorMessage, ResourceError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { StoredJob } from '../journal/job-store.js';
import type { KeyShape, SpooledWitness, WitnessSpool } from '../intake/spool.js';

/** Where a daemon serves the witnesses it spooled to the daemon that claimed their job (witness-serve.ts). */
export const FLEET_WITNESS_PREFIX = '/v1/fleet/witnesses/';
/** The header that carries the fleet's secret (the store's fleet_secret, which clients do not hold). */
export const FLEET_SECRET_HEADER = 'x-cuzk-fleet-secret';

export interface WitnessFetchDeps {
  spool: WitnessSpool;
  key: KeyShape;
  token: string;
  fleetSecret: string;
  /** The fleet serves TLS (this daemon does): fetch over https. */
  tls: boolean;
  waitMs: number;
  /** The address the daemon `id` last advertised, or undefined when it is not in the fleet. */
  addressOf(id: string): Promise<string | undefined>;
  log: Logger;
}

/** A failure no retry can mend. */
class Final extends Error {
  constructor(readonly error: CuzkError) {
    super(error.message);
  }
}

/** How long a daemon may take to answer with headers before the attempt counts as failed. */
const HEADERS_TIMEOUT_MS = 10_000;

/** A spool file of another daemon's: not in this daemon's spool dir (a job this daemon accepted before
 * a restart, under another fleet id, has its files here still, and uses them in place). */
export function spooledElsewhere(f: SpooledWitness, spoolDir: string): boolean {
  return f.owned && path.dirname(f.path) !== spoolDir;
}

/** The job's witness files with those spooled elsewhere replaced by local copies (owned here). */
export async function fetchWitnesses(s: StoredJob, d: WitnessFetchDeps): Promise<SpooledWitness[]> {
  const files = s.request?.witnessFiles ?? [];
  const out: SpooledWitness[] = [];
  try {
    for (const [i, f] of files.entries()) out.push(spooledElsewhere(f, d.spool.dir) ? await fetchOne(s, i, f, d) : f);
  } catch (err) {
    await d.spool.release(out.filter((f, i) => f !== files[i]));
    throw err;
  }
  return out;
}

async function fetchOne(s: StoredJob, n: number, f: SpooledWitness, d: WitnessFetchDeps): Promise<SpooledWitness> {
  const from = s.acceptedBy!;
  const what = `witness ${n} of job ${s.id}`;
  const until = Date.now() + d.waitMs;
  for (;;) {
    const address = await d.addressOf(from);
    let reason: string;
    if (address === undefined) reason = `daemon ${from} is not in the fleet (stopped, or restarted under a new id)`;
    else {
      try {
        const got = await fetchOnce(`${d.tls ? 'https' : 'http'}://${address}${FLEET_WITNESS_PREFIX}${s.id}/${n}`, what, f, d);
        d.log.info({ jobId: s.id, witness: n, from, bytes: got.size }, 'witness fetched from the daemon that spooled it');
        return got;
      } catch (err) {
        if (err instanceof Final) throw err.error;
        reason = `${address}: ${errorMessage(err)}`;
      }
    }
    const left = until - Date.now();
    if (left <= 0) {
      throw new ResourceError('E_UNAVAILABLE', `${what}: spooled by daemon ${from}, unreachable for ${d.waitMs} ms (${reason}): submit the job again`);
    }
    d.log.warn({ jobId: s.id, witness: n, from, reason }, 'witness not fetched yet: retrying');
    await new Promise((r) => setTimeout(r, Math.min(1000, left)));
  }
}

async function fetchOnce(url: string, what: string, f: SpooledWitness, d: WitnessFetchDeps): Promise<SpooledWitness> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error(`no answer within ${HEADERS_TIMEOUT_MS} ms`)), HEADERS_TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(url, { headers: { ...(d.token ? { authorization: `Bearer ${d.token}` } : {}), [FLEET_SECRET_HEADER]: d.fleetSecret }, signal: ac.signal });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(cause?.code ?? cause?.message ?? errorMessage(err));
  } finally {
    clearTimeout(timer);
  }
  if (res.status === 401) throw new Final(new CuzkError('E_UNAUTHORIZED', `${what}: ${url} refused this daemon's token or the fleet's secret: every daemon of a fleet needs the same token and the same store`));
  if (res.status === 404) throw new Final(new ResourceError('E_NOT_FOUND', `${what}: the daemon that spooled it no longer has it (${url}): submit the job again`));
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new Error(`HTTP ${res.status}`);
  }
  if (res.headers.get('content-length') !== String(f.size)) {
    await res.body?.cancel();
    throw new Final(new CuzkError('E_INTERNAL', `${what}: ${url} answers ${res.headers.get('content-length')} bytes, the job names ${f.size}`));
  }
  const w = d.spool.writer(d.key, f.size, what);
  let got: SpooledWitness;
  try {
    for await (const chunk of res.body! as unknown as AsyncIterable<Uint8Array>) await w.write(chunk);
    got = await w.finish();
  } catch (err) {
    await w.abort();
    if (err instanceof CuzkError) throw new Final(err);
    throw err; // the connection broke: retried
  }
  if (got.sha256 !== f.sha256) {
    await d.spool.release([got]);
    throw new Final(new CuzkError('E_INTERNAL', `${what}: the bytes fetched have sha256 ${got.sha256.slice(0, 12)}…, the job was accepted with ${f.sha256.slice(0, 12)}… (the spool file changed?): submit the job again`));
  }
  return got;
}
