// MemoryBudget: one account over host RAM, pinned memory and each GPU's memory. Every large buffer
// is reserved here before it is allocated and released when its phase ends. A request names bytes
// in one or more pools and is granted whole or not at all (no job holds pinned memory while it
// waits for GPU memory, so two jobs cannot deadlock each other). Within a pool, waiters are served
// strictly in arrival order: a large request is not starved by smaller ones behind it; requests on
// other pools do not wait behind it; a release wakes only the requests it lets through (no
// thundering herd). Before a waiter blocks,
// the registered reclaimers (idle pinned buffers, idle keys) are asked to give memory back.
import { CuzkError, ResourceError } from '../errors.js';

export type PoolName = 'host' | 'pinned' | `gpu:${number}`;
export type Request = Partial<Record<PoolName, number>>;

export interface PoolStatus {
  limit: number;
  used: number;
  peak: number;
  waiters: number;
}

/** Called with the bytes missing per pool (what a request needs beyond what is free); frees what it
 * can (synchronously) and returns. */
export type Reclaimer = (want: Request) => void;

interface Waiter {
  req: Request;
  label: string;
  resolve: (r: Reservation) => void;
  reject: (e: unknown) => void;
  onAbort?: () => void;
  signal?: AbortSignal;
}

/** Memory held from the budget; release() (or release of single pools) gives it back. Idempotent. */
export class Reservation {
  #held: Request;
  constructor(private readonly budget: MemoryBudget, held: Request, readonly label: string) {
    this.#held = { ...held };
  }
  get held(): Readonly<Request> {
    return this.#held;
  }
  /** Moves these amounts into reservations of their own (released separately); this one keeps the rest. */
  split(parts: Request[]): Reservation[] {
    const need: Request = {};
    for (const part of parts) for (const [p, b] of Object.entries(part) as [PoolName, number][]) need[p] = (need[p] ?? 0) + b;
    for (const [p, b] of Object.entries(need) as [PoolName, number][]) {
      if ((this.#held[p] ?? 0) < b) throw new CuzkError('E_INTERNAL', `reservation ${this.label}: cannot split ${b} bytes of ${p} from ${this.#held[p] ?? 0}`);
    }
    for (const [p, b] of Object.entries(need) as [PoolName, number][]) this.#held[p] = this.#held[p]! - b;
    return parts.map((part) => new Reservation(this.budget, part, this.label));
  }

  /** Releases one pool's share (a phase ended) or everything. */
  release(pool?: PoolName): void {
    const give: Request = {};
    for (const [p, b] of Object.entries(this.#held) as [PoolName, number][]) {
      if (pool !== undefined && p !== pool) continue;
      give[p] = b;
      delete this.#held[p];
    }
    this.budget.giveBack(give);
  }
}

export class MemoryBudget {
  readonly #limit = new Map<PoolName, number>();
  readonly #used = new Map<PoolName, number>();
  readonly #peak = new Map<PoolName, number>();
  readonly #waiters: Waiter[] = [];
  readonly #reclaimers: Reclaimer[] = [];

  constructor(limits: Request) {
    for (const [p, b] of Object.entries(limits) as [PoolName, number][]) {
      if (!Number.isSafeInteger(b) || b < 0) throw new CuzkError('E_INVALID_ARG', `memory budget for ${p}: bad limit ${b}`);
      this.#limit.set(p, b);
      this.#used.set(p, 0);
      this.#peak.set(p, 0);
    }
  }

  pools(): PoolName[] {
    return [...this.#limit.keys()];
  }

  onPressure(fn: Reclaimer): void {
    this.#reclaimers.push(fn);
  }

  status(pool: PoolName): PoolStatus {
    return {
      limit: this.#limit.get(pool) ?? 0,
      used: this.#used.get(pool) ?? 0,
      peak: this.#peak.get(pool) ?? 0,
      waiters: this.#waiters.filter((w) => (w.req[pool] ?? 0) > 0).length,
    };
  }

  /** Throws at once when the request could never be granted (larger than a pool's limit). */
  check(req: Request, label: string): void {
    for (const [p, b] of Object.entries(req) as [PoolName, number][]) {
      if (!Number.isSafeInteger(b) || b < 0) throw new CuzkError('E_INVALID_ARG', `${label}: bad byte count ${b} for ${p}`);
      const limit = this.#limit.get(p);
      if (limit === undefined) throw new CuzkError('E_INVALID_ARG', `${label}: no memory pool ${p}`);
      if (b > limit) {
        throw new ResourceError(p.startsWith('gpu') ? 'E_DEVICE_OOM' : 'E_HOST_OOM',
          `${label} needs ${mib(b)} of ${p} memory but the budget allows ${mib(limit)}: raise the ${p} limit or use a machine with more memory`,
          { details: { pool: p, bytes: b, limit } });
      }
    }
  }

  /** Grants now or returns undefined (never waits, never jumps the queue). */
  tryReserve(req: Request, label: string): Reservation | undefined {
    this.check(req, label);
    if (this.#queuedOn(req, this.#waiters.length) || !this.#fits(req)) return undefined;
    return this.#grant(req, label);
  }

  /** Waits in arrival order until the whole request fits. Rejects with E_CANCELLED when `signal` aborts. */
  reserve(req: Request, label: string, signal?: AbortSignal): Promise<Reservation> {
    this.check(req, label);
    if (signal?.aborted) return Promise.reject(cancelled(label));
    const ahead = this.#queuedOn(req, this.#waiters.length);
    if (!ahead && this.#fits(req)) return Promise.resolve(this.#grant(req, label));
    if (!ahead) this.#reclaim(req);
    if (!ahead && this.#fits(req)) return Promise.resolve(this.#grant(req, label));
    return new Promise((resolve, reject) => {
      const w: Waiter = { req, label, resolve, reject, signal };
      if (signal) {
        w.onAbort = () => {
          const i = this.#waiters.indexOf(w);
          if (i >= 0) this.#waiters.splice(i, 1);
          reject(cancelled(label));
          this.#serve();
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      this.#waiters.push(w);
    });
  }

  /** Used by Reservation.release. */
  giveBack(req: Request): void {
    for (const [p, b] of Object.entries(req) as [PoolName, number][]) {
      const u = (this.#used.get(p) ?? 0) - b;
      if (u < 0) throw new CuzkError('E_INTERNAL', `memory budget ${p} released more than it held`);
      this.#used.set(p, u);
    }
    this.#serve();
  }

  #fits(req: Request): boolean {
    for (const [p, b] of Object.entries(req) as [PoolName, number][]) {
      if ((this.#used.get(p) ?? 0) + b > (this.#limit.get(p) ?? 0)) return false;
    }
    return true;
  }

  #grant(req: Request, label: string): Reservation {
    for (const [p, b] of Object.entries(req) as [PoolName, number][]) {
      const u = (this.#used.get(p) ?? 0) + b;
      this.#used.set(p, u);
      if (u > (this.#peak.get(p) ?? 0)) this.#peak.set(p, u);
    }
    return new Reservation(this, req, label);
  }

  #reclaim(req: Request): void {
    for (const fn of this.#reclaimers) {
      const short = this.#shortfall(req);
      if (Object.keys(short).length === 0) return;
      fn(short);
    }
  }

  #shortfall(req: Request): Request {
    const short: Request = {};
    for (const [p, b] of Object.entries(req) as [PoolName, number][]) {
      const over = (this.#used.get(p) ?? 0) + b - (this.#limit.get(p) ?? 0);
      if (over > 0) short[p] = over;
    }
    return short;
  }

  // Whether a waiter before index `before` wants any pool that `req` wants.
  #queuedOn(req: Request, before: number): boolean {
    for (let i = 0; i < before; i++) {
      const w = this.#waiters[i]!.req;
      for (const p of Object.keys(req) as PoolName[]) if ((req[p] ?? 0) > 0 && (w[p] ?? 0) > 0) return true;
    }
    return false;
  }

  // Grants, in arrival order, every waiter that fits and has no earlier waiter on one of its pools.
  #serve(): void {
    let granted = true;
    while (granted) {
      granted = false;
      for (let i = 0; i < this.#waiters.length; i++) {
        const w = this.#waiters[i]!;
        if (this.#queuedOn(w.req, i)) continue;
        if (!this.#fits(w.req)) this.#reclaim(w.req);
        if (!this.#fits(w.req)) continue;
        this.#waiters.splice(i, 1);
        if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
        w.resolve(this.#grant(w.req, w.label));
        granted = true;
        break;
      }
    }
  }
}

function cancelled(label: string): CuzkError {
  return new CuzkError('E_CANCELLED', `${label}: cancelled while waiting for memory`);
}

export function mib(bytes: number): string {
  return bytes >= 1 << 30 ? `${(bytes / 2 ** 30).toFixed(2)} GiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}
