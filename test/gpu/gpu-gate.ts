// Whether the GPU suite (test/gpu) runs in this process, and if not, the reason every test reports
// when it skips. It runs only under `npm run test:gpu` (CUZK_GPU_TESTS=1) with the CUDA build loaded
// and a GPU present; `npm test` and machines without a GPU see every test skipped with the reason.
// Also the one place the suite switches cuzk_set_gpu_mode, always back to 'auto' afterwards.
// CUZK_GPU_TESTS=dry runs the suite on any build with both sides on the CPU core and sizes capped:
// it checks the suite's own logic (inputs, comparisons, fixtures) before a GPU machine is booked.
import { loadCore } from '../../src/ffi/load.js';
import { gpuCount, setGpuMode } from '../../src/ffi/native.js';

let cached: string | false | undefined;

/** Dry run: no GPU involved, both sides of every comparison are the CPU core. */
export const DRY = process.env.CUZK_GPU_TESTS === 'dry';
/** The device phase 2 runs on: GPU 0, or the CPU core (-1) in a dry run. */
export const DEVICE = DRY ? -1 : 0;
const DRY_MAX = 1 << 16;

/** `sizes` as given, or only those up to 2^16 in a dry run (the CPU core is the slow side). */
export function sizesToRun(sizes: number[]): number[] {
  return DRY ? sizes.filter((n) => n <= DRY_MAX) : sizes;
}

function probe(): string | false {
  if (DRY) return false;
  if (process.env.CUZK_GPU_TESTS !== '1') return 'GPU suite: runs under `npm run test:gpu` (CUZK_GPU_TESTS=1)';
  try {
    const core = loadCore();
    if (core.backend !== 'cuda') return `no GPU: the CPU core is loaded (${core.libPath}); the GPU suite needs \`CUZK_CUDA=1 npm run build:native\` on a machine with a GPU`;
    if (gpuCount() === 0) return 'no GPU: the CUDA build sees no usable device';
    return false;
  } catch (e) {
    return `no GPU: ${(e as Error).message}`;
  }
}

/** `false` when the GPU suite runs here, else the skip reason (pass it as a test's `skip` option). */
export function gpuSkip(): string | false {
  cached ??= probe();
  return cached;
}

/** Runs `fn` with the automatic entry points pinned to the CPU core ('off') or the GPU ('force'). */
export function onDevice<T>(mode: 'off' | 'force', fn: () => T): T {
  setGpuMode(mode);
  try {
    return fn();
  } finally {
    setGpuMode('auto');
  }
}

/** Async onDevice: the mode holds until the promise settles (tests run one at a time per file). */
export async function onDeviceAsync<T>(mode: 'off' | 'force', fn: () => Promise<T>): Promise<T> {
  setGpuMode(mode);
  try {
    return await fn();
  } finally {
    setGpuMode('auto');
  }
}
