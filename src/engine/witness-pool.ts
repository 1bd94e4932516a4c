// WitnessPool: witness generation off the event loop, both kinds behind one queue: circom's wasm
// in worker threads (the .wtns image comes back as bytes) and native generators (`cuzk witness
// build`) as child processes that write the .wtns to a file the pipeline reads straight into its
// pinned buffer. Sizing rule (docs/architecture.md "Witness generation"): `slots` witnesses at once,
// of which at most `wasmWorkers` wasm; each witness first reserves its memory from the host budget
// (a native generator's peak RSS as measured on its last witness, else an estimate from the wires),
// so the pool is bounded by the cores and by memory alike. Workers and processes start on first
// use and are reused; one that dies fails only its own witness and is replaced.
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { CuzkError, errorForCode, errorMessage, InputError, type ErrorCode } from '../errors.js';
import type { MemoryBudget } from './budget.js';
import { generatorKind } from './generator-file.js';
import { startModuleWorker } from './module-worker.js';
import { NativeGenerator } from './native-generator.js';

export interface WitnessPoolOptions {
  /** Witnesses computed at once, both kinds together (default: witnessSlots()). */
  slots?: number;
  /** Of those, wasm witnesses at once (default: `slots`). */
  wasmWorkers?: number;
  /** Per witness, both kinds; 0 = none (default 300 000). */
  timeoutMs?: number;
  /** RLIMIT_AS of each native generator process (default 16 GiB; 0 = inherit). */
  maxAddressSpaceBytes?: number;
  /** Where native generators write witnesses (default: a fresh folder under the OS temp dir). */
  dir?: string;
  /** Host memory is reserved here per witness when given. */
  budget?: MemoryBudget;
}

/** A computed witness: the .wtns image, or a .wtns file the caller reads and then deletes. */
export type WitnessOutput = { bytes: Uint8Array; file?: undefined } | { file: string; bytes?: undefined };

export interface WitnessStats {
  slots: number;
  wasmWorkers: number;
  queued: number;
  busy: number;
  done: number;
  failed: number;
  /** Total wall time of finished witnesses (ms), for the mean per witness. */
  totalMs: number;
  processes: number;
}

/**
 * The stated rule: with a GPU every core but one computes witnesses (the GPU proves; the event
 * loop, uploads and verification need the one); on the CPU core alone, witnesses get half the
 * cores, since its prover's thread pool is busy with the proofs those witnesses feed.
 */
export function witnessSlots(cores: number, gpu: boolean): number {
  return Math.max(1, gpu ? cores - 1 : Math.floor(cores / 2));
}

/** Memory of one witness before a measurement (bytes): signals (40 B each, ~2 per wire) + the .wtns. */
export const estimateWitnessBytes = (nVars: number, kind: 'wasm' | 'native') => (kind === 'wasm' ? 64 << 20 : 16 << 20) + nVars * (kind === 'wasm' ? 400 : 120);

interface WasmSlot { worker: Worker; pending: Map<number, { resolve: (w: Uint8Array) => void; reject: (e: unknown) => void }> }

export interface ComputeOptions {
  /** The key's wire count: a generator of another circuit is refused before it runs. */
  nVars?: number;
  signal?: AbortSignal;
}

export class WitnessPool {
  readonly #o: Required<Omit<WitnessPoolOptions, 'budget' | 'dir'>> & { dir: string };
  readonly #budget?: MemoryBudget;
  readonly #wasm: WasmSlot[] = [];
  readonly #native = new Map<string, NativeGenerator[]>();
  readonly #waiting: (() => boolean)[] = [];
  readonly #rss = new Map<string, number>();
  readonly #leased = new Set<NativeGenerator>();
  #busy = 0;
  #busyWasm = 0;
  #seq = 0;
  #next = 0;
  #closed = false;
  #dirMade = false;
  readonly #ownDir: boolean;
  readonly #stats = { done: 0, failed: 0, totalMs: 0 };

  constructor(opts: WitnessPoolOptions = {}) {
    const slots = opts.slots ?? witnessSlots(availableParallelism(), false);
    this.#o = {
      slots,
      wasmWorkers: Math.min(slots, opts.wasmWorkers ?? slots),
      timeoutMs: opts.timeoutMs ?? 300_000,
      maxAddressSpaceBytes: opts.maxAddressSpaceBytes ?? 16 * 2 ** 30,
      dir: opts.dir ?? path.join(tmpdir(), `cuzk-witness-${process.pid}-${randomBytes(4).toString('hex')}`),
    };
    this.#budget = opts.budget;
    this.#ownDir = opts.dir === undefined;  // a given folder (the daemon's spool) is not ours to remove
  }

  stats(): WitnessStats {
    let processes = 0;
    for (const l of this.#native.values()) processes += l.length;
    return { slots: this.#o.slots, wasmWorkers: this.#o.wasmWorkers, queued: this.#waiting.length, busy: this.#busy, ...this.#stats, processes };
  }

  /** Process ids of the native generator processes (each forks one child per witness). */
  pids(): number[] {
    return [...this.#native.values()].flat().filter((g) => g.alive).map((g) => g.pid!).filter((p) => p !== undefined);
  }

  /** One witness from `generator` (a .wasm or a native generator); InputError names the input's fault. */
  async compute(generator: string, input: unknown, name: string, opts: ComputeOptions = {}): Promise<WitnessOutput> {
    if (this.#closed) throw new CuzkError('E_INTERNAL', 'WitnessPool used after close()');
    const g = generatorKind(generator);
    const kind = g.kind;
    await this.#acquire(kind, opts.signal);
    const t0 = performance.now();
    let ok = false;
    try {
      const id = kind === 'native' ? `${generator}:${statSync(generator).mtimeMs}:${g.kind === 'native' ? g.bytes : 0}` : generator;
      const bytes = this.#rss.get(id) ?? estimateWitnessBytes(opts.nVars ?? 0, kind);
      const res = this.#budget ? await this.#budget.reserve({ host: bytes }, `${name} generator`, opts.signal) : undefined;
      try {
        const out = kind === 'wasm' ? { bytes: await this.#computeWasm(generator, input, name) } : { file: await this.#computeNative(id, generator, input, name, opts.nVars) };
        ok = true;
        return out;
      } finally {
        res?.release();
      }
    } finally {
      this.#release(kind);
      this.#stats[ok ? 'done' : 'failed']++;
      if (ok) this.#stats.totalMs += performance.now() - t0;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const l of this.#native.values()) for (const g of l) g.close();
    this.#native.clear();
    await Promise.all(this.#wasm.map((s) => s.worker.terminate()));
    this.#wasm.length = 0;
    if (this.#dirMade && this.#ownDir) rmSync(this.#o.dir, { recursive: true, force: true });
  }

  #acquire(kind: 'wasm' | 'native', signal?: AbortSignal): Promise<void> {
    const free = () => this.#busy < this.#o.slots && (kind === 'native' || this.#busyWasm < this.#o.wasmWorkers);
    const take = () => { this.#busy++; if (kind === 'wasm') this.#busyWasm++; };
    if (free() && this.#waiting.length === 0) return (take(), Promise.resolve());
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const i = this.#waiting.indexOf(wake);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal!.reason instanceof Error ? signal!.reason : new CuzkError('E_CANCELLED', 'witness cancelled'));
      };
      const wake = () => {
        if (!free()) return false;
        signal?.removeEventListener('abort', onAbort);
        take();
        resolve();
        return true;
      };
      this.#waiting.push(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #release(kind: 'wasm' | 'native'): void {
    this.#busy--;
    if (kind === 'wasm') this.#busyWasm--;
    // first waiter that fits (a wasm waiter may wait behind the wasm cap while a native one runs)
    for (let i = 0; i < this.#waiting.length; i++) {
      if (this.#waiting[i]!()) { this.#waiting.splice(i, 1); i--; if (this.#busy >= this.#o.slots) break; }
    }
  }

  async #computeNative(id: string, generator: string, input: unknown, name: string, nVars?: number): Promise<string> {
    const proc = this.#process(id, generator);
    this.#leased.add(proc);
    let info;
    try {
      info = await proc.info();
    } catch (err) {
      this.#leased.delete(proc);
      throw err;
    }
    if (nVars !== undefined && info.nVars !== nVars) {
      this.#leased.delete(proc);
      throw new InputError('E_INVALID_ARG', `${generator}: a witness generator of another circuit: it writes ${info.nVars} wires, the proving key has ${nVars}`);
    }
    if (!this.#dirMade) { mkdirSync(this.#o.dir, { recursive: true, mode: 0o700 }); this.#dirMade = true; }
    const file = path.join(this.#o.dir, `w${++this.#seq}.wtns`);
    try {
      const r = await proc.compute(input, file, this.#o.timeoutMs, name);
      if (r.rssBytes > 0) this.#rss.set(id, Math.max(this.#rss.get(id) ?? 0, r.rssBytes));
      return file;
    } catch (e) {
      rmSync(file, { force: true });
      throw e;
    } finally {
      this.#leased.delete(proc);
    }
  }

  /** An idle process of this generator, or a new one (closing an idle one of another generator at the cap). */
  #process(id: string, generator: string): NativeGenerator {
    const own = (this.#native.get(id) ?? []).filter((g) => g.alive);
    this.#native.set(id, own);
    const idle = own.find((g) => !this.#leased.has(g));
    if (idle) return idle;
    let total = 0;
    for (const l of this.#native.values()) total += l.length;
    if (total >= this.#o.slots) {
      for (const [k, l] of this.#native) {
        const i = l.findIndex((g) => !this.#leased.has(g));
        if (i >= 0 && k !== id) { l[i]!.close(); l.splice(i, 1); break; }
      }
    }
    const g = new NativeGenerator(generator, this.#o.maxAddressSpaceBytes);
    own.push(g);
    return g;
  }

  #computeWasm(wasm: string, input: unknown, name: string): Promise<Uint8Array> {
    const slot = this.#wasm.length < this.#o.wasmWorkers ? this.#spawnWasm() : this.#wasm.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    const id = ++this.#seq;
    const limit = this.#o.timeoutMs;
    return new Promise((resolve, reject) => {
      // past the limit the worker is terminated (a wasm loop cannot be interrupted otherwise); its
      // exit fails anything else it held and the next witness starts a fresh worker
      const timer = limit > 0 ? setTimeout(() => {
        slot.pending.delete(id);
        reject(new CuzkError('E_TIMEOUT', `${name}: the witness took longer than its limit of ${limit} ms (${wasm})`));
        const i = this.#wasm.indexOf(slot);
        if (i >= 0) this.#wasm.splice(i, 1); // no new witness goes to a worker being terminated
        void slot.worker.terminate();
      }, limit) : undefined;
      const done = () => clearTimeout(timer);
      slot.pending.set(id, { resolve: (w) => (done(), resolve(w)), reject: (e) => (done(), reject(e)) });
      slot.worker.ref();  // a pending witness keeps the process alive; an idle pool does not
      slot.worker.postMessage({ id, wasm, input, name });
    });
  }

  #spawnWasm(): WasmSlot {
    const worker = startModuleWorker(import.meta.url, 'witness-worker');
    worker.unref();
    const slot: WasmSlot = { worker, pending: new Map() };
    worker.on('message', (m: { id: number; wtns?: Uint8Array; error?: { code: ErrorCode; message: string } }) => {
      const p = slot.pending.get(m.id);
      if (!p) return;
      slot.pending.delete(m.id);
      if (slot.pending.size === 0) slot.worker.unref();
      if (m.error) p.reject(errorForCode(m.error.code, m.error.message));
      else p.resolve(new Uint8Array(m.wtns!.buffer, m.wtns!.byteOffset, m.wtns!.byteLength));
    });
    const fail = (e: unknown) => {
      for (const p of slot.pending.values()) p.reject(new CuzkError('E_INTERNAL', `witness worker failed: ${errorMessage(e)}`));
      slot.pending.clear();
      const i = this.#wasm.indexOf(slot);
      if (i >= 0) this.#wasm.splice(i, 1);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => { if (slot.pending.size > 0 || code !== 0) fail(new Error(`exit code ${code}`)); });
    this.#wasm.push(slot);
    return slot;
  }
}
