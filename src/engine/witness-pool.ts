// WitnessPool: circom witness generation (wasm) in worker threads, so a job's witness never blocks
// the event loop and several are computed at once. Workers start on first use and are reused; a
// worker that dies fails only its own task and is replaced.
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { CuzkError, type ErrorCode, errorForCode, errorMessage } from '../errors.js';
import { startModuleWorker } from './module-worker.js';

interface Pending {
  resolve: (w: Uint8Array) => void;
  reject: (e: unknown) => void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

const startWorker = (): Worker => startModuleWorker(import.meta.url, 'witness-worker');

export class WitnessPool {
  readonly #slots: Slot[] = [];
  readonly #size: number;
  #next = 0;
  #seq = 0;
  #closed = false;

  constructor(size = Math.max(1, Math.min(4, availableParallelism() - 1))) {
    this.#size = size;
  }

  compute(wasm: string, input: unknown, name: string): Promise<Uint8Array> {
    if (this.#closed) return Promise.reject(new CuzkError('E_INTERNAL', 'WitnessPool used after close()'));
    const slot = this.#slot();
    const id = ++this.#seq;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.ref();  // a pending witness keeps the process alive; an idle pool does not
      slot.worker.postMessage({ id, wasm, input, name });
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#slots.map((s) => s.worker.terminate()));
    this.#slots.length = 0;
  }

  #slot(): Slot {
    if (this.#slots.length < this.#size) return this.#spawn();
    const s = this.#slots[this.#next++ % this.#slots.length]!;
    return s;
  }

  #spawn(): Slot {
    const worker = startWorker();
    worker.unref();
    const slot: Slot = { worker, pending: new Map() };
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
      const i = this.#slots.indexOf(slot);
      if (i >= 0) this.#slots.splice(i, 1);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => { if (slot.pending.size > 0 || code !== 0) fail(new Error(`exit code ${code}`)); });
    this.#slots.push(slot);
    return slot;
  }
}
