#!/usr/bin/env node
// Builds the native core with CMake (run by `npm install`): build/native/libcuzk_cpu.so always,
// libcuzk_cuda.so too where nvcc exists and CUZK_CUDA is not 0, each with its test twin
// (libcuzk_*_test.so: the same objects plus the test hooks, what npm test loads). The CUDA build takes minutes, so it
// is announced before it starts, with how long and how to skip it. A failed build says why and what to do.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** What `cmake` configured, from CMakeCache.txt's text: the CUDA compiler found, and the CUZK_CUDA option. */
export function readCache(text) {
  const compiler = /^CMAKE_CUDA_COMPILER:[A-Z]+=(.+)$/m.exec(text)?.[1]?.trim();
  const option = /^CUZK_CUDA:BOOL=(.+)$/m.exec(text)?.[1]?.trim();
  return { cudaCompiler: compiler && !compiler.endsWith('-NOTFOUND') ? compiler : undefined, cudaOption: option === undefined ? undefined : !/^(OFF|0|FALSE|NO)$/i.test(option) };
}

/** Whether an existing configuration must be redone: asked for, or CUZK_CUDA set against what the cache holds. */
export function needsReconfigure(env, cache) {
  if (env.CUZK_RECONFIGURE) return true;
  if (env.CUZK_CUDA === undefined || cache.cudaOption === undefined) return false;
  return (env.CUZK_CUDA !== '0') !== cache.cudaOption;
}

/**
 * Whether to build the CUDA core now, and the line that says so before it starts. The times are
 * measured: a full build is ~6-15 min on 2 cores (nvcc instantiates the MSM and NTT kernels per
 * curve and group), and shrinks with cores; a rebuild of an existing library is incremental.
 */
export function cudaPlan({ env, cache, cudaTargetExists, cudaLibExists, cores }) {
  if (env.CUZK_CUDA === '0' || !cache.cudaCompiler || !cudaTargetExists) return { build: false };
  if (cudaLibExists) return { build: true, notice: 'cuzk: checking the CUDA core (rebuilt only if its sources changed; CUZK_CUDA=0 skips it)' };
  const lo = Math.max(1, Math.ceil(12 / cores));
  const hi = Math.max(2, Math.ceil(30 / cores));
  return {
    build: true,
    notice: `cuzk: building the CUDA core now (nvcc: ${cache.cudaCompiler}); this takes roughly ${lo}-${hi} minutes on ${cores} core${cores === 1 ? '' : 's'}. ` +
      'The CPU core is built and works without it. To skip it: Ctrl-C, then CUZK_CUDA=0 npm install (or CUZK_CUDA=0 npm run build:native).',
  };
}

function main() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const buildDir = process.env.CUZK_BUILD_DIR ?? path.join(root, 'build', 'native');
  const cores = Math.max(1, cpus().length);
  const jobs = String(cores);
  const cachePath = path.join(buildDir, 'CMakeCache.txt');

  function run(cmd, args, { fatal = true } = {}) {
    const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root });
    if (!fatal) return r.status === 0;
    if (r.error && r.error.code === 'ENOENT') {
      console.error(`cuzk: native build needs \`${cmd}\` on PATH (install it, e.g. apt-get install cmake g++), then run npm run build:native`);
      process.exit(1);
    }
    if (r.status !== 0) {
      console.error(`cuzk: native build failed at \`${cmd} ${args.join(' ')}\` (exit ${r.status}); see the compiler output above, fix it, then run npm run build:native`);
      process.exit(1);
    }
  }

  const args = ['-S', path.join(root, 'native'), '-B', buildDir, '-DCMAKE_BUILD_TYPE=Release'];
  if (process.env.CUZK_CUDA !== undefined) args.push(`-DCUZK_CUDA=${process.env.CUZK_CUDA === '0' ? 'OFF' : 'ON'}`);
  if (!existsSync(cachePath) || needsReconfigure(process.env, readCache(readFileSync(cachePath, 'utf8')))) run('cmake', args);
  // one target a call: the first re-runs CMake where native/CMakeLists.txt changed, after which make
  // knows targets that the old Makefile did not (a build dir from before the _test twins)
  run('cmake', ['--build', buildDir, '-j', jobs, '--target', 'cuzk_cpu']);
  run('cmake', ['--build', buildDir, '-j', jobs, '--target', 'cuzk_cpu_test']);
  console.log(`cuzk: CPU core built in ${path.relative(root, buildDir) || '.'}`);
  // The CUDA library is optional: where nvcc exists it is built too, but a failure there leaves the
  // CPU core in place (with a clear warning) instead of failing the install.
  const plan = cudaPlan({
    env: process.env,
    cache: readCache(readFileSync(cachePath, 'utf8')),
    cudaTargetExists: existsSync(path.join(buildDir, 'CMakeFiles', 'cuzk_cuda.dir')),
    cudaLibExists: existsSync(path.join(buildDir, 'libcuzk_cuda.so')),
    cores,
  });
  if (!plan.build) return;
  console.log(plan.notice);
  const cudaBuilt = run('cmake', ['--build', buildDir, '-j', jobs, '--target', 'cuzk_cuda'], { fatal: false }) &&
    run('cmake', ['--build', buildDir, '-j', jobs, '--target', 'cuzk_cuda_test'], { fatal: false });
  if (cudaBuilt) {
    console.log('cuzk: CUDA core built (used at run time when a GPU is present)');
  } else {
    console.warn('cuzk: WARNING: the CUDA core failed to build (see above); the CPU core will be used. Set CUZK_CUDA=0 to skip it.');
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
