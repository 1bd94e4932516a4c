// NativeBuffer: memory allocated by the native core (page-locked in the CUDA build when `pinned`)
// and seen by TypeScript as a Uint8Array without a copy. The owner must call release() exactly
// once; after that the view is detached and must not be used. Its address can be stored in
// structs that outlive a call (the proving key borrows such buffers). A key's sections are
// `allocMapped` (an anonymous mapping the parallel reads fault in) and pinned after they are
// filled (`pinAsync`: cudaHostRegister in place, ~0.04 s/GiB, against ~0.5-0.8 s/GiB to allocate
// pinned memory). A buffer may be any size the host can map (a 2^25 key's coefficient section is
// 5 GB); what JavaScript can see of it at once is bounded (MAX_VIEW_BYTES), so a buffer past that is
// handed to native code by address and read from TypeScript through view(offset, length) windows.
import { constants } from 'node:buffer';
import koffi from 'koffi';
import { CuzkError } from '../errors.js';
import { loadCore } from './load.js';
import { callAsync } from './native.js';
import { check, newErrorSlot } from './status.js';

/** cuzk_mem_kind */
const MEM = { plain: 0, pinned: 1, mapped: 2 } as const;

/** The most bytes one Uint8Array can view (2^32 on Node 20-22: a typed array's length limit). koffi
 * aborts the process on a larger view (seen with an 8.35 GiB pinned buffer), so `bytes` and view()
 * refuse one first; the buffer itself is not bounded by this. */
export const MAX_VIEW_BYTES = constants.MAX_LENGTH;

/** Why `byteLength` cannot be a NativeBuffer, or undefined when it can. */
function sizeProblem(what: string, byteLength: number): CuzkError | undefined {
  if (!Number.isSafeInteger(byteLength) || byteLength <= 0) return new CuzkError('E_INVALID_ARG', `${what}: bad size ${byteLength}`);
  return undefined;
}

export class NativeBuffer {
  readonly byteLength: number;
  /** Page-locked where a GPU is (asked for at alloc, or pinAsync() done). */
  #pinned: boolean;
  readonly mapped: boolean;
  #ptr: bigint;
  #live = true;
  // Made on first use: V8 counts a view's bytes as external memory and, past its limit, runs a full
  // GC (a 2^16 key's 35 MB of sections made every `cuzk prove` pay a ~10 ms mark-compact), while
  // most buffers (key sections, the CPU core's A‖B) are only ever handed to native code by address.
  #bytes: Uint8Array | undefined;

  private constructor(ptr: bigint, byteLength: number, pinned: boolean, mapped = false) {
    this.#ptr = ptr;
    this.byteLength = byteLength;
    this.#pinned = pinned;
    this.mapped = mapped;
  }

  get pinned(): boolean {
    return this.#pinned;
  }

  /** cuzk_mem_alloc of `kind`, on this thread; the address. */
  static #allocKind(what: string, byteLength: number, kind: number): bigint {
    const bad = sizeProblem(what, byteLength);
    if (bad) throw bad;
    const out: bigint[] = [0n];
    const slot = newErrorSlot();
    const stack = new Error();
    check(loadCore().abi.mem_alloc(byteLength, kind, out, slot), slot, 'cuzk_mem_alloc', stack);
    return out[0]!;
  }

  /** Allocates `byteLength` bytes (contents undefined). Throws E_HOST_OOM when the core cannot. */
  static alloc(byteLength: number, opts: { pinned?: boolean } = {}): NativeBuffer {
    const ptr = NativeBuffer.#allocKind('NativeBuffer.alloc', byteLength, opts.pinned ? MEM.pinned : MEM.plain);
    return new NativeBuffer(ptr, byteLength, opts.pinned ?? false);
  }

  /** A private anonymous mapping (2 MiB-aligned, huge pages advised with CUZK_HUGEPAGES=1; no page touched yet) that
   * pinAsync() can page-lock once it is filled. Throws E_HOST_OOM when the core cannot map it. */
  static allocMapped(byteLength: number): NativeBuffer {
    return new NativeBuffer(NativeBuffer.#allocKind('NativeBuffer.allocMapped', byteLength, MEM.mapped), byteLength, false, true);
  }

  /** alloc() on a koffi worker thread: cudaHostAlloc costs ~0.5-0.8 s/GiB, which must not stall the
   * event loop (the pinned pool grows through this). */
  static async allocAsync(byteLength: number, opts: { pinned?: boolean } = {}): Promise<NativeBuffer> {
    const bad = sizeProblem('NativeBuffer.allocAsync', byteLength);
    if (bad) throw bad;
    const out: bigint[] = [0n];
    const kind = opts.pinned ? MEM.pinned : MEM.plain;
    await callAsync('cuzk_mem_alloc', (slot, cb) => loadCore().abi.mem_alloc.async(byteLength, kind, out, slot, cb));
    return new NativeBuffer(out[0]!, byteLength, opts.pinned ?? false);
  }

  /** Page-locks a mapped buffer in place, on a koffi worker thread (a no-op in the CPU build or
   * without a GPU, but `pinned` is then true all the same, as for alloc({ pinned })). E_HOST_OOM when
   * the system will not lock it (memlock limit). */
  async pinAsync(): Promise<void> {
    if (!this.mapped) throw new CuzkError('E_INVALID_ARG', 'NativeBuffer.pinAsync: only a mapped buffer (allocMapped) can be pinned in place');
    if (this.#pinned) return;
    const ptr = this.pointer;
    await callAsync('cuzk_mem_pin', (slot, cb) => loadCore().abi.mem_pin.async(ptr, slot, cb));
    this.#pinned = true;
  }

  /** The whole buffer as one Uint8Array: only for a buffer of at most MAX_VIEW_BYTES (E_INTERNAL
   * past it, a caller that should have used view()). */
  get bytes(): Uint8Array {
    if (!this.#live) throw new CuzkError('E_INTERNAL', 'NativeBuffer used after release()');
    if (this.byteLength > MAX_VIEW_BYTES) {
      throw new CuzkError('E_INTERNAL', `NativeBuffer.bytes: ${this.byteLength} bytes is more than one Uint8Array can view (${MAX_VIEW_BYTES}): read it through view(offset, length)`);
    }
    return (this.#bytes ??= new Uint8Array(koffi.view(this.#ptr, this.byteLength)));
  }

  /** Bytes [offset, offset + length) as a Uint8Array over the same memory (no copy), anywhere in a
   * buffer of any size; `length` at most MAX_VIEW_BYTES. Not cached: each call is a fresh view. */
  view(offset: number, length: number): Uint8Array {
    const ptr = this.pointer;
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 || offset + length > this.byteLength) {
      throw new CuzkError('E_INVALID_ARG', `NativeBuffer.view(${offset}, ${length}): outside its ${this.byteLength} bytes`);
    }
    if (length > MAX_VIEW_BYTES) throw new CuzkError('E_INVALID_ARG', `NativeBuffer.view(${offset}, ${length}): more than one Uint8Array can view (${MAX_VIEW_BYTES})`);
    if (length === 0) return new Uint8Array(0);
    return new Uint8Array(koffi.view(ptr + BigInt(offset), length));
  }

  /** The native address, for struct fields that outlive a call. */
  get pointer(): bigint {
    if (!this.#live) throw new CuzkError('E_INTERNAL', 'NativeBuffer used after release()');
    return this.#ptr;
  }

  /** Native address of byte `offset` inside this buffer. */
  pointerAt(offset: number): bigint {
    if (offset < 0 || offset > this.byteLength) throw new CuzkError('E_INVALID_ARG', `pointerAt(${offset}) outside ${this.byteLength} bytes`);
    return this.pointer + BigInt(offset);
  }

  get released(): boolean {
    return !this.#live;
  }

  release(): void {
    if (!this.#live) return;
    this.#live = false;
    this.#bytes = undefined;
    const slot = newErrorSlot();
    check(loadCore().abi.mem_free(this.#ptr, slot), slot, 'cuzk_mem_free');
    this.#ptr = 0n;
  }

  /** release() on a koffi worker thread (cudaFreeHost costs ~0.1 s/GiB). The buffer is unusable at once. */
  releaseAsync(): Promise<void> {
    if (!this.#live) return Promise.resolve();
    this.#live = false;
    this.#bytes = undefined;
    const ptr = this.#ptr;
    this.#ptr = 0n;
    return callAsync('cuzk_mem_free', (slot, cb) => loadCore().abi.mem_free.async(ptr, slot, cb));
  }
}
