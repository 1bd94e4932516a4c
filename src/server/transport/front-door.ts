// The daemon's front door: what every accepted connection may hold before and between requests. At
// most limits.max_connections are open; a connection must send a request's headers within
// limits.headers_timeout_ms and is closed after limits.idle_timeout_ms with no request in flight;
// HTTP/2 connections get flow-control windows sized for witnesses and a cap on concurrent streams.
// Without TLS, the first bytes of a connection pick the protocol (the HTTP/2 client preface or not).
import type http from 'node:http';
import type http2 from 'node:http2';
import type net from 'node:net';
import type { ServeConfig } from '../startup/config.js';

export type FrontDoorLimits = Pick<ServeConfig, 'headersTimeoutMs' | 'idleTimeoutMs' | 'maxConnections' | 'maxStreams'>;

const MiB = 1024 * 1024;
// Node's HTTP/2 windows default to 64 KiB per stream and per connection, far below a witness.
// 32 MiB through the sniffing listener, loopback (2 cores, 2026-12): 64 KiB 53-150 ms, 256 KiB
// 50-110 ms, 1 MiB 30-75 ms, 4 MiB 30-67 ms; at the daemon 1 MiB and 4 MiB measure the same. On
// the H200 machine (10 clients, 2^20 fixture) 8/32 MiB gave 12.7 proofs/s over gRPC against 11.6
// with 1/4 MiB; 1 MiB DATA frames (instead of 16 KiB) cut it to 10.3. The connection window
// bounds what a refused request's streams can push before their reset.
const STREAM_WINDOW_BYTES = 8 * MiB;
const CONNECTION_WINDOW_BYTES = 32 * MiB;
// Counts header tables and queued outgoing data, not request bodies (those are bounded by the
// windows); responses are small, so Node's default of 10 MB is raised only a little.
const MAX_SESSION_MEMORY_MB = 32;
const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/** Options for the HTTP/1.1 server: headers timed, bodies not (a large upload may be slow). */
export function h1Options(l: FrontDoorLimits): http.ServerOptions {
  return {
    headersTimeout: l.headersTimeoutMs,
    requestTimeout: 0,
    keepAliveTimeout: l.idleTimeoutMs,
    // node checks the headers deadline only on this tick (default 30 s)
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(l.headersTimeoutMs / 4) || 1000)),
    noDelay: true,
  };
}

export function h2Options(l: FrontDoorLimits): http2.ServerOptions {
  return { settings: { initialWindowSize: STREAM_WINDOW_BYTES, maxConcurrentStreams: l.maxStreams }, maxSessionMemory: MAX_SESSION_MEMORY_MB };
}

/** The same limits on a server that listens itself (the TLS one, where ALPN picks the protocol). */
export function limitServer(server: net.Server & Partial<Pick<http.Server, 'headersTimeout' | 'requestTimeout' | 'keepAliveTimeout'>>, l: FrontDoorLimits): void {
  if (l.maxConnections > 0) server.maxConnections = l.maxConnections;
  server.headersTimeout = l.headersTimeoutMs;
  server.requestTimeout = 0;
  server.keepAliveTimeout = l.idleTimeoutMs;
}

/** An HTTP/2 connection: a wider connection window, and closed (GOAWAY) when it opens no stream within
 * the headers timeout or has none open for the idle timeout. */
export function superviseSession(session: http2.ServerHttp2Session, l: FrontDoorLimits): void {
  session.setLocalWindowSize(CONNECTION_WINDOW_BYTES);
  let open = 0;
  let timer: NodeJS.Timeout | undefined;
  // close() waits for streams, and a HEADERS frame left without END_HEADERS kept a session open for
  // good: a session still open a headers timeout (at least 1 s) after its GOAWAY is destroyed
  const closeAfter = (ms: number) => {
    if (ms > 0) timer = setTimeout(() => {
      session.close();
      timer = setTimeout(() => session.destroy(), Math.max(1000, l.headersTimeoutMs)).unref();
    }, ms);
  };
  closeAfter(l.headersTimeoutMs);
  session.on('stream', (stream: http2.ServerHttp2Stream) => {
    open++;
    clearTimeout(timer);
    stream.once('close', () => {
      if (--open === 0 && !session.closed) closeAfter(l.idleTimeoutMs);
    });
  });
  session.once('close', () => clearTimeout(timer));
}

/**
 * Makes `h1` (which listens) sniff each connection: HTTP/2 goes to `h2`, what `handOff` takes (a
 * witness upload, given to an intake process) leaves this process, the rest goes to `h1` itself.
 * `h1` stays the listening server so that node tracks its connections (the headers deadline and
 * closeAllConnections work only on a server that emitted 'listening').
 */
export function sniffConnections(h1: http.Server, h2: http2.Http2Server, l: FrontDoorLimits, handOff: (socket: net.Socket, head: Buffer) => boolean = () => false): void {
  const serveH1 = h1.listeners('connection')[0] as (socket: net.Socket) => void;
  h1.removeAllListeners('connection');
  if (l.maxConnections > 0) h1.maxConnections = l.maxConnections;
  h1.on('connection', (socket: net.Socket) => {
    const drop = () => socket.destroy();
    if (l.headersTimeoutMs > 0) socket.setTimeout(l.headersTimeoutMs, drop);
    socket.on('error', drop);
    // the servers allow half-open sockets: one that ends before its first byte would stay counted
    socket.once('end', drop);
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      socket.setTimeout(0);
      socket.off('timeout', drop);
      socket.off('end', drop);
      const n = Math.min(chunk.length, H2_PREFACE.length);
      if (chunk.subarray(0, n).equals(H2_PREFACE.subarray(0, n))) {
        socket.unshift(chunk);
        // The session takes the socket's native handle and first drains what unshift() put back
        // (node >= 18). Resuming the socket here would race it for the handle's reads (GOAWAY
        // PROTOCOL_ERROR). Before, the bytes went through a JS Duplex replaying the socket: a 32 MiB
        // SubmitProof over gRPC at 41-61 MB/s per client, most of the daemon's event loop in that
        // stream; on the native handle nghttp2 reads in C++ (scripts/measure-submit.mjs).
        //
        // The listener allows half-open sockets (for HTTP/1.1), but HTTP/2 has no half-closed
        // connection: a client gone (FIN) must take its session, streams and uploads with it. Half-open,
        // the socket stayed in CLOSE-WAIT for good, holding an upload's spool fd and .partial file.
        socket.allowHalfOpen = false;
        socket.once('end', () => socket.destroy());
        h2.emit('connection', socket);
      } else if (handOff(socket, chunk)) {
        // a witness upload, to an intake process (intake-processes.ts), with the bytes read so far
        socket.off('error', drop);
      } else {
        socket.unshift(chunk);
        serveH1.call(h1, socket);
        socket.resume();
      }
    });
  });
}
