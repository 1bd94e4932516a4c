// DeviceLane: the phase-2 worker of one device (a GPU, or the CPU core as device -1). Phase 2 of
// the proofs on a device runs one at a time (its kernel region is serialised), while phase 1 of the
// next proofs runs on the CPU threads beside it. The lane accounts the wall time it was busy and the
// time kernels ran (from the device's events, reported by the native core), so utilisation is the
// GPU's own measure, not the lane's busy time.
import type { DeviceStatus } from './api.js';

export class DeviceLane {
  readonly id: string;
  readonly device: number;
  readonly name: string;
  readonly memoryTotal: number;
  #tail: Promise<unknown> = Promise.resolve();
  #queued = 0;
  #currentJob: string | undefined;
  #firstUse = 0;
  #busyMs = 0;
  #kernelMs = 0;
  #memoryFree: () => number;

  constructor(device: number, name: string, memoryTotal: number, memoryFree: () => number) {
    this.device = device;
    this.id = device < 0 ? 'cpu' : `gpu:${device}`;
    this.name = name;
    this.memoryTotal = memoryTotal;
    this.#memoryFree = memoryFree;
  }

  /** Tasks waiting or running on this lane (the engine sends work to the least loaded lane). */
  get load(): number {
    return this.#queued;
  }

  /** Runs `fn` after the lane's earlier tasks; `fn` returns the kernel ms it measured. */
  run<T extends { kernelMs: number }>(jobId: string, fn: () => Promise<T>): Promise<T> {
    this.#queued++;
    const result = this.#tail.then(async () => {
      this.#currentJob = jobId;
      const t0 = performance.now();
      if (this.#firstUse === 0) this.#firstUse = t0;
      try {
        const r = await fn();
        this.#kernelMs += r.kernelMs;
        return r;
      } finally {
        this.#busyMs += performance.now() - t0;
        this.#currentJob = undefined;
        this.#queued--;
      }
    });
    this.#tail = result.catch(() => undefined);
    return result;
  }

  /** Cumulative kernel time, for windowed utilisation (the bench samples it before and after). */
  get kernelMs(): number {
    return this.#kernelMs;
  }

  get busyMs(): number {
    return this.#busyMs;
  }

  status(): DeviceStatus {
    const wall = this.#firstUse === 0 ? 0 : performance.now() - this.#firstUse;
    return {
      id: this.id,
      name: this.name,
      memoryTotal: this.memoryTotal,
      memoryFree: this.#memoryFree(),
      currentJob: this.#currentJob,
      utilisation: this.device < 0 || wall === 0 ? null : Math.min(1, this.#kernelMs / wall),
    };
  }
}
