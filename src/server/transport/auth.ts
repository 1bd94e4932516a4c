// Who may call: on loopback or a unix socket anyone local; elsewhere only holders of the bearer
// token (the daemon refuses to start off loopback without one). Tokens compare in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { CuzkError, InputError } from '../../errors.js';

export type ListenAddress = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };

export function parseListen(listen: string): ListenAddress {
  if (listen.startsWith('unix:')) {
    const p = listen.slice(5);
    if (!p) throw new InputError('E_INVALID_ARG', 'listen "unix:" needs a socket path, e.g. unix:/run/cuzk.sock');
    return { kind: 'unix', path: p };
  }
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(listen);
  if (!m) throw new InputError('E_INVALID_ARG', `listen must be host:port or unix:/path, got "${listen}"`);
  const port = Number(m[3]);
  if (port > 65535) throw new InputError('E_INVALID_ARG', `listen port ${port} is above 65535`);
  return { kind: 'tcp', host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

export function isLoopback(a: ListenAddress): boolean {
  if (a.kind === 'unix') return true;
  if (a.host === 'localhost' || a.host === '::1') return true;
  return isIP(a.host) === 4 && a.host.startsWith('127.');
}

/** Throws unless a token or mTLS guards an address reachable from other machines; returns a
 * warning when the token would travel in cleartext. */
export function checkExposure(a: ListenAddress, token: string, tls: { cert?: string; clientCa?: string } = {}): string | undefined {
  if (isLoopback(a)) return undefined;
  const host = a.kind === 'tcp' ? a.host : '';
  if (!token && !tls.clientCa) {
    throw new InputError('E_INVALID_ARG', `refusing to listen on ${host} without a token: set token, token_file or $CUZK_TOKEN, or mTLS (tls.client_ca), or listen on 127.0.0.1`);
  }
  if (token && !tls.cert) return `listening on ${host} without TLS: the bearer token travels in cleartext (set tls.cert and tls.key, or terminate TLS in front)`;
  return undefined;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export function tokenMatches(header: string | null | undefined, token: string): boolean {
  if (!token) return true;
  const m = /^Bearer (.+)$/i.exec(header ?? '');
  return m !== null && timingSafeEqual(digest(m[1]!.trim()), digest(token));
}

/** Whether `header` is the fleet's secret (constant time); never with no secret (no fleet). */
export function fleetSecretMatches(header: string | string[] | undefined, secret: string | undefined): boolean {
  return typeof header === 'string' && !!secret && timingSafeEqual(digest(header), digest(secret));
}

/** The refusal of a fleet witness fetch without the fleet's secret. */
export function notFleet(): CuzkError {
  return new CuzkError('E_UNAUTHORIZED', 'fleet witness: only the daemons of the fleet may fetch witnesses (they send the store\'s fleet secret); the clients\' token is not enough');
}

/** The refusal for a request without the token (http.ts checks RPCs on their headers, before the body). */
export function unauthorized(): CuzkError {
  return new CuzkError('E_UNAUTHORIZED', 'missing or wrong bearer token (send "authorization: Bearer <token>")');
}
