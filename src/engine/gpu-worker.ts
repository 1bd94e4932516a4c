// DeviceLane: the phase-2 worker of one device (a GPU, or the CPU core as device -1). On the CPU
// core phase 2 runs one proof at a time, after the proof's synthesis on the CPU threads. On a GPU
// two proofs are in phase 2 at once, each synthesizing on the device: the native core serialises
// their kernel regions, so one proof's upload and the other's randomisation (host) overlap the
// kernels and the GPU never waits for them. The lane accounts the wall time it was busy and the
// time kernels ran (from the device's events, reported by the native core), so utilisation is the
// GPU's own measure, not the lane's busy time. A proof failing with E_DEVICE_LOST marks the lane
// unhealthy for good: it runs nothing more, and the proofs waiting for its slots are bounced
// (E_DEVICE_LOST, details.ran false) so that the engine runs them on another lane.
import { CuzkError, DeviceError } from '../errors.js';
import type { DeviceStatus } from './api.js';

export class DeviceLane {
  readonly id: string;
  readonly device: number;
  readonly name: string;
  readonly memoryTotal: number;
  readonly slots: number;
  /** Called once, when the lane is marked unhealthy (the engine logs it and moves its work). */
  onUnhealthy: (lane: DeviceLane) => void = () => undefined;
  readonly #waiting: (() => void)[] = [];
  #active = 0;
  #queued = 0;
  #currentJob: string | undefined;
  #firstUse = 0;
  #busyMs = 0; // wall time with at least one task running
  #busySince = 0;
  #kernelMs = 0;
  #unhealthy: string | undefined;
  #memoryFree: () => number;

  /** `id`: default 'cpu' or 'gpu:N' (tests name extra CPU-core lanes 'cpu:1', ...). */
  constructor(device: number, name: string, memoryTotal: number, memoryFree: () => number, id?: string) {
    this.device = device;
    this.id = id ?? (device < 0 ? 'cpu' : `gpu:${device}`);
    this.name = name;
    this.memoryTotal = memoryTotal;
    this.#memoryFree = memoryFree;
    this.slots = device < 0 ? 1 : 2;
  }

  /** Tasks waiting or running on this lane (the engine sends work to the least loaded lane). */
  get load(): number {
    return this.#queued;
  }

  get healthy(): boolean {
    return this.#unhealthy === undefined;
  }

  /** Why the lane was marked unhealthy (the first E_DEVICE_LOST's message); undefined while healthy. */
  get unhealthyReason(): string | undefined {
    return this.#unhealthy;
  }

  /** Takes the lane out of service for good; the proofs waiting for its slots are bounced. */
  markUnhealthy(reason: string): void {
    if (this.#unhealthy !== undefined) return;
    this.#unhealthy = reason;
    for (const wake of this.#waiting.splice(0)) wake();
    this.onUnhealthy(this);
  }

  /** Runs `fn` when one of the lane's slots is free (in arrival order); `fn` returns the kernel ms it
   * measured. Throws E_DEVICE_LOST without running `fn` once the lane is unhealthy (details.ran false),
   * and marks the lane unhealthy when `fn` throws E_DEVICE_LOST. */
  async run<T extends { kernelMs: number }>(jobId: string, fn: () => Promise<T>): Promise<T> {
    this.#refuseIfUnhealthy();
    this.#queued++;
    if (this.#active >= this.slots) await new Promise<void>((r) => this.#waiting.push(r));
    if (!this.healthy) {
      this.#queued--;
      this.#refuseIfUnhealthy();
    }
    if (this.#active++ === 0) this.#busySince = performance.now();
    this.#currentJob = jobId;
    if (this.#firstUse === 0) this.#firstUse = performance.now();
    try {
      const r = await fn();
      this.#kernelMs += r.kernelMs;
      return r;
    } catch (err) {
      if (err instanceof CuzkError && err.code === 'E_DEVICE_LOST') this.markUnhealthy(err.message);
      throw err;
    } finally {
      if (--this.#active === 0) this.#busyMs += performance.now() - this.#busySince;
      this.#queued--;
      if (this.#currentJob === jobId) this.#currentJob = undefined;
      this.#waiting.shift()?.();
    }
  }

  #refuseIfUnhealthy(): void {
    if (this.#unhealthy === undefined) return;
    throw new DeviceError('E_DEVICE_LOST', `${this.id} is unhealthy (${this.#unhealthy}): the proof was not run there`, { details: { device: this.id, ran: false } });
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
      kernelMs: this.device < 0 ? null : this.#kernelMs,
      healthy: this.healthy,
      ...(this.#unhealthy === undefined ? {} : { unhealthyReason: this.#unhealthy }),
    };
  }
}

/** The lanes that take work: the healthy ones, or the CPU core once no lane of `lanes` is healthy. */
export function servingLanes(lanes: readonly DeviceLane[], cpuLane: DeviceLane): DeviceLane[] {
  const healthy = lanes.filter((l) => l.healthy);
  if (healthy.length > 0) return healthy;
  return cpuLane.healthy ? [cpuLane] : [];
}

/** The unhealthy lanes with their reasons, for messages: "gpu:0: <reason>; cpu: <reason>". */
export function lostLanes(lanes: readonly DeviceLane[], cpuLane: DeviceLane): string {
  return [...new Set([...lanes, cpuLane])].filter((l) => !l.healthy).map((l) => `${l.id}: ${l.unhealthyReason}`).join('; ');
}
