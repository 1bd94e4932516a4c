// PostgreSQL faults as one line naming the store (its URL without the password) and what to do, as
// journal-open.ts does for the SQLite file: E_INVALID_ARG at start (`cuzk serve` exits 2), E_UNAVAILABLE
// (retryable; the daemon stays up and /readyz says why) later. A query's own error (a constraint, a
// bad statement) is not a fault of the store and passes as it is.
import { CuzkError, InputError, ResourceError } from '../../errors.js';

/** `url` parsed and checked: a postgres:// or postgresql:// URL naming a host and a database. */
export function parseStoreUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new InputError('E_INVALID_ARG', `store ${redactUrl(url)}: not a URL: give postgres://USER@HOST:PORT/DB`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new InputError('E_INVALID_ARG', `store ${redactUrl(url)}: not a postgres:// URL (${u.protocol}): give postgres://USER@HOST:PORT/DB, or leave --store out for the SQLite journal`);
  }
  if (!u.hostname || u.pathname.length <= 1) throw new InputError('E_INVALID_ARG', `store ${redactUrl(url)}: names no host or no database: give postgres://USER@HOST:PORT/DB`);
  return u;
}

/** The URL with its password (user info or ?password=) removed: safe for logs and errors. */
/** Whether `url` carries a password (user:password@, or a password parameter). */
export function urlHasPassword(url: string): boolean {
  try {
    const u = new URL(url);
    return u.password !== '' || u.searchParams.has('password') || u.searchParams.has('sslpassword');
  } catch {
    return /\/\/[^/@:]*:[^/@]+@/.test(url);
  }
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    for (const p of ['password', 'sslpassword']) u.searchParams.delete(p);
    return u.toString();
  } catch {
    return url.replace(/\/\/([^/@:]*):[^/@]*@/, '//$1@'); // unparseable: at least no user:password
  }
}

interface PgLikeError {
  code?: unknown;
  message?: unknown;
  errors?: unknown[];
}

/** The errno or SQLSTATE of `err` (an AggregateError of connection attempts: its first). */
function codeOf(err: unknown): string | undefined {
  const e = err as PgLikeError;
  if (typeof e?.code === 'string') return e.code;
  const inner = Array.isArray(e?.errors) ? (e.errors[0] as PgLikeError | undefined) : undefined;
  return typeof inner?.code === 'string' ? inner.code : undefined;
}

/** What is wrong and what to do, when `err` is a fault of the store (not of a query). */
function describe(u: URL, err: unknown): string | undefined {
  const code = codeOf(err);
  const msg = String((err as PgLikeError)?.message ?? err);
  const at = `${u.hostname}:${u.port || 5432}`;
  const db = decodeURIComponent(u.pathname.slice(1));
  switch (code) {
    case 'ECONNREFUSED':
    case 'ENOENT':
      return `cannot connect (${code}): no PostgreSQL server answers at ${at}; start it, or fix --store`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot connect (${code}): host ${u.hostname} not found; fix --store`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ECONNRESET':
    case 'EPIPE':
      return `the connection to ${at} failed (${code}): check that the server is up and reachable`;
    case '28P01':
    case '28000':
      return `authentication failed for user ${decodeURIComponent(u.username) || '(none)'} (${code}: ${msg}): fix the user or password (in --store or $PGPASSWORD), or the server's pg_hba.conf`;
    case '3D000':
      return `database ${db} does not exist: create it (createdb ${db}), or fix --store`;
    case '57P01':
    case '57P02':
    case '57P03':
      return `the server is shutting down or starting (${code}: ${msg}): jobs cannot be journaled until it is back`;
    case '53100':
      return `the server's disk is full (${code}): free space on it (nothing was journaled)`;
    case '53200':
    case '53300':
      return `the server is out of resources (${code}: ${msg}): raise max_connections or its memory, or stop other clients`;
    case '25006':
      return 'the server is read-only (a standby?): point --store at the primary';
    case '42501':
      return `user ${decodeURIComponent(u.username)} lacks a privilege (${msg}): grant it CREATE and ownership of the cuzk tables in ${db}`;
  }
  if (code?.startsWith('08')) return `the connection failed (${code}: ${msg}): check that the server is up and reachable`;
  if (/Connection terminated|connection timeout|Client has encountered a connection error|Query read timeout/i.test(msg)) {
    return `the connection to ${at} was lost (${msg}): check that the server is up and reachable`;
  }
  return undefined;
}

/** A store fault as an error, or undefined when `err` is not one (see the file header). */
export function storeFault(url: string, err: unknown, atStart: boolean): CuzkError | undefined {
  if (err instanceof CuzkError) return undefined; // ours (e.g. a bad row): it says what it is
  const what = describe(new URL(url), err);
  if (what === undefined) return undefined;
  const message = `store ${redactUrl(url)}: ${what}`;
  return atStart ? new InputError('E_INVALID_ARG', message, { cause: err }) : new ResourceError('E_UNAVAILABLE', message, { cause: err });
}
