// DeviceLane: the phase-2 worker of one device (a GPU, or the CPU core as device -1). On the CPU
// core phase 2 runs one proof at a time. On a GPU two proofs are in phase 2 at once: the native
// core serialises their kernel regions, so one proof's upload and the other's randomisation (host)
// overlap the kernels and the GPU never waits for them; phase 1 of later proofs runs on the CPU
// threads beside both. The lane accounts the wall time it was busy and the
// time kernels ran (from the device's events, reported by the native core), so utilisation is the
// GPU's own measure, not the lane's busy time.
import type { DeviceStatus } from './api.js';

export class DeviceLane {
  readonly id: string;
  readonly device: number;
  readonly name: string;
  readonly memoryTotal: number;
  readonly slots: number;
  readonly #waiting: (() => void)[] = [];
  #active = 0;
  #queued = 0;
  #currentJob: string | undefined;
  #firstUse = 0;
  #busyMs = 0; // wall time with at least one task running
  #busySince = 0;
  #kernelMs = 0;
  #memoryFree: () => number;

  constructor(device: number, name: string, memoryTotal: number, memoryFree: () => number) {
    this.device = device;
    this.id = device < 0 ? 'cpu' : `gpu:${device}`;
    this.name = name;
    this.memoryTotal = memoryTotal;
    this.#memoryFree = memoryFree;
    this.slots = device < 0 ? 1 : 2;
  }

  /** Tasks waiting or running on this lane (the engine sends work to the least loaded lane). */
  get load(): number {
    return this.#queued;
  }

  /** Runs `fn` when one of the lane's slots is free (in arrival order); `fn` returns the kernel ms it measured. */
  async run<T extends { kernelMs: number }>(jobId: string, fn: () => Promise<T>): Promise<T> {
    this.#queued++;
    if (this.#active >= this.slots) await new Promise<void>((r) => this.#waiting.push(r));
    if (this.#active++ === 0) this.#busySince = performance.now();
    this.#currentJob = jobId;
    if (this.#firstUse === 0) this.#firstUse = performance.now();
    try {
      const r = await fn();
      this.#kernelMs += r.kernelMs;
      return r;
    } finally {
      if (--this.#active === 0) this.#busyMs += performance.now() - this.#busySince;
      this.#queued--;
      if (this.#currentJob === jobId) this.#currentJob = undefined;
      this.#waiting.shift()?.();
    }
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
