// createEngine(): resolves the configuration against the machine (backend, GPUs, memory) and
// assembles an Engine from its parts, all logging through `config.logger`. The one log line of the
// core load says which backend runs.
import { availableParallelism, totalmem } from 'node:os';
import { CuzkError, DeviceError } from '../errors.js';
import { loadCore } from '../ffi/load.js';
import { gpuCount, gpuDescribe, setThreads } from '../ffi/native.js';
import { log } from '../log.js';
import type { EngineConfig } from './api.js';
import { MemoryBudget, type Request } from './budget.js';
import { DEFAULT_SHARES, gpuLimitBytes } from './memory-shares.js';
import { Engine } from './engine.js';
import { DeviceLane } from './gpu-worker.js';
import { KeyCache } from './key-cache.js';
import { checkPlacementOptions } from './key-placement.js';
import { EngineMetrics } from './metrics.js';
import { PinnedPool } from './pinned-pool.js';
import { SpanRecorder } from './spans.js';
import { openWitnessFile } from './witness-file.js';
import { WitnessPool, witnessSlots } from './witness-pool.js';

/** A background growth chunk: ~0.5-0.8 s of cudaHostAlloc on the H200 machine. */
export const DEFAULT_CHUNK = 1 << 30;

/** The effective configuration: every default filled in from the machine. */
export function resolveConfig(config: EngineConfig = {}): Required<Omit<EngineConfig, 'tracePath' | 'testRandomness' | 'testHooks' | 'memory' | 'logger'>> & Pick<EngineConfig, 'tracePath' | 'testRandomness' | 'testHooks'> & { memory: { host: number; pinned: number; gpu: number } } {
  const ram = totalmem();
  return {
    backend: config.backend ?? 'auto',
    threads: config.threads ?? 0,
    memory: {
      host: config.memory?.host ?? Math.floor(DEFAULT_SHARES.host * ram),
      pinned: config.memory?.pinned ?? Math.floor(DEFAULT_SHARES.pinned * ram),
      gpu: config.memory?.gpu ?? 0, // 0 = each GPU's default share (budget.ts)
    },
    gpu: config.gpu ?? {},
    pinned: config.pinned ?? true,
    pinnedPool: config.pinnedPool ?? {},
    maxQueue: config.maxQueue ?? 1024,
    maxPartitions: config.maxPartitions ?? 64,
    verify: config.verify ?? true,
    keyIdleMs: config.keyIdleMs ?? 0,
    witness: config.witness ?? {},
    openWitness: config.openWitness ?? openWitnessFile,
    tracePath: config.tracePath,
    testRandomness: config.testRandomness,
    testHooks: config.testHooks,
  };
}

export async function createEngine(config: EngineConfig = {}): Promise<Engine> {
  const cfg = resolveConfig(config);
  const logger = config.logger ?? log;
  const core = loadCore(logger);
  if (cfg.threads > 0) setThreads(cfg.threads);
  const gpus = cfg.backend === 'cpu' || core.backend !== 'cuda' ? 0 : gpuCount();
  if (cfg.backend === 'cuda' && gpus === 0) {
    throw new DeviceError('E_NO_DEVICE', `backend "cuda" was asked for but ${core.backend === 'cuda' ? 'no usable GPU was found' : 'the CUDA build is not loaded (build with nvcc present; CUZK_BACKEND=cuda)'}`);
  }
  const placement = { residency: cfg.gpu.keyResidency, chunkPoints: cfg.gpu.streamChunkPoints, chunkRecords: cfg.gpu.streamChunkRecords };
  checkPlacementOptions(placement);
  const limits: Request = { host: cfg.memory.host, pinned: cfg.memory.pinned };
  const lanes: DeviceLane[] = [];
  for (let d = 0; d < gpus; d++) {
    const g = gpuDescribe(d);
    limits[`gpu:${d}`] = gpuLimitBytes(cfg.memory.gpu, g.memoryTotal);
    lanes.push(new DeviceLane(d, g.name, g.memoryTotal, () => gpuDescribe(d).memoryFree));
  }
  for (const [p, b] of Object.entries(limits)) if (!(b! > 0)) throw new CuzkError('E_INVALID_ARG', `memory limit for ${p} must be positive`);
  const budget = new MemoryBudget(limits);
  // the CPU core's memory is the host budget: its limit, and what keys and jobs have not reserved
  const hostFree = () => { const s = budget.status('host'); return s.limit - s.used; };
  const cpuLane = new DeviceLane(-1, 'CPU core', cfg.memory.host, hostFree);
  if (lanes.length === 0) {
    lanes.push(cpuLane);
    for (let k = 1; k <= (cfg.testHooks?.extraCpuLanes ?? 0); k++) lanes.push(new DeviceLane(-1, 'CPU core', cfg.memory.host, hostFree, `cpu:${k}`));
  }
  const usePinned = cfg.pinned;
  const engine = new Engine({
    config: cfg,
    backend: gpus > 0 ? 'cuda' : 'cpu',
    budget,
    pool: new PinnedPool(budget, {
      enabled: usePinned,
      log: logger,
      grow: { targetBytes: cfg.pinnedPool.targetBytes ?? 0, chunkBytes: cfg.pinnedPool.chunkBytes ?? DEFAULT_CHUNK, retryMs: cfg.pinnedPool.retryMs, beforeChunk: cfg.testHooks?.beforePoolChunk },
    }),
    keys: new KeyCache(budget, {
      pinned: gpus > 0, idleMs: cfg.keyIdleMs, log: logger,
      placement,
    }),
    lanes,
    cpuLane,
    witnesses: new WitnessPool({ slots: witnessSlots(availableParallelism(), gpus > 0), ...cfg.witness, budget }),
    spans: new SpanRecorder(),
    metrics: (status) => new EngineMetrics(status),
    log: logger,
  });
  logger.info({ backend: gpus > 0 ? 'cuda' : 'cpu', devices: lanes.map((l) => `${l.id} ${l.name}`), pinned: usePinned, memory: limits }, 'engine started');
  return engine;
}
