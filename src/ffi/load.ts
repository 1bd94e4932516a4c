// Finds and loads the native core and logs one line saying which backend runs, once per process:
// libcuzk_cuda.so when it was built and a usable GPU is present, else libcuzk_cpu.so.
// CUZK_BACKEND=cpu forces the CPU core, CUZK_BACKEND=cuda insists on the GPU (an error without
// one); CUZK_LIB overrides the path. CUZK_NATIVE_TEST_HOOKS=1 (scripts/test.mjs and test-gpu.mjs set
// it) loads the test twins instead, libcuzk_{cuda,cpu}_test.so, whose cuzk_test.h hooks abi.ts then
// binds; a library named *_test.so through CUZK_LIB counts as one too.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import koffi from 'koffi';
import { CuzkError } from '../errors.js';
import { log, type Logger } from '../log.js';
import { declare, type Abi } from './abi.js';
import { noteLibraryOpened } from './core-state.js';

export interface LoadedCore {
  abi: Abi;
  backend: 'cpu' | 'cuda';
  libPath: string;
  /** ms spent loading: opening the libraries (dlopen, the ABI bound) and asking the CUDA build about
   * its GPUs (cuzk_cuda_available: the driver's start, no context), for start-up breakdowns. */
  startMs: { open: number; probe: number };
}

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
// Works both from src/ffi (tsx) and dist/src/ffi (compiled): climb to the folder with package.json.
function findRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    dir = path.dirname(dir);
  }
  return projectRoot;
}

let loaded: LoadedCore | undefined;

/** Whether `libPath` is a test library (native/CMakeLists.txt's <name>_test targets). */
export function isTestLibrary(libPath: string): boolean {
  return /_test\.so$/.test(path.basename(libPath));
}

function open(libPath: string): Abi {
  try {
    const abi = declare(koffi.load(libPath), { hooks: isTestLibrary(libPath), libPath });
    noteLibraryOpened(abi.backend_name() === 'cuda' ? 'cuda' : 'cpu');
    return abi;
  } catch (cause) {
    throw new CuzkError('E_INTERNAL', `cannot load the native core ${libPath}: ${(cause as Error).message}; run \`npm run build:native\``, { cause });
  }
}

// The NVIDIA driver's control device: present wherever its kernel module is loaded (and in a container
// given GPUs). With it, a CUDA build is worth loading before the driver has been asked anything.
// CUZK_NVIDIA_CTL names another file (tests: the deferred road on a machine without the driver).
const nvidiaCtl = () => process.env.CUZK_NVIDIA_CTL ?? '/dev/nvidiactl';

/**
 * `logger` hears the backend line, on the first call only (the core is loaded once per process).
 * `deferGpuProbe` (the one-shot prover, which asks first): a CUDA build is loaded on the sight of the
 * driver's device alone, without asking the driver about its GPUs here (its start, cuInit, can take
 * ~0.1 s and more): the caller then starts it on a worker thread (cuzk_gpu_warm) beside its first work,
 * which needs no GPU, and calls noUsableGpu() if that finds none.
 */
export function loadCore(logger: Logger = log, opts: { deferGpuProbe?: boolean } = {}): LoadedCore {
  if (loaded) return loaded;
  const buildDir = process.env.CUZK_BUILD_DIR ?? path.join(findRoot(), 'build', 'native');
  const twin = process.env.CUZK_NATIVE_TEST_HOOKS === '1' ? '_test' : '';
  const cpuPath = path.join(buildDir, `libcuzk_cpu${twin}.so`);
  const cudaPath = path.join(buildDir, `libcuzk_cuda${twin}.so`);
  let libPath = process.env.CUZK_LIB ?? '';
  let reason = 'CUZK_LIB';
  const startMs = { open: 0, probe: 0 };
  const timed = <T>(what: 'open' | 'probe', fn: () => T): T => {
    const t0 = performance.now();
    try {
      return fn();
    } finally {
      startMs[what] += performance.now() - t0;
    }
  };
  if (!libPath) {
    const want = process.env.CUZK_BACKEND ?? 'auto';
    if (want !== 'cpu' && existsSync(cudaPath)) {
      const abi = timed('open', () => open(cudaPath));
      if (opts.deferGpuProbe && existsSync(nvidiaCtl())) {
        loaded = { abi, backend: 'cuda', libPath: cudaPath, startMs };
        logger.info({ lib: cudaPath, threads: abi.get_threads() }, 'cuzk backend: CUDA (its GPUs asked for beside the first work)');
        return loaded;
      }
      if (timed('probe', () => abi.cuda_available()) === 1) {
        loaded = { abi, backend: 'cuda', libPath: cudaPath, startMs };
        logger.info({ lib: cudaPath, threads: abi.get_threads() }, `cuzk backend: CUDA (${abi.gpu_count()} GPU${abi.gpu_count() === 1 ? '' : 's'})`);
        return loaded;
      }
      reason = 'no usable GPU';
    } else {
      reason = want === 'cpu' ? 'CUZK_BACKEND=cpu' : 'no CUDA build';
    }
    if (want === 'cuda') {
      throw new CuzkError('E_NO_DEVICE', `CUZK_BACKEND=cuda but ${reason === 'no CUDA build' ? `there is no CUDA build at ${cudaPath} (build with nvcc present: CUZK_CUDA=1 npm run build:native)` : 'no usable GPU was found'}`);
    }
    libPath = cpuPath;
  }
  if (!existsSync(libPath)) {
    throw new CuzkError('E_INTERNAL', `native core not found at ${libPath}: run \`npm run build:native\` (needs cmake and g++)`);
  }
  const abi = timed('open', () => open(libPath));
  const backend = abi.backend_name() === 'cuda' && timed('probe', () => abi.cuda_available()) === 1 ? 'cuda' : 'cpu';
  loaded = { abi, backend, libPath, startMs };
  logger.info({ lib: libPath, threads: abi.get_threads() }, `cuzk backend: ${backend === 'cuda' ? 'CUDA' : 'CPU core'} (${reason})`);
  return loaded;
}

/** After loadCore({ deferGpuProbe }): the CUDA build found no usable GPU, so this process's proofs run
 * on the CPU core (inside the CUDA build, whose host code is the CPU core's); E_NO_DEVICE instead when
 * CUZK_BACKEND=cuda insists on a GPU. */
export function noUsableGpu(logger: Logger = log): void {
  if (!loaded || loaded.backend !== 'cuda') return;
  if (process.env.CUZK_BACKEND === 'cuda') throw new CuzkError('E_NO_DEVICE', 'CUZK_BACKEND=cuda but no usable GPU was found');
  loaded.backend = 'cpu';
  logger.info({ lib: loaded.libPath }, 'cuzk backend: CPU core (no usable GPU; the CUDA build runs it)');
}
