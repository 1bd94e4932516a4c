#!/usr/bin/env node
// `npm run test:gpu`: the GPU suite (test/gpu: MSM, NTT and whole proofs on the GPU against the CPU
// core, proofs verified by snarkjs) with the CUDA build. Builds nothing: run
// `CUZK_CUDA=1 npm run build:native` first. Files run one at a time (one GPU; the CPU core side uses
// every core); TAP on stdout. Without a GPU every test skips with a reason and this exits 0, unless
// `--require-gpu` (then a skip for want of a GPU is a failure). `--dry` runs the suite's logic on
// the CPU core alone (both sides CPU, sizes capped). Arguments narrow the run to files.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

const args = process.argv.slice(2);
const requireGpu = args.includes('--require-gpu');
const dry = args.includes('--dry');
const named = args.filter((a) => !a.startsWith('--'));
const files = named.length ? named : readdirSync('test/gpu').filter((f) => f.endsWith('.test.ts')).sort().map((f) => path.join('test/gpu', f));

const env = {
  ...process.env,
  CUZK_GPU_TESTS: dry ? 'dry' : '1',
  CUZK_LOG: process.env.CUZK_LOG ?? 'warn',
  // the test twins of the native core (libcuzk_*_test.so, with cuzk_test.h's hooks; src/ffi/load.ts)
  CUZK_NATIVE_TEST_HOOKS: process.env.CUZK_NATIVE_TEST_HOOKS ?? '1',
};
if (!dry) env.CUZK_BACKEND = process.env.CUZK_BACKEND ?? 'cuda';

const t0 = Date.now();
console.error(`npm run test:gpu: ${files.length} files${dry ? ' (dry run: CPU core on both sides)' : ''}`);
const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=tap', ...files], {
  env,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let tap = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tap += chunk.toString();
});
child.on('close', (code, signal) => {
  const seconds = ((Date.now() - t0) / 1000).toFixed(0);
  const noGpu = (tap.match(/# SKIP no GPU: .*/g) ?? []);
  if (noGpu.length) console.error(`npm run test:gpu: ${noGpu.length} tests skipped: ${noGpu[0].slice('# SKIP '.length)}`);
  console.error(`npm run test:gpu: exit ${code ?? signal} after ${seconds} s`);
  if (code === 0 && requireGpu && noGpu.length) {
    console.error('npm run test:gpu: --require-gpu: failing because the GPU suite did not run');
    process.exit(1);
  }
  process.exit(code ?? 1);
});
