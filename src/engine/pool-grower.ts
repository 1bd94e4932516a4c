// PoolGrower: fills the pinned pool up to its configured size in the background, one chunk at a
// time, so that pinning (cudaHostAlloc, ~0.5-0.8 s/GiB on the H200 machine) happens before proofs
// need the memory, not on their path. Each chunk is reserved in the MemoryBudget without waiting
// (tryReserve: growth never queues ahead of a proof) and then allocated on a koffi worker thread.
// A chunk is at least what one proof of the largest loaded key needs, so the first chunk alone
// serves a proof. When the budget has no room (keys, running proofs, a pressure shrink), growth
// pauses as 'blocked' and retries every `retryMs`.
import type { Logger } from '../log.js';
import type { PinnedPoolStatus } from './api.js';
import { mib } from './budget.js';
import { errorMessage } from '../errors.js';

export interface GrowTarget {
  /** Reserves and allocates one chunk of `bytes` into the pool; false when the budget has no room now. */
  addChunk(bytes: number): Promise<boolean>;
  /** Bytes the pool holds now (grown chunks and buffers allocated on a checkout's path). */
  heldBytes(): number;
}

export interface GrowOptions {
  targetBytes: number;
  chunkBytes: number;
  retryMs?: number;
  /** Test-only: awaited before each chunk is reserved (EngineConfig.testHooks.beforePoolChunk). */
  beforeChunk?: (chunk: { index: number; bytes: number }) => Promise<void>;
  log?: Logger;
}

export type GrowState = PinnedPoolStatus['growState'];

const MiB = 1 << 20;

export class PoolGrower {
  readonly targetBytes: number;
  readonly #chunkBytes: number;
  readonly #retryMs: number;
  readonly #opts: GrowOptions;
  #state: GrowState;
  #chunks = 0;
  #minProof: () => number = () => 0;
  #running = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #saidBlocked = false;

  constructor(private readonly pool: GrowTarget, opts: GrowOptions) {
    this.targetBytes = Math.floor(Math.max(0, opts.targetBytes) / MiB) * MiB;
    this.#chunkBytes = Math.max(MiB, Math.ceil(opts.chunkBytes / MiB) * MiB);
    this.#retryMs = opts.retryMs ?? 5000;
    this.#opts = opts;
    this.#state = this.targetBytes > 0 ? 'idle' : 'off';
  }

  get state(): GrowState {
    return this.#state;
  }

  get chunks(): number {
    return this.#chunks;
  }

  /** Starts growing (once; later calls only update `minProof`). Resolves when the first chunk is in
   * the pool, or growth stopped short (full, blocked, closed): what the daemon waits for before it is ready. */
  start(minProof: () => number): Promise<void> {
    this.#minProof = minProof;
    if (this.#state === 'off' || this.#running || this.#stopped) return Promise.resolve();
    return new Promise((resolve) => void this.#loop(resolve));
  }

  /** The pool gave memory back below the target (pressure): grow again after `retryMs`. */
  kick(): void {
    if (this.#state === 'full' && this.pool.heldBytes() < this.targetBytes) {
      this.#state = 'blocked';
      this.#retry();
    }
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #retry(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#loop(() => undefined), this.#retryMs);
    this.#timer.unref();
  }

  async #loop(firstChunk: () => void): Promise<void> {
    if (this.#running || this.#stopped) return firstChunk();
    this.#running = true;
    this.#state = 'growing';
    const log = this.#opts.log;
    const t0 = performance.now();
    if (!this.#saidBlocked) log?.info({ targetBytes: this.targetBytes, heldBytes: this.pool.heldBytes(), chunkBytes: this.#chunkBytes }, `pinned pool growing in the background to ${mib(this.targetBytes)}`);
    try {
      for (;;) {
        const missing = this.targetBytes - this.pool.heldBytes();
        if (missing <= 0) {
          this.#state = 'full';
          log?.info({ bytes: this.pool.heldBytes(), chunks: this.#chunks, ms: Math.round(performance.now() - t0) }, `pinned pool at its target, ${mib(this.targetBytes)}`);
          return;
        }
        const bytes = Math.min(missing, Math.max(this.#chunkBytes, this.#minProof()));
        await this.#opts.beforeChunk?.({ index: this.#chunks, bytes });
        if (this.#stopped) return;
        const c0 = performance.now();
        if (!(await this.pool.addChunk(bytes))) {
          this.#blocked(`the pinned budget has no room for another ${mib(bytes)} now (keys or proofs hold it)`);
          return;
        }
        this.#chunks++;
        this.#saidBlocked = false;
        log?.debug({ chunk: this.#chunks, bytes, heldBytes: this.pool.heldBytes(), ms: Math.round(performance.now() - c0) }, 'pinned pool chunk allocated');
        firstChunk();
      }
    } catch (err) {
      this.#blocked(`allocating a chunk failed: ${errorMessage(err)}`);
    } finally {
      this.#running = false;
      firstChunk();
    }
  }

  #blocked(why: string): void {
    if (this.#stopped) return;
    this.#state = 'blocked';
    // said once per stall, not at every retry
    if (!this.#saidBlocked) this.#opts.log?.warn({ heldBytes: this.pool.heldBytes(), targetBytes: this.targetBytes, retryMs: this.#retryMs }, `pinned pool growth paused: ${why}; retried in ${this.#retryMs} ms`);
    this.#saidBlocked = true;
    this.#retry();
  }
}
