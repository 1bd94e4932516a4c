// `cuzk doctor`'s checks of the native core (src/server may not load it): the backend and each GPU
// (memory free and the engine's budget for it, memory another process holds) as the engine would
// see them at start (createEngine's rules), and a short timed pinned-memory probe on the GPU backend.
import path from 'node:path';
import { loadCore } from '../ffi/load.js';
import { gpuCount, gpuDescribe } from '../ffi/native.js';
import { gpuLimitBytes } from '../engine/memory-shares.js';
import { NativeBuffer } from '../ffi/native-buffer.js';
import type { Logger } from '../log.js';
import type { ServeConfig } from '../server/startup/config.js';
import { GiB, gib, type Check, type GpuSeen } from '../server/startup/preflight.js';
import { errorMessage } from '../errors.js';

// our own CUDA context takes ~0.5 GiB of each GPU; more in use than this is another process's
const OTHER_PROCESS_GPU_BYTES = GiB;
const PIN_PROBE_BYTES = 2 * GiB;
const PIN_PROBE_CHUNK = 256 * 1024 * 1024;
const PIN_PROBE_MS = 3000;

/** The backend line and one line per GPU; returns the GPUs the engine would use. */
export function backendChecks(cfg: ServeConfig, logger: Logger, checks: Check[]): GpuSeen[] {
  let core;
  try {
    core = loadCore(logger);
  } catch (err) {
    checks.push({ check: 'backend', status: 'fail', found: errorMessage(err), action: 'build the native core (npm run build:native), or unset CUZK_BACKEND' });
    return [];
  }
  const n = cfg.backend === 'cpu' || core.backend !== 'cuda' ? 0 : gpuCount();
  if (n === 0) {
    const why = cfg.backend === 'cpu' ? 'engine.backend = cpu' : core.backend === 'cuda' ? 'no usable GPU was found' : `no GPU was found (core ${path.basename(core.libPath)})`;
    if (cfg.backend === 'cuda') checks.push({ check: 'backend', status: 'fail', found: `backend "cuda" was asked for but ${why}`, action: 'check nvidia-smi and that the CUDA build exists (CUZK_CUDA=1 npm run build:native), or set backend = "auto"' });
    else checks.push({ check: 'backend', status: cfg.backend === 'cpu' ? 'ok' : 'warn', found: `CPU core: ${why}; proofs run on the CPU`, action: cfg.backend === 'cpu' ? undefined : 'for the GPU: check nvidia-smi and build with CUZK_CUDA=1 npm run build:native' });
    return [];
  }
  checks.push({ check: 'backend', status: 'ok', found: `CUDA, ${n} GPU${n === 1 ? '' : 's'} (${path.basename(core.libPath)})` });
  const gpus: GpuSeen[] = [];
  for (let d = 0; d < n; d++) {
    const g = gpuDescribe(d);
    const limitBytes = gpuLimitBytes(cfg.memoryGpu, g.memoryTotal); // as createEngine
    gpus.push({ ...g, limitBytes });
    checks.push(gpuCheck({ ...g, limitBytes }));
  }
  return gpus;
}

export function gpuCheck(g: GpuSeen): Check {
  const used = g.memoryTotal - g.memoryFree;
  const found = `${g.name} (sm ${g.computeCapability}), ${gib(g.memoryFree)} free of ${gib(g.memoryTotal)}, budget ${gib(g.limitBytes)}`;
  const check = `gpu ${g.index}`;
  if (g.memoryFree < g.limitBytes) {
    return { check, status: 'fail', found: `${found}: the budget does not fit, ${gib(used)} is held by another process`, action: `stop that process (nvidia-smi names it), or set engine.memory_gpu_bytes below ${g.memoryFree}` };
  }
  if (used > OTHER_PROCESS_GPU_BYTES) return { check, status: 'warn', found: `${found}; ${gib(used)} is held by another process`, action: 'nvidia-smi names it; it competes for this GPU' };
  return { check, status: 'ok', found };
}

/** Pins up to 2 GiB (never more than the budget) in 256 MiB pieces for at most ~3 s, then frees it:
 * what pinning costs now (cudaHostAlloc is ~0.5-0.8 s/GiB on the H200, ../shared/perf/h200.md). */
function pinProbe(pinnedBudget: number): Check {
  const target = Math.min(PIN_PROBE_BYTES, pinnedBudget);
  const held: NativeBuffer[] = [];
  const t0 = performance.now();
  let failure: string | undefined;
  try {
    while (held.length * PIN_PROBE_CHUNK < target && performance.now() - t0 < PIN_PROBE_MS) held.push(NativeBuffer.alloc(Math.min(PIN_PROBE_CHUNK, target - held.length * PIN_PROBE_CHUNK), { pinned: true }));
  } catch (err) {
    failure = errorMessage(err);
  }
  const ms = performance.now() - t0;
  const bytes = held.reduce((s, b) => s + b.byteLength, 0);
  for (const b of held) b.release();
  const secPerGib = bytes > 0 ? ms / 1000 / (bytes / GiB) : 0;
  const found = `pinned ${gib(bytes)} in ${(ms / 1000).toFixed(2)} s (${secPerGib.toFixed(2)} s/GiB): the ${gib(pinnedBudget)} budget would take ~${((secPerGib * pinnedBudget) / GiB).toFixed(0)} s to pin`;
  if (failure && bytes < target) return { check: 'pinned probe', status: 'fail', found: `pinning failed after ${gib(bytes)}: ${failure}`, action: 'free memory (another process may hold pinned memory), or lower engine.memory_pinned_bytes' };
  return { check: 'pinned probe', status: 'ok', found };
}

/** The probe where something is pinned (the GPU backend with engine.pinned on), else why not. */
export function pinnedCheck(cfg: Pick<ServeConfig, 'pinned'>, gpus: readonly GpuSeen[], pinnedBudget: number): Check {
  if (gpus.length === 0) return { check: 'pinned probe', status: 'ok', found: 'skipped: the CPU core pins nothing (no GPU backend)' };
  if (!cfg.pinned) return { check: 'pinned probe', status: 'ok', found: 'skipped: engine.pinned is off (pageable buffers)' };
  return pinProbe(pinnedBudget);
}
