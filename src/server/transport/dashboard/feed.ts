// The dashboard's live feed: server-sent events. One frame is built per tick while any page listens
// (none otherwise) and written to every listener; a listener that does not read is dropped once
// MAX_BUFFERED_BYTES wait for it, so a stalled page holds no more than that. Frames are built one
// at a time, and the next tick waits at least LOAD_FACTOR times as long as the last frame took, so
// the page never takes more than ~1/LOAD_FACTOR of the event loop (a frame of a minute at ~13
// proofs/s took 55-115 ms on 2 shared cores: a tick every 1-1.2 s).
import { errorMessage } from '../../../errors.js';
import type { Logger } from '../../../log.js';

export const TICK_MS = 1000;
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
// a comment line now and then keeps proxies and idle timers from closing a quiet stream
const KEEPALIVE_TICKS = 15;
const LOAD_FACTOR = 10;

/** What the feed writes to: node's HTTP/1.1 and HTTP/2 compatibility responses both fit. */
export interface FeedResponse {
  writableLength: number;
  write(chunk: string): boolean;
  destroy(): void;
  once(event: 'close', fn: () => void): unknown;
}

export class DashboardFeed {
  readonly #listeners = new Set<FeedResponse>();
  #timer: NodeJS.Timeout | undefined;
  #building = false;
  #ticks = 0;
  #closed = false;

  constructor(
    private readonly frame: () => Promise<unknown>,
    private readonly log: Logger,
    private readonly tickMs = TICK_MS,
  ) {}

  get listeners(): number {
    return this.#listeners.size;
  }

  /** Starts streaming to `res` (its headers already sent): a frame at once, then one per tick. */
  add(res: FeedResponse): void {
    if (this.#closed) return void res.destroy();
    this.#listeners.add(res);
    res.once('close', () => {
      this.#listeners.delete(res);
      if (this.#listeners.size === 0) this.#stop();
    });
    res.write(`retry: ${2 * this.tickMs}\n\n`);
    if (this.#timer === undefined && !this.#building) void this.#tick();
  }

  async #tick(): Promise<void> {
    this.#timer = undefined;
    if (this.#building || this.#listeners.size === 0) return;
    this.#building = true;
    const started = performance.now();
    let text: string;
    try {
      text = `event: frame\ndata: ${JSON.stringify(await this.frame())}\n\n`;
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'dashboard frame failed: the page keeps its last one');
      text = `event: problem\ndata: ${JSON.stringify({ message: errorMessage(err) })}\n\n`;
    } finally {
      this.#building = false;
    }
    if (++this.#ticks % KEEPALIVE_TICKS === 0) text = `: keepalive\n\n${text}`;
    for (const res of this.#listeners) {
      if (res.writableLength > MAX_BUFFERED_BYTES) {
        this.log.info({ bufferedBytes: res.writableLength }, 'dashboard stream dropped: the page does not read it');
        res.destroy();
        continue;
      }
      res.write(text);
    }
    if (this.#listeners.size > 0 && !this.#closed) {
      this.#timer = setTimeout(() => void this.#tick(), Math.max(this.tickMs, LOAD_FACTOR * (performance.now() - started))).unref();
    }
  }

  #stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Ends every stream (the daemon is closing its listener). */
  close(): void {
    this.#closed = true;
    this.#stop();
    for (const res of this.#listeners) res.destroy();
    this.#listeners.clear();
  }
}
