// What one request may hold once its headers are in (front-door.ts bounds the connection before
// that): its body must keep arriving (limits.body_timeout_ms), a connection has at most
// limits.max_uploads_per_connection witness uploads in flight (each holds a spool file and its fd),
// and a request in JSON, decoded on the event loop, is at most limits.max_json_bytes.
import http2 from 'node:http2';
import type { Http2ServerRequest } from 'node:http2';
import type { IncomingMessage } from 'node:http';
import { ResourceError } from '../../errors.js';
import type { ServeConfig } from '../startup/config.js';

/** The options of this file, with limits.max_json_bytes 0 (or above limits.max_message_bytes) read
 * as limits.max_message_bytes. */
export type RequestLimits = Pick<ServeConfig, 'bodyTimeoutMs' | 'maxUploadsPerConnection' | 'maxJsonBytes'>;

export function requestLimits(cfg: ServeConfig): RequestLimits {
  const maxJsonBytes = cfg.maxJsonBytes > 0 ? Math.min(cfg.maxJsonBytes, cfg.maxMessageBytes) : cfg.maxMessageBytes;
  return { bodyTimeoutMs: cfg.bodyTimeoutMs, maxUploadsPerConnection: cfg.maxUploadsPerConnection, maxJsonBytes };
}

type Req = IncomingMessage | Http2ServerRequest;

/**
 * Ends a request whose body stalls: once no byte of it has arrived for `ms` (the timers of node's
 * streams and sockets restart on every read) and the body is not finished, an HTTP/2 stream is reset
 * (CANCEL), an HTTP/1.1 connection closed. Whatever reads the body then sees it fail, and an upload
 * aborts its spool writer (the fd closed, the .partial removed). Bytes the daemon holds unread (its
 * own back-pressure: a slow spool) are not the client's stall: the timer is started again. Once the
 * body has been read to its end the timer is off: an RPC may then wait (AwaitProof, Prove) or
 * stream (WatchJob) as long as it likes, under limits.idle_timeout_ms between requests.
 */
export function superviseBody(req: Req, ms: number): void {
  if (ms <= 0) return;
  if ('stream' in req) {
    const stream = req.stream;
    if (stream.endAfterHeaders || stream.closed) return;
    const onTimeout = () => {
      if (stream.closed || stream.destroyed) return;
      if (stream.readableLength > 0 && !stream.writableEnded) stream.setTimeout(ms);
      else stream.close(http2.constants.NGHTTP2_CANCEL);
    };
    stream.setTimeout(ms, onTimeout);
    stream.once('end', () => stream.setTimeout(0));
    stream.once('close', () => stream.setTimeout(0));
    return;
  }
  // a request without a body (GET) has nothing to time, and its 'end' comes only if it is read
  if (req.complete || (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)) return;
  const socket = req.socket;
  // node's own socket timeout handler emits 'timeout' on an unfinished request, and closes the
  // connection only when nobody listens: this listener decides
  const onTimeout = () => {
    if (req.readableLength > 0 || socket.readableLength > 0) socket.setTimeout(ms);
    else socket.destroy();
  };
  socket.setTimeout(ms);
  req.on('timeout', onTimeout);
  req.once('end', () => {
    req.off('timeout', onTimeout);
    socket.setTimeout(0);
  });
}

/** Witness uploads in flight per connection (an HTTP/2 session, or an HTTP/1.1 socket). */
export class UploadSlots {
  readonly #held = new WeakMap<object, number>();

  constructor(private readonly max: number) {}

  /** Takes a slot for `req`'s connection, given back when `done` settles; throws E_OVERLOADED when
   * the connection has `max` uploads in flight. */
  take(req: Req): (done: Promise<unknown>) => void {
    const conn: object = 'stream' in req ? req.stream.session ?? req.stream : req.socket;
    const n = this.#held.get(conn) ?? 0;
    if (this.max > 0 && n >= this.max) {
      throw new ResourceError('E_OVERLOADED', `this connection has ${n} witness uploads in flight, the most limits.max_uploads_per_connection allows: wait for one to finish, or upload over another connection`);
    }
    this.#held.set(conn, n + 1);
    const give = () => {
      const left = (this.#held.get(conn) ?? 1) - 1;
      if (left > 0) this.#held.set(conn, left);
      else this.#held.delete(conn);
    };
    return (done) => void done.then(give, give);
  }
}

/** The one wording of a JSON request over limits.max_json_bytes. */
export function jsonTooLarge(size: string | number | null | undefined, maxJsonBytes: number): string {
  return `JSON request too large: ${size ? `${size} bytes, ` : ''}more than limits.max_json_bytes ${maxJsonBytes} (JSON is decoded on the daemon's event loop): send witnesses with UploadWitness or POST /v1/witnesses, or the request as binary protobuf (gRPC, or Connect with application/proto)`;
}

/** A Connect request in JSON (unary application/json, streaming application/connect+json). */
export function isJsonRequest(req: Req): boolean {
  const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || type === 'application/connect+json';
}

type Res = { once(event: 'close', f: () => void): unknown };

/**
 * LoadKey RPCs, one at a time daemon-wide. An old client's LoadKey carries the whole .zkey in its
 * message, which the RPC library reads and decodes whole (twice its size held until the key is
 * stored and loaded: 3 of 200 MB at once held +620 MB); the SDK now streams key bytes as POST
 * /v1/keys. The others wait with their bodies unread (held back by HTTP/2 flow control or TCP's
 * window), so old clients still load keys, in turn. A LoadKey by path has a body of a few hundred
 * bytes, but gRPC announces no length, so it waits its turn too: key loads are heavy anyway.
 * A request that announces a small body goes at once.
 */
export class LoadKeyTurns {
  static readonly SMALL_BODY_BYTES = 64 << 10;
  #busy = false;
  readonly #waiting: (() => void)[] = [];

  /** Calls `start` when `req` may be read; its turn ends when `res` closes. */
  run(req: Req, res: Res, start: () => void): void {
    const length = req.headers['content-length'];
    if (length !== undefined && Number(length) <= LoadKeyTurns.SMALL_BODY_BYTES) return start();
    let gone = false;
    const go = () => {
      if (gone) return this.#next(); // its client left while it waited
      this.#busy = true;
      res.once('close', () => this.#next());
      start();
    };
    res.once('close', () => (gone = true));
    if (this.#busy) this.#waiting.push(go);
    else go();
  }

  #next(): void {
    this.#busy = false;
    const go = this.#waiting.shift();
    if (go) go();
  }
}
