// PinnedPool: page-locked buffers allocated by the native core (cudaHostAlloc in the CUDA build) and
// reused across jobs, because pinning costs ~0.5-0.8 s/GiB (shared/perf/h200.md) while an upload
// from pinned memory runs ~7x faster than from pageable memory. The pool is a set of blocks
// (pool-block.ts), each one allocation held in the MemoryBudget's 'pinned' pool for as long as the
// pool owns it, and carved into the buffers that checkouts ask for. With a target size the
// PoolGrower (pool-grower.ts) fills the pool in chunks in the background, so a proof finds its
// buffers there; a checkout allocates (counted in `pathAllocations`) only when no block has room.
// Every native allocation runs on a koffi worker thread: the event loop never waits for pinning.
// Idle blocks above the target are freed after idleMs; under pressure every idle block is (shrink()).
// With `enabled: false` the buffers are ordinary pageable Node heap memory, accounted in 'host':
// the same code path, so the difference can be measured. On the CPU core "pinned" memory is the
// native core's ordinary aligned memory, through the same calls.
import { CuzkError } from '../errors.js';
import { MAX_VIEW_BYTES, NativeBuffer } from '../ffi/native-buffer.js';
import type { Logger } from '../log.js';
import type { PinnedPoolStatus } from './api.js';
import type { MemoryBudget, PoolName, Request, Reservation } from './budget.js';
import { PoolBlock } from './pool-block.js';
import { PoolGrower, type GrowOptions } from './pool-grower.js';

const MiB = 1 << 20;

/** A buffer checked out of the pool; give it back with release() (idempotent). */
export interface PooledBuffer {
  /** Exactly the requested length (the region behind it may be larger). */
  readonly bytes: Uint8Array;
  readonly pinned: boolean;
  release(): void;
}

/** The pool's counters, as EngineStatus reports them. */
export type PinnedPoolStats = PinnedPoolStatus;

export interface PinnedPoolOptions {
  enabled: boolean;
  idleMs?: number;
  /** Background growth to `targetBytes` in chunks (0 or absent: buffers are allocated on demand). */
  grow?: Omit<GrowOptions, 'log'>;
  log?: Logger;
}

export class PinnedPool {
  readonly enabled: boolean;
  readonly pool: PoolName;
  readonly #budget: MemoryBudget;
  readonly #blocks: PoolBlock[] = [];
  readonly #idleMs: number;
  readonly #grower: PoolGrower;
  #allocations = 0;
  #pathAllocations = 0;
  /** Bytes of blocks being freed on a worker thread: still held (in the budget too) until they are. */
  #freeing = 0;
  readonly #log: Logger | undefined;
  #warmAt = -1;
  #closed = false;

  constructor(budget: MemoryBudget, opts: PinnedPoolOptions) {
    this.#budget = budget;
    this.enabled = opts.enabled;
    this.pool = opts.enabled ? 'pinned' : 'host';
    this.#idleMs = opts.idleMs ?? 60_000;
    this.#log = opts.log;
    this.#grower = new PoolGrower({ addChunk: (b) => this.#addChunk(b), heldBytes: () => this.#held() }, { targetBytes: 0, chunkBytes: 0, ...opts.grow, log: opts.log });
    budget.onPressure((want) => {
      if ((want[this.pool] ?? 0) > 0) this.shrink(0);
    });
  }

  /** From now on, allocations count as "after warm-up" (the bench calls this after its warm-up jobs;
   * those must have run as many jobs at once as the measured stream, or the pool is not yet full size). */
  markWarm(): void {
    this.#warmAt = this.#allocations;
  }

  /** Starts the background growth (see PoolGrower.start). `proofs`: the buffer sizes one proof of
   * each loaded key checks out; a chunk holds at least the largest such set. */
  grow(proofs: () => number[][]): Promise<void> {
    return this.#grower.start(() => Math.max(0, ...proofs().map((sizes) => sizes.reduce((a, b) => a + sizeClass(b), 0))));
  }

  stats(): PinnedPoolStats {
    const state = this.#grower.state;
    return {
      enabled: this.enabled,
      buffers: this.#blocks.length,
      bytes: this.#held(),
      inUse: this.#blocks.reduce((n, b) => n + b.busyRegions, 0),
      allocations: this.#allocations,
      allocationsAfterWarmup: this.#warmAt < 0 ? 0 : this.#allocations - this.#warmAt,
      targetBytes: this.#grower.targetBytes,
      growing: state === 'growing',
      growState: state,
      pathAllocations: this.#pathAllocations,
    };
  }

  /** The pool's budget request for a buffer of `bytes` (for admission checks before checkout). */
  request(bytes: number): Request {
    return { [this.pool]: sizeClass(bytes) };
  }

  /** A buffer of at least `bytes`: carved from a block with room (the best fit), else a new one once the budget allows. */
  async checkout(bytes: number, label: string, signal?: AbortSignal): Promise<PooledBuffer> {
    return (await this.checkoutMany([bytes], label, signal))[0]!;
  }

  /** Several buffers at once: the misses are reserved in one budget request, so two jobs that each
   * need two buffers can never each hold one and wait for the other. */
  async checkoutMany(sizes: number[], label: string, signal?: AbortSignal): Promise<PooledBuffer[]> {
    if (this.#closed) throw new CuzkError('E_INTERNAL', 'PinnedPool used after close()');
    const wants = sizes.map(sizeClass);
    // a block may be any size, but a proof's buffer is one Uint8Array (the native calls take it as
    // one): refused before anything is allocated or pinned for it
    const tooBig = sizes.find((n) => n > MAX_VIEW_BYTES);
    if (tooBig !== undefined) {
      throw new CuzkError('E_LIMIT', `${label}: a ${tooBig}-byte buffer is more than one Uint8Array can view (${MAX_VIEW_BYTES}): witnesses of more than 2^27 wires, and the CPU core's A‖B past a 2^26 domain, are not supported yet`);
    }
    const got: ({ block: PoolBlock; offset: number } | undefined)[] = new Array(wants.length);
    // largest first, so a big buffer is not crowded out of a block by a small one of the same job
    for (const i of wants.map((_, k) => k).sort((a, b) => wants[b]! - wants[a]!)) got[i] = this.#take(wants[i]!);
    const missing = wants.filter((_, i) => !got[i]);
    if (missing.length > 0) {
      let fresh: { block: PoolBlock; offset: number }[];
      try {
        fresh = await this.#allocate(missing, label, signal);
      } catch (e) {
        for (const g of got) if (g) g.block.give(g.offset);
        throw e;
      }
      for (let i = 0; i < got.length; i++) got[i] ??= fresh.shift();
    }
    return got.map((g, i) => this.#lend(g!.block, g!.offset, sizes[i]!));
  }

  #lend(block: PoolBlock, offset: number, bytes: number): PooledBuffer {
    let released = false;
    return {
      bytes: block.region(offset, bytes),
      pinned: this.enabled,
      release: () => {
        if (released) return;
        released = true;
        block.give(offset);
        if (block.idle) block.idleSince = Date.now();
        if (this.#closed) this.shrink(0);
        // someone waits for this pool's memory: idle blocks go back to the budget now
        else this.shrink(this.#budget.status(this.pool).waiters > 0 ? 0 : this.#idleMs);
      },
    };
  }

  /** Frees idle blocks idle for at least `idleMs`, keeping the target size unless `idleMs` is 0
   * (pressure, or close: every idle block). Returns bytes freed. */
  shrink(idleMs: number): number {
    const now = Date.now();
    let freed = 0;
    for (let i = this.#blocks.length - 1; i >= 0; i--) {
      const b = this.#blocks[i]!;
      if (!b.idle || now - b.idleSince < idleMs) continue;
      if (idleMs > 0 && this.#held() - b.capacity < this.#grower.targetBytes) continue;
      this.#blocks.splice(i, 1);
      freed += b.capacity;
      this.#free(b);
    }
    if (freed > 0 && !this.#closed) this.#grower.kick();
    return freed;
  }

  /** Stops growth and frees every idle block; blocks still lent out are freed when released. */
  close(): void {
    this.#closed = true;
    this.#grower.stop();
    this.shrink(0);
  }

  #held(): number {
    return this.#blocks.reduce((s, b) => s + b.capacity, this.#freeing);
  }

  // cudaFreeHost is ~0.1 s/GiB: off the event loop while serving (a waiter is granted when the bytes
  // are back in the budget); at close, at once.
  #free(b: PoolBlock): void {
    if (this.#closed || !b.native) return b.free();
    this.#freeing += b.capacity;
    const done = () => {
      this.#freeing -= b.capacity;
      b.reservation.release();
    };
    b.native.releaseAsync().then(done, (err: Error) => {
      this.#log?.error({ bytes: b.capacity, err: err.message }, 'freeing a pinned pool block failed: its bytes stay out of the budget');
      this.#freeing -= b.capacity; // the reservation stays: memory that may still be pinned is not lent again
    });
  }

  #take(want: number): { block: PoolBlock; offset: number } | undefined {
    let best: PoolBlock | undefined;
    let bestLen = Infinity;
    for (const b of this.#blocks) {
      const len = b.bestFit(want);
      if (len !== undefined && len < bestLen) [best, bestLen] = [b, len];
    }
    return best && { block: best, offset: best.take(want)! };
  }

  // A grower chunk: reserved without waiting (growth never queues ahead of a proof), then allocated.
  async #addChunk(bytes: number): Promise<boolean> {
    const want = sizeClass(bytes);
    const reservation = this.#budget.tryReserve({ [this.pool]: want }, 'pinned pool growth');
    if (!reservation) return false;
    const block = await this.#newBlock(want, reservation);
    if (this.#closed) block.free();
    else this.#blocks.push(block);
    return true;
  }

  // Blocks for a checkout's misses, each exactly its size and taken at once (no other checkout can
  // carve it first): one reservation per block (each is freed on its own later), granted together.
  async #allocate(wants: number[], label: string, signal?: AbortSignal): Promise<{ block: PoolBlock; offset: number }[]> {
    const total = wants.reduce((a, b) => a + b, 0);
    let joint = this.#budget.tryReserve({ [this.pool]: total }, label);
    if (!joint) {
      this.shrink(0);
      joint = await this.#budget.reserve({ [this.pool]: total }, label, signal);
    }
    const parts = joint.split(wants.map((w) => ({ [this.pool]: w })));
    const blocks: PoolBlock[] = [];
    try {
      for (const [i, want] of wants.entries()) {
        this.#pathAllocations++;
        blocks.push(await this.#newBlock(want, parts[i]!));
      }
    } catch (e) {
      for (const b of blocks) b.free();
      for (const p of parts.slice(blocks.length)) p.release();
      throw e;
    }
    if (this.#closed) {
      for (const b of blocks) b.free();
      throw new CuzkError('E_CANCELLED', `${label}: the engine closed while its buffers were allocated`);
    }
    this.#blocks.push(...blocks);
    return blocks.map((block) => ({ block, offset: block.take(block.capacity)! }));
  }

  // The reservation is released if the allocation fails.
  async #newBlock(want: number, reservation: Reservation): Promise<PoolBlock> {
    this.#allocations++;
    if (!this.enabled) return new PoolBlock(want, new Uint8Array(want), reservation, undefined);
    try {
      const native = await NativeBuffer.allocAsync(want, { pinned: true });
      return new PoolBlock(want, undefined, reservation, native);
    } catch (e) {
      reservation.release();
      throw e;
    }
  }
}

// Sizes round up to 1 MiB (4 KiB below that), so jobs of one circuit share buffers exactly.
function sizeClass(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new CuzkError('E_INVALID_ARG', `PinnedPool: bad size ${bytes}`);
  const unit = bytes >= MiB ? MiB : 4096;
  return Math.ceil(bytes / unit) * unit;
}
