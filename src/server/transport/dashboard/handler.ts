// The dashboard's HTTP face on the daemon's port: GET / is the page, GET /dashboard/<file> its static
// files, GET /dashboard/snapshot one frame as JSON and GET /dashboard/events the live feed (SSE).
// With a token configured, the page, the frame and the feed need it in the authorization header (the
// page's script sends it from sessionStorage, never in a URL); without it / answers 401 with the
// same page, whose login form asks for it. The static files hold no data and are served to anyone.
import type { connectNodeAdapter } from '@connectrpc/connect-node';
import { CuzkError, errorMessage } from '../../../errors.js';
import type { Logger } from '../../../log.js';
import { tokenMatches, unauthorized } from '../auth.js';
import { sendError, STATUS_MAP } from '../status-map.js';
import type { DashboardAssets } from './assets.js';
import { DashboardFeed } from './feed.js';

type NodeHandlerFn = ReturnType<typeof connectNodeAdapter>;
type Req = Parameters<NodeHandlerFn>[0];
type Res = Parameters<NodeHandlerFn>[1];

const ASSET_PREFIX = '/dashboard/';
// the page's own files only; uPlot sets element styles from script
const CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

export interface DashboardDeps {
  token: string;
  assets: DashboardAssets;
  frame: () => Promise<unknown>;
  log: Logger;
}

function sendText(res: Res, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)), 'x-content-type-options': 'nosniff', ...extra });
  res.end(body);
}

function refuse(res: Res, code: 'E_UNAUTHORIZED' | 'E_NOT_FOUND' | 'E_UNAVAILABLE', message: string): void {
  const extra: Record<string, string> = code === 'E_UNAUTHORIZED' ? { 'www-authenticate': 'Bearer realm="cuzk"' } : {};
  sendError(res, new CuzkError(code, message), { headers: { 'x-content-type-options': 'nosniff', ...extra } });
}

export class DashboardHandler {
  readonly feed: DashboardFeed;

  constructor(private readonly d: DashboardDeps) {
    this.feed = new DashboardFeed(d.frame, d.log);
  }

  /** Answers a GET it owns and returns true; false leaves the request to the caller. */
  handle(req: Req, res: Res): boolean {
    if (req.method !== 'GET') return false;
    const url = (req.url ?? '/').split('?')[0]!;
    if (url !== '/' && !url.startsWith(ASSET_PREFIX)) return false;
    const authorised = tokenMatches(req.headers.authorization, this.d.token);
    if (url === '/') this.#page(res, authorised);
    else if (url === `${ASSET_PREFIX}snapshot` || url === `${ASSET_PREFIX}events`) {
      if (!authorised) refuse(res, 'E_UNAUTHORIZED', unauthorized().message);
      else if (url.endsWith('events')) this.#stream(res);
      else this.#snapshot(res);
    } else this.#file(res, url);
    return true;
  }

  #file(res: Res, url: string): void {
    const name = url.slice(ASSET_PREFIX.length);
    const asset = this.d.assets.ok && name !== 'index.html' ? this.d.assets.files.get(name) : undefined;
    if (!asset) return refuse(res, 'E_NOT_FOUND', `no dashboard file ${url}`);
    sendText(res, 200, asset.type, asset.body, { 'cache-control': 'no-cache' });
  }

  #snapshot(res: Res): void {
    this.d.frame().then(
      (f) => sendText(res, 200, 'application/json', JSON.stringify(f), { 'cache-control': 'no-store' }),
      (err: unknown) => refuse(res, 'E_UNAVAILABLE', `dashboard frame failed: ${errorMessage(err)}`),
    );
  }

  #page(res: Res, authorised: boolean): void {
    if (!this.d.assets.ok) return refuse(res, 'E_UNAVAILABLE', this.d.assets.problem);
    const page = this.d.assets.files.get('index.html')!;
    // refused, the page is still sent: its login form asks for the token
    sendText(res, authorised ? 200 : STATUS_MAP.E_UNAUTHORIZED.http, page.type, page.body, {
      'content-security-policy': CSP, 'referrer-policy': 'no-referrer', 'cache-control': 'no-store',
      ...(authorised ? {} : { 'www-authenticate': 'Bearer realm="cuzk"' }),
    });
  }

  #stream(res: Res): void {
    // no connection header: HTTP/2 forbids it
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    this.feed.add(res as unknown as Parameters<DashboardFeed['add']>[0]);
  }

  close(): void {
    this.feed.close();
  }
}
