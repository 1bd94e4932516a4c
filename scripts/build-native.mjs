#!/usr/bin/env node
// Builds the native core with CMake (run by `npm install`): build/native/libcuzk_cpu.so always,
// libcuzk_cuda.so too where nvcc exists and CUZK_CUDA is not 0. A failed build says why and what to do.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = process.env.CUZK_BUILD_DIR ?? path.join(root, 'build', 'native');
const jobs = String(Math.max(1, cpus().length));

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
if (process.env.CUZK_CUDA === '0') args.push('-DCUZK_CUDA=OFF');
if (!existsSync(path.join(buildDir, 'CMakeCache.txt')) || process.env.CUZK_RECONFIGURE) run('cmake', args);
run('cmake', ['--build', buildDir, '-j', jobs, '--target', 'cuzk_cpu']);
console.log(`cuzk: CPU core built in ${path.relative(root, buildDir) || '.'}`);
// The CUDA library is optional: where nvcc exists it is built too, but a failure there leaves the
// CPU core in place (with a clear warning) instead of failing the install.
const cache = readFileSync(path.join(buildDir, 'CMakeCache.txt'), 'utf8');
const cudaConfigured = /^CMAKE_CUDA_COMPILER:[A-Z]+=.+$/m.test(cache) && existsSync(path.join(buildDir, 'CMakeFiles', 'cuzk_cuda.dir'));
if (cudaConfigured) {
  if (run('cmake', ['--build', buildDir, '-j', jobs, '--target', 'cuzk_cuda'], { fatal: false })) {
    console.log('cuzk: CUDA core built (used at run time when a GPU is present)');
  } else {
    console.warn('cuzk: WARNING: the CUDA core failed to build (see above); the CPU core will be used. Set CUZK_CUDA=0 to skip it.');
  }
}
