// PoolBlock: one allocation of the pinned pool (a native buffer, or heap memory with `pinned: off`),
// carved into contiguous regions so that a chunk the background grower allocated can hold the
// buffers of several proofs of any size. Regions are kept sorted by offset and cover the block;
// a freed region merges with free neighbours, so a block whose proofs have all ended is one free
// region again (and only then may it be freed). Offsets stay multiples of the size classes
// (4 KiB / 1 MiB), so every region is as aligned as a fresh allocation.
import type { NativeBuffer } from '../ffi/native-buffer.js';
import type { Reservation } from './budget.js';

interface Region {
  offset: number;
  length: number;
  busy: boolean;
}

export class PoolBlock {
  readonly #regions: Region[];
  idleSince = 0;

  /** `heap` with `pinned: off`, else undefined and `native` holds the block (of any size: a region
   * is viewed on its own, so only a region must fit one Uint8Array). */
  constructor(
    readonly capacity: number,
    private readonly heap: Uint8Array | undefined,
    readonly reservation: Reservation,
    readonly native: NativeBuffer | undefined,
  ) {
    this.#regions = [{ offset: 0, length: capacity, busy: false }];
  }

  /** Bytes [offset, offset + length) of the block, as a Uint8Array over its memory. */
  region(offset: number, length: number): Uint8Array {
    return this.native ? this.native.view(offset, length) : this.heap!.subarray(offset, offset + length);
  }

  /** The smallest free region that holds `want` bytes (its length; undefined: none). */
  bestFit(want: number): number | undefined {
    let best: number | undefined;
    for (const r of this.#regions) if (!r.busy && r.length >= want && (best === undefined || r.length < best)) best = r.length;
    return best;
  }

  /** Marks `want` bytes of the best-fitting free region busy and returns their offset (undefined: no room). */
  take(want: number): number | undefined {
    let at = -1;
    for (let i = 0; i < this.#regions.length; i++) {
      const r = this.#regions[i]!;
      if (!r.busy && r.length >= want && (at < 0 || r.length < this.#regions[at]!.length)) at = i;
    }
    if (at < 0) return undefined;
    const r = this.#regions[at]!;
    if (r.length > want) this.#regions.splice(at + 1, 0, { offset: r.offset + want, length: r.length - want, busy: false });
    r.length = want;
    r.busy = true;
    return r.offset;
  }

  /** Frees the busy region at `offset`, merging it with free neighbours. */
  give(offset: number): void {
    const i = this.#regions.findIndex((r) => r.offset === offset && r.busy);
    if (i < 0) return;
    this.#regions[i]!.busy = false;
    const next = this.#regions[i + 1];
    if (next && !next.busy) {
      this.#regions[i]!.length += next.length;
      this.#regions.splice(i + 1, 1);
    }
    const prev = this.#regions[i - 1];
    if (prev && !prev.busy) {
      prev.length += this.#regions[i]!.length;
      this.#regions.splice(i, 1);
    }
  }

  get busyRegions(): number {
    return this.#regions.filter((r) => r.busy).length;
  }

  /** No region is checked out. */
  get idle(): boolean {
    return this.#regions.length === 1 && !this.#regions[0]!.busy;
  }

  free(): void {
    this.native?.release();
    this.reservation.release();
  }
}
