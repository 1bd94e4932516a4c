// One listener for every protocol: a TCP port (or unix socket) whose connections are sniffed, HTTP/2
// (the client preface; gRPC and Connect over h2c) to an http2 server and anything else to an
// HTTP/1.1 server (Connect JSON, gRPC-Web, curl, fetch), under front-door.ts's limits. Both run the
// same handler: Connect-RPC's node adapter for the ProvingService (the token checked on the headers,
// before the body; JSON decoded strictly), and GET /metrics, /healthz, /readyz and the dashboard
// (dashboard/handler.ts: GET / and /dashboard/*) beside it, and for the other daemons of a fleet
// GET /v1/fleet/witnesses/... (witness-serve.ts, behind the same token and the fleet's secret).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import type net from 'node:net';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import type { ConnectRouter, HandlerContext } from '@connectrpc/connect';
import { errorMessage, InputError } from '../../errors.js';
import { ProvingService } from '../../rpc/gen/cuzk/v1/cuzk_pb.js';
import { answerEarly } from './answer-early.js';
import { fleetSecretMatches, notFleet, tokenMatches, unauthorized } from './auth.js';
import { DashboardHandler } from './dashboard/handler.js';
import { buildSnapshot } from './dashboard/snapshot.js';
import { h1Options, h2Options, limitServer, sniffConnections, superviseSession } from './front-door.js';
import type { RouteContext } from './routes.js';
import { provingService } from './routes.js';
import { recodeProtocolErrors, sendError, toConnectError } from './status-map.js';
import { grpcWitnessUpload, isGrpcUpload } from './upload-grpc.js';
import { KEY_UPLOAD_PATH, keyUpload, WITNESS_UPLOAD_PATH, witnessUpload } from './upload-http.js';
import { FLEET_SECRET_HEADER, FLEET_WITNESS_PREFIX } from '../fleet/witness-fetch.js';
import { serveSpooledWitness } from './witness-serve.js';
import { isJsonRequest, jsonTooLarge, LoadKeyTurns, requestLimits, superviseBody, UploadSlots } from './request-limits.js';
import { UPLOAD_WITNESS_PATH } from './upload-grpc.js';
import { IntakeProcesses, intakeMetricsLines, intakeProcessCount } from './intake-processes.js';

export interface HttpHooks {
  /** Undefined when ready, else why not. */
  notReady: () => Promise<string | undefined>;
}

type NodeHandlerFn = ReturnType<typeof connectNodeAdapter>;
type Req = Parameters<NodeHandlerFn>[0];
type Res = Parameters<NodeHandlerFn>[1];

const RPC_PREFIX = `/${ProvingService.typeName}/`;
const LOAD_KEY_PATH = `${RPC_PREFIX}${ProvingService.method.loadKey.name}`;

function sendJson(res: Res, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function fallback(c: RouteContext, hooks: HttpHooks, dashboard: DashboardHandler) {
  return (req: Req, res: Res) => {
    const url = (req.url ?? '/').split('?')[0];
    if (dashboard.handle(req, res)) return;
    if (req.method === 'GET' && url === '/healthz') return sendJson(res, 200, { ok: true });
    if (req.method === 'GET' && url === '/readyz') {
      hooks.notReady().then(
        (reason) => (reason === undefined ? sendJson(res, 200, { ready: true }) : sendJson(res, 503, { ready: false, reason })),
        (err: unknown) => sendJson(res, 503, { ready: false, reason: errorMessage(err) }),
      );
      return;
    }
    if (req.method === 'GET' && url === '/metrics') {
      if (!tokenMatches(req.headers.authorization, c.cfg.token)) {
        return sendError(res, unauthorized());
      }
      c.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
          res.end(text);
        },
        (err: unknown) => sendError(res, err),
      );
      return;
    }
    sendError(res, new InputError('E_NOT_FOUND', `no route ${req.method} ${url}: RPCs are POST /cuzk.v1.ProvingService/<Method>`));
  };
}

/** With TLS, ALPN picks HTTP/2 or HTTP/1.1: one http2 secure server with allowHTTP1, no sniffing. */
function tlsListener(c: RouteContext, handler: NodeHandlerFn, sockets: Set<net.Socket>, dashboard: DashboardHandler): Listener {
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file);
    } catch (cause) {
      throw new InputError('E_INVALID_ARG', `${what} ${file}: cannot read (${(cause as NodeJS.ErrnoException).code ?? cause})`, { cause });
    }
  };
  const ca = c.cfg.tlsClientCa ? read(c.cfg.tlsClientCa, 'tls.client_ca') : undefined;
  const server = http2.createSecureServer(
    { ...h2Options(c.cfg), cert: read(c.cfg.tlsCert, 'tls.cert'), key: read(c.cfg.tlsKey, 'tls.key'), allowHTTP1: true, ca, requestCert: ca !== undefined, rejectUnauthorized: ca !== undefined, handshakeTimeout: c.cfg.headersTimeoutMs || undefined },
    handler,
  );
  limitServer(server, c.cfg);
  server.on('session', (s: http2.ServerHttp2Session) => superviseSession(s, c.cfg));
  server.on('secureConnection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    server,
    metricsLines: () => intakeMetricsLines(0, 0, 0),
    close: () =>
      new Promise<void>((resolve) => {
        dashboard.close();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

export interface Listener {
  server: net.Server;
  close(): Promise<void>;
  /** Prometheus lines of the listener's own (its intake processes'), for /metrics. */
  metricsLines?(): string[];
}

export function createListener(c: RouteContext, hooks: HttpHooks): Listener {
  const dashboard = new DashboardHandler({ token: c.cfg.token, assets: c.dashboardAssets, frame: () => buildSnapshot(c), log: c.log });
  const limits = requestLimits(c.cfg);
  // JSON is decoded on the event loop (a 200 MB SubmitProof held it 1.45 s): JSON requests go through
  // an adapter of their own whose read limit is limits.max_json_bytes
  const adapter = (readMaxBytes: number, tooLarge?: typeof jsonTooLarge) =>
    connectNodeAdapter({
      routes: (router: ConnectRouter) => router.service(ProvingService, provingService(c)),
      requestGate: (ctx: HandlerContext) => recodeProtocolErrors(ctx, readMaxBytes, tooLarge),
      // a misspelt field ("requestID") or enum value would otherwise be dropped without a word
      jsonOptions: { ignoreUnknownFields: false },
      readMaxBytes,
      writeMaxBytes: c.cfg.maxMessageBytes,
      fallback: fallback(c, hooks, dashboard),
    });
  const rpcBinary = adapter(c.cfg.maxMessageBytes);
  const rpcJson = limits.maxJsonBytes < c.cfg.maxMessageBytes ? adapter(limits.maxJsonBytes, jsonTooLarge) : rpcBinary;
  const rpc = (req: Req, res: Res) => (isJsonRequest(req) ? rpcJson(req, res) : rpcBinary(req, res));
  const slots = new UploadSlots(limits.maxUploadsPerConnection);
  const loadKeyTurns = new LoadKeyTurns();
  const sockets = new Set<net.Socket>();
  const handler = (req: Req, res: Res) => {
    superviseBody(req, limits.bodyTimeoutMs);
    // the one token check for RPCs, on the headers: a refused upload is never read
    const upload = req.method === 'POST' && (req.url ?? '').split('?')[0] === WITNESS_UPLOAD_PATH;
    const keyPost = req.method === 'POST' && (req.url ?? '').split('?')[0] === KEY_UPLOAD_PATH;
    const fleetWitness = req.url?.startsWith(FLEET_WITNESS_PREFIX) === true;
    if (c.cfg.token && (upload || keyPost || fleetWitness || req.url?.startsWith(RPC_PREFIX)) && !tokenMatches(req.headers.authorization, c.cfg.token)) return answerEarly(req, res, toConnectError(unauthorized()));
    // a witness is a job's private input: the clients' token alone does not fetch it
    if (fleetWitness && !fleetSecretMatches(req.headers[FLEET_SECRET_HEADER], c.jobs.fleet?.secret)) return answerEarly(req, res, toConnectError(notFleet()));
    if (fleetWitness) return void serveSpooledWitness(c, req, res);
    if (upload || keyPost || (req.url ?? '').split('?')[0] === UPLOAD_WITNESS_PATH) {
      // each upload in flight holds a spool (or key) file: a connection has at most limits.max_uploads_per_connection
      let release: (done: Promise<unknown>) => void;
      try {
        release = slots.take(req);
      } catch (err) {
        return answerEarly(req, res, toConnectError(err));
      }
      if (upload) return release(witnessUpload(c.intake, req, res));
      if (keyPost) return release(keyUpload(c, req, res));
      if (isGrpcUpload(req)) return release(grpcWitnessUpload(c, req, res));
      release(new Promise((resolve) => res.once('close', resolve)));
    }
    if ((req.url ?? '').split('?')[0] === LOAD_KEY_PATH) return loadKeyTurns.run(req, res, () => rpc(req, res));
    rpc(req, res);
  };
  if (c.cfg.tlsCert) return tlsListener(c, handler, sockets, dashboard);
  const h1 = http.createServer(h1Options(c.cfg), handler);
  const h2 = http2.createServer(h2Options(c.cfg), handler);
  h2.on('session', (s: http2.ServerHttp2Session) => superviseSession(s, c.cfg));
  // limits.max_connections counts the connections handed to intake processes too
  const capFor = (handedOff: number) => {
    if (c.cfg.maxConnections > 0) h1.maxConnections = Math.max(1, c.cfg.maxConnections - handedOff);
  };
  const count = intakeProcessCount(c.cfg);
  const intake = count > 0 ? new IntakeProcesses(count, c.intake, c.cfg, c.log, capFor) : undefined;
  if (intake) c.intakeStats = () => intake.stats();
  sniffConnections(h1, h2, c.cfg, intake ? (socket, head) => intake.handOff(socket, head) : undefined);
  h1.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return {
    server: h1,
    metricsLines: () => intake?.metricsLines() ?? intakeMetricsLines(0, 0, 0),
    close: () =>
      new Promise<void>((resolve) => {
        dashboard.close();
        let left = 2;
        const done = () => --left === 0 && resolve();
        h1.close(done);
        h1.closeAllConnections();
        for (const s of sockets) s.destroy();
        void (intake?.close() ?? Promise.resolve()).then(done);
      }),
  };
}
