// PinnedPool: page-locked buffers allocated by the native core (cudaHostAlloc in the CUDA build) and
// reused across jobs, because pinning costs ~0.5-0.8 s/GiB (shared/perf/h200.md) while an upload
// from pinned memory runs ~7x faster than from pageable memory. Each buffer's bytes are held in the
// MemoryBudget's 'pinned' pool for as long as the pool owns it; checkout() reuses a free buffer of a
// fitting size and allocates only on a miss, so after warm-up no allocation happens on the proof
// path. Idle buffers are freed after idleMs or when the budget is under pressure (shrink()).
// With `enabled: false` the buffers are ordinary pageable Node heap memory, accounted in 'host':
// the same code path, so the difference can be measured.
import { CuzkError } from '../errors.js';
import { NativeBuffer } from '../ffi/native-buffer.js';
import type { PinnedPoolStatus } from './api.js';
import type { MemoryBudget, PoolName, Request, Reservation } from './budget.js';

const MiB = 1 << 20;

interface Slot {
  capacity: number;
  bytes: Uint8Array;
  native?: NativeBuffer;
  reservation: Reservation;
  idleSince: number;
}

/** A buffer checked out of the pool; give it back with release() (idempotent). */
export interface PooledBuffer {
  /** Exactly the requested length (the buffer behind it may be larger). */
  readonly bytes: Uint8Array;
  readonly pinned: boolean;
  release(): void;
}

/** The pool's counters, as EngineStatus reports them. */
export type PinnedPoolStats = PinnedPoolStatus;

export class PinnedPool {
  readonly enabled: boolean;
  readonly pool: PoolName;
  readonly #budget: MemoryBudget;
  readonly #free: Slot[] = [];
  readonly #busy = new Set<Slot>();
  readonly #idleMs: number;
  #allocations = 0;
  #warmAt = -1;
  #closed = false;

  constructor(budget: MemoryBudget, opts: { enabled: boolean; idleMs?: number }) {
    this.#budget = budget;
    this.enabled = opts.enabled;
    this.pool = opts.enabled ? 'pinned' : 'host';
    this.#idleMs = opts.idleMs ?? 60_000;
    budget.onPressure((want) => {
      if ((want[this.pool] ?? 0) > 0) this.shrink(0);
    });
  }

  /** From now on, allocations count as "after warm-up" (the bench calls this after its warm-up jobs;
   * those must have run as many jobs at once as the measured stream, or the pool is not yet full size). */
  markWarm(): void {
    this.#warmAt = this.#allocations;
  }

  stats(): PinnedPoolStats {
    const all = [...this.#free, ...this.#busy];
    return {
      enabled: this.enabled,
      buffers: all.length,
      bytes: all.reduce((s, b) => s + b.capacity, 0),
      inUse: this.#busy.size,
      allocations: this.#allocations,
      allocationsAfterWarmup: this.#warmAt < 0 ? 0 : this.#allocations - this.#warmAt,
    };
  }

  /** The pool's budget request for a buffer of `bytes` (for admission checks before checkout). */
  request(bytes: number): Request {
    return { [this.pool]: sizeClass(bytes) };
  }

  /** A buffer of at least `bytes`: a free one that fits (smallest first), else a new one once the budget allows. */
  async checkout(bytes: number, label: string, signal?: AbortSignal): Promise<PooledBuffer> {
    return (await this.checkoutMany([bytes], label, signal))[0]!;
  }

  /** Several buffers at once: the misses are reserved in one budget request, so two jobs that each
   * need two buffers can never each hold one and wait for the other. */
  async checkoutMany(sizes: number[], label: string, signal?: AbortSignal): Promise<PooledBuffer[]> {
    if (this.#closed) throw new CuzkError('E_INTERNAL', 'PinnedPool used after close()');
    const wants = sizes.map(sizeClass);
    const slots: (Slot | undefined)[] = wants.map((w) => this.#take(w));
    const missing = wants.filter((_, i) => !slots[i]);
    if (missing.length > 0) {
      let fresh: Slot[];
      try {
        fresh = await this.#allocate(missing, label, signal);
      } catch (e) {
        for (const s of slots) if (s) this.#free.push(s);
        throw e;
      }
      for (let i = 0; i < slots.length; i++) if (!slots[i]) slots[i] = fresh.shift();
    }
    return slots.map((slot, i) => this.#lend(slot!, sizes[i]!));
  }

  #lend(slot: Slot, bytes: number): PooledBuffer {
    this.#busy.add(slot);
    let released = false;
    return {
      bytes: slot.bytes.subarray(0, bytes),
      pinned: this.enabled,
      release: () => {
        if (released) return;
        released = true;
        this.#busy.delete(slot);
        slot.idleSince = Date.now();
        if (this.#closed) this.#free_(slot);
        else this.#free.push(slot);
        // someone waits for this pool's memory: idle buffers go back to the budget now
        this.shrink(this.#budget.status(this.pool).waiters > 0 ? 0 : this.#idleMs);
      },
    };
  }

  /** Frees free buffers idle for at least `idleMs` (0 = all free buffers). Returns bytes freed. */
  shrink(idleMs: number): number {
    const now = Date.now();
    let freed = 0;
    for (let i = this.#free.length - 1; i >= 0; i--) {
      const s = this.#free[i]!;
      if (now - s.idleSince < idleMs) continue;
      this.#free.splice(i, 1);
      freed += s.capacity;
      this.#free_(s);
    }
    return freed;
  }

  /** Frees every free buffer; buffers still checked out are freed when released. */
  close(): void {
    this.#closed = true;
    this.shrink(0);
  }

  #take(want: number): Slot | undefined {
    let best = -1;
    for (let i = 0; i < this.#free.length; i++) {
      const c = this.#free[i]!.capacity;
      // reuse a buffer up to twice the size wanted; a much larger one stays for a larger job
      if (c >= want && c <= 2 * want && (best < 0 || c < this.#free[best]!.capacity)) best = i;
    }
    return best < 0 ? undefined : this.#free.splice(best, 1)[0];
  }

  // One reservation per buffer (each is freed on its own later), granted together.
  async #allocate(wants: number[], label: string, signal?: AbortSignal): Promise<Slot[]> {
    const total = wants.reduce((a, b) => a + b, 0);
    let joint = this.#budget.tryReserve({ [this.pool]: total }, label);
    if (!joint) {
      this.shrink(0);
      joint = await this.#budget.reserve({ [this.pool]: total }, label, signal);
    }
    const parts = joint.split(wants.map((w) => ({ [this.pool]: w })));
    const slots: Slot[] = [];
    try {
      for (const [i, want] of wants.entries()) {
        const reservation = parts[i]!;
        this.#allocations++;
        if (!this.enabled) {
          slots.push({ capacity: want, bytes: new Uint8Array(want), reservation, idleSince: 0 });
          continue;
        }
        try {
          const native = NativeBuffer.alloc(want, { pinned: true });
          slots.push({ capacity: want, bytes: native.bytes, native, reservation, idleSince: 0 });
        } catch (e) {
          reservation.release();
          throw e;
        }
      }
      return slots;
    } catch (e) {
      for (const s of slots) this.#free_(s);
      for (const p of parts.slice(slots.length)) p.release();
      throw e;
    }
  }

  #free_(s: Slot): void {
    s.native?.release();
    s.reservation.release();
  }
}

// Sizes round up to 1 MiB (4 KiB below that), so jobs of one circuit share buffers exactly.
function sizeClass(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes <= 0) throw new CuzkError('E_INVALID_ARG', `PinnedPool: bad size ${bytes}`);
  const unit = bytes >= MiB ? MiB : 4096;
  return Math.ceil(bytes / unit) * unit;
}
