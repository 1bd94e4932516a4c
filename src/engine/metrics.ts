// Prometheus metrics of one engine (its own prom-client Registry, so several engines in a process,
// as in tests, do not collide). Counters and histograms are fed by spans and job ends; gauges read
// the engine's status object when scraped.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EngineStatus, JobState } from './api.js';
import type { Span } from './spans.js';

export class EngineMetrics {
  readonly registry = new Registry();
  readonly #jobs: Counter<'state'>;
  readonly #proofs: Counter;
  readonly #phase: Histogram<'phase' | 'track'>;
  readonly #h2dBytes: Counter<'track'>;
  readonly #h2dRate: Histogram<'track'>;

  constructor(status: () => EngineStatus) {
    const registers = [this.registry];
    this.#jobs = new Counter({ name: 'cuzk_jobs_total', help: 'Jobs that ended, by final state', labelNames: ['state'], registers });
    this.#proofs = new Counter({ name: 'cuzk_proofs_total', help: 'Proofs returned (verified)', registers });
    this.#phase = new Histogram({
      name: 'cuzk_phase_seconds', help: 'Duration of each proof phase', labelNames: ['phase', 'track'], registers,
      buckets: [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100],
    });
    this.#h2dBytes = new Counter({ name: 'cuzk_h2d_bytes_total', help: 'Bytes copied host to device', labelNames: ['track'], registers });
    this.#h2dRate = new Histogram({
      name: 'cuzk_h2d_gigabytes_per_second', help: 'Rate of each upload (GB/s, from device events)', labelNames: ['track'], registers,
      buckets: [1, 2, 4, 8, 16, 25, 35, 45, 55, 70],
    });
    const gauge = (name: string, help: string, labelNames: string[], read: (g: Gauge<string>, s: EngineStatus) => void) =>
      new Gauge({ name, help, labelNames, registers, collect() { read(this, status()); } });
    gauge('cuzk_queue_depth', 'Jobs waiting, by priority', ['priority'], (g, s) => {
      for (const [p, n] of Object.entries(s.queues)) g.set({ priority: p }, n);
    });
    gauge('cuzk_jobs_running', 'Jobs in the pipeline', [], (g, s) => g.set(s.running));
    gauge('cuzk_device_utilisation', 'Fraction of wall time kernels ran since start (device events)', ['device'], (g, s) => {
      for (const d of s.devices) if (d.utilisation !== null) g.set({ device: d.id }, d.utilisation);
    });
    gauge('cuzk_device_healthy', '1 while the device lane takes work, 0 once a proof on it failed with E_DEVICE_LOST', ['device'], (g, s) => {
      for (const d of s.devices) g.set({ device: d.id }, d.healthy ? 1 : 0);
    });
    gauge('cuzk_memory_used_bytes', 'Memory budget in use, by pool', ['pool'], (g, s) => {
      g.set({ pool: 'host' }, s.budget.host.used);
      g.set({ pool: 'pinned' }, s.budget.pinned.used);
      for (const d of s.budget.gpu) g.set({ pool: d.id }, d.used);
    });
    gauge('cuzk_memory_limit_bytes', 'Memory budget limit, by pool', ['pool'], (g, s) => {
      g.set({ pool: 'host' }, s.budget.host.limit);
      g.set({ pool: 'pinned' }, s.budget.pinned.limit);
      for (const d of s.budget.gpu) g.set({ pool: d.id }, d.limit);
    });
    gauge('cuzk_pinned_pool_bytes', 'Bytes held by the pinned buffer pool', [], (g, s) => g.set(s.pinnedPool.bytes));
    gauge('cuzk_pinned_allocations', 'Pinned buffer allocations since start', [], (g, s) => g.set(s.pinnedPool.allocations));
    gauge('cuzk_pinned_pool_target_bytes', 'Size the pinned pool grows to in the background (0 = on demand)', [], (g, s) => g.set(s.pinnedPool.targetBytes));
    gauge('cuzk_pinned_pool_growing', '1 while the pinned pool adds a chunk in the background', [], (g, s) => g.set(s.pinnedPool.growing ? 1 : 0));
    gauge('cuzk_pinned_path_allocations', 'Pinned allocations a proof waited for (no pooled buffer had room)', [], (g, s) => g.set(s.pinnedPool.pathAllocations));
    gauge('cuzk_witness_queue_jobs', 'Witnesses waiting for a generator slot', [], (g, s) => g.set(s.witness?.queued ?? 0));
    gauge('cuzk_witness_busy_slots', 'Witnesses being computed (wasm workers and native generator processes)', [], (g, s) => g.set(s.witness?.busy ?? 0));
    gauge('cuzk_witness_slots', 'Witnesses computed at once at most (the sizing rule)', [], (g, s) => g.set(s.witness?.slots ?? 0));
    gauge('cuzk_witness_generator_processes', 'Native witness generator processes running', [], (g, s) => g.set(s.witness?.processes ?? 0));
    gauge('cuzk_witness_completed_total', 'Witnesses computed, by result', ['result'], (g, s) => {
      g.set({ result: 'ok' }, s.witness?.done ?? 0);
      g.set({ result: 'failed' }, s.witness?.failed ?? 0);
    });
    gauge('cuzk_witness_mean_seconds', 'Mean wall time per computed witness', [], (g, s) => g.set(s.witness && s.witness.done > 0 ? s.witness.totalMs / s.witness.done / 1000 : 0));
    gauge('cuzk_keys_loaded', 'Proving keys loaded, by residency', ['residency'], (g, s) => {
      g.reset();
      for (const k of s.keys) g.inc({ residency: k.residency });
    });
  }

  span(s: Span): void {
    this.#phase.observe({ phase: s.phase, track: s.track }, s.dur / 1000);
    if (s.phase === 'h2d' && s.bytes && s.dur > 0) {
      this.#h2dBytes.inc({ track: s.track }, s.bytes);
      this.#h2dRate.observe({ track: s.track }, s.bytes / 1e9 / (s.dur / 1000));
    }
  }

  jobEnded(state: JobState, proofs: number): void {
    this.#jobs.inc({ state });
    if (state === 'completed') this.#proofs.inc(proofs);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
