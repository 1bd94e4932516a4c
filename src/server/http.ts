// One listener for every protocol: a TCP port (or unix socket) whose connections are sniffed, HTTP/2
// (the client preface; gRPC and Connect over h2c) to an http2 server and anything else to an
// HTTP/1.1 server (Connect JSON, gRPC-Web, curl, fetch). Both run the same handler: Connect-RPC's
// node adapter for the ProvingService, and GET /metrics, /healthz, /readyz beside it.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import { Duplex } from 'node:stream';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import type { ConnectRouter } from '@connectrpc/connect';
import { InputError } from '../errors.js';
import { ProvingService } from '../rpc/gen/cuzk/v1/cuzk_pb.js';
import { authInterceptor, tokenMatches } from './auth.js';
import type { RouteContext } from './routes.js';
import { provingService } from './routes.js';
import { STATUS_MAP } from './status-map.js';

const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

export interface HttpHooks {
  /** Undefined when ready, else why not. */
  notReady: () => Promise<string | undefined>;
}

type NodeHandlerFn = ReturnType<typeof connectNodeAdapter>;
type Req = Parameters<NodeHandlerFn>[0];
type Res = Parameters<NodeHandlerFn>[1];

function sendJson(res: Res, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function fallback(c: RouteContext, hooks: HttpHooks) {
  return (req: Req, res: Res) => {
    const url = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && url === '/healthz') return sendJson(res, 200, { ok: true });
    if (req.method === 'GET' && url === '/readyz') {
      hooks.notReady().then(
        (reason) => (reason === undefined ? sendJson(res, 200, { ready: true }) : sendJson(res, 503, { ready: false, reason })),
        (err: Error) => sendJson(res, 503, { ready: false, reason: err.message }),
      );
      return;
    }
    if (req.method === 'GET' && url === '/metrics') {
      if (!tokenMatches(req.headers.authorization, c.cfg.token)) {
        return sendJson(res, STATUS_MAP.E_UNAUTHORIZED.http, { error: { code: 'E_UNAUTHORIZED', message: 'missing or wrong bearer token' } });
      }
      c.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
          res.end(text);
        },
        (err: Error) => sendJson(res, 500, { error: { code: 'E_INTERNAL', message: err.message } }),
      );
      return;
    }
    sendJson(res, STATUS_MAP.E_NOT_FOUND.http, { error: { code: 'E_NOT_FOUND', message: `no route ${req.method} ${url}: RPCs are POST /cuzk.v1.ProvingService/<Method>` } });
  };
}

function replayStream(socket: net.Socket, first: Buffer): Duplex {
  const d = new Duplex({
    read: () => socket.resume(),
    write: (chunk: Buffer, _enc, cb) => void socket.write(chunk, cb),
    final: (cb) => socket.end(cb),
    destroy: (err, cb) => {
      socket.destroy(err ?? undefined);
      cb(err);
    },
  });
  d.push(first);
  socket.on('data', (c: Buffer) => {
    if (!d.push(c)) socket.pause();
  });
  socket.on('end', () => d.push(null));
  socket.on('close', () => d.destroy());
  return d;
}

/** With TLS, ALPN picks HTTP/2 or HTTP/1.1: one http2 secure server with allowHTTP1, no sniffing. */
function tlsListener(c: RouteContext, handler: NodeHandlerFn, sockets: Set<net.Socket>): Listener {
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file);
    } catch (cause) {
      throw new InputError('E_INVALID_ARG', `${what} ${file}: cannot read (${(cause as NodeJS.ErrnoException).code ?? cause})`, { cause });
    }
  };
  const ca = c.cfg.tlsClientCa ? read(c.cfg.tlsClientCa, 'tls.client_ca') : undefined;
  const server = http2.createSecureServer(
    { cert: read(c.cfg.tlsCert, 'tls.cert'), key: read(c.cfg.tlsKey, 'tls.key'), allowHTTP1: true, maxSessionMemory: 1024, ca, requestCert: ca !== undefined, rejectUnauthorized: ca !== undefined },
    handler,
  );
  server.on('secureConnection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

export interface Listener {
  server: net.Server;
  close(): Promise<void>;
}

export function createListener(c: RouteContext, hooks: HttpHooks): Listener {
  const handler = connectNodeAdapter({
    routes: (router: ConnectRouter) => router.service(ProvingService, provingService(c)),
    interceptors: c.cfg.token ? [authInterceptor(c.cfg.token)] : [],
    readMaxBytes: c.cfg.maxMessageBytes,
    writeMaxBytes: c.cfg.maxMessageBytes,
    fallback: fallback(c, hooks),
  });
  const sockets = new Set<net.Socket>();
  if (c.cfg.tlsCert) return tlsListener(c, handler, sockets);
  const h1 = http.createServer({ requestTimeout: 0 }, handler);
  const h2 = http2.createServer({ maxSessionMemory: 1024 }, handler);
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      const isH2 = chunk.length >= H2_PREFACE.length ? chunk.subarray(0, H2_PREFACE.length).equals(H2_PREFACE) : H2_PREFACE.subarray(0, chunk.length).equals(chunk);
      if (isH2) {
        // http2 reads the socket's native handle, which would skip the bytes already read: hand it
        // a stream that replays them (node wraps a handle-less stream itself)
        h2.emit('connection', replayStream(socket, chunk));
      } else {
        socket.unshift(chunk);
        h1.emit('connection', socket);
      }
      socket.resume();
    });
    socket.on('error', () => socket.destroy());
  });
  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        h1.closeAllConnections();
        for (const s of sockets) s.destroy();
      }),
  };
}
