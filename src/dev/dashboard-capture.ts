// The dashboard's frames of a loaded daemon, kept for a replay elsewhere (scripts/dashboard-replay.mjs,
// where a browser exists and the GPU machine has none): GET /dashboard/snapshot, the frame the page
// draws, once per `everyMs` while the bench's window runs, with the bench's token. Only the newest
// frames are kept, at most `maxFrames` and `maxBytes` of them, so the file fits what comes back from
// the GPU machine (16 MiB a file); each frame is kept as the daemon's JSON text, not parsed again.
import { writeFileSync } from 'node:fs';
import { errorMessage, InputError } from '../errors.js';

export interface CaptureOptions {
  /** the daemon's TCP address as CuzkClient takes it: host:port or http(s)://host:port */
  address: string;
  token?: string;
  everyMs?: number;
  maxFrames?: number;
  maxBytes?: number;
}

export interface Capture {
  /** frames fetched (dropped ones too) and the problems seen (at most 5 kept) */
  fetched: number;
  problems: string[];
  /** the newest frames, oldest first, as JSON text */
  frames: string[];
}

export interface DashboardCapture {
  /** what is kept so far (live; read it, do not change it) */
  readonly seen: Capture;
  /** Ends the capture after the fetch in flight; the frames kept. */
  stop(): Promise<Capture>;
}

const FETCH_TIMEOUT_MS = 10_000;

export function snapshotUrl(address: string): string {
  if (address.startsWith('unix:')) throw new InputError('E_INVALID_ARG', `dashboard capture needs a TCP address, not ${address}: listen on host:port`);
  return `${/^https?:\/\//.test(address) ? address.replace(/\/$/, '') : `http://${address}`}/dashboard/snapshot`;
}

export function captureDashboard(opts: CaptureOptions): DashboardCapture {
  const url = snapshotUrl(opts.address);
  const everyMs = opts.everyMs ?? 1000;
  const maxFrames = opts.maxFrames ?? 30;
  const maxBytes = opts.maxBytes ?? 12 * 1024 * 1024;
  const headers: Record<string, string> = opts.token ? { authorization: `Bearer ${opts.token}` } : {};
  const c: Capture = { fetched: 0, problems: [], frames: [] };
  let bytes = 0;
  let stopped = false;
  let wake = () => {};
  const problem = (p: string) => void (c.problems.length < 5 && c.problems.push(p));

  const loop = async () => {
    while (!stopped) {
      const started = performance.now();
      try {
        const res = await fetch(url, { headers, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
        const text = await res.text();
        if (!res.ok) problem(`GET ${url} answered ${res.status}: ${text.slice(0, 200)}`);
        else {
          c.fetched++;
          c.frames.push(text);
          bytes += text.length;
          while (c.frames.length > maxFrames || (bytes > maxBytes && c.frames.length > 1)) bytes -= c.frames.shift()!.length;
        }
      } catch (err) {
        problem(`GET ${url}: ${errorMessage(err)}`);
      }
      const wait = everyMs - (performance.now() - started);
      if (!stopped && wait > 0) await new Promise<void>((resolve) => { wake = resolve; setTimeout(resolve, wait).unref(); });
    }
  };
  const running = loop();
  return {
    seen: c,
    stop: async () => {
      stopped = true;
      wake();
      await running;
      return c;
    },
  };
}

/** Writes `{ label, fetched, problems, frames: [...] }`; returns the frames written. */
export function writeCapture(file: string, label: string, c: Capture): number {
  writeFileSync(file, `{"label":${JSON.stringify(label)},"fetched":${c.fetched},"problems":${JSON.stringify(c.problems)},"frames":[${c.frames.join(',')}]}\n`);
  return c.frames.length;
}
