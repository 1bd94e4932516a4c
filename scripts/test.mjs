#!/usr/bin/env node
// `npm test`: typecheck, then every test/**/*.test.ts with node's test runner (through tsx).
// Arguments narrow the run: `npm test -- test/native` or a file. Test files run one process each,
// two at a time at most (CI has 2 cores; native code uses its own threads).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

const targets = process.argv.slice(2);

function collect(p, out) {
  const st = statSync(p);
  if (st.isDirectory()) {
    for (const e of readdirSync(p).sort()) {
      if (e === 'vectors' || e === 'node_modules') continue;
      // the GPU suite runs under `npm run test:gpu`; test/native/gpu-absent.test.ts checks here
      // that it skips with its reason on a machine without a GPU
      if (!targets.length && p === 'test' && e === 'gpu') continue;
      collect(path.join(p, e), out);
    }
  } else if (p.endsWith('.test.ts')) out.push(p);
  return out;
}

const files = (targets.length ? targets : ['test']).flatMap((t) => collect(t, []));
if (files.length === 0) {
  console.error(`npm test: no test files under ${targets.join(' ') || 'test'}`);
  process.exit(1);
}

if (!targets.length) {
  const tc = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.test.json'], { stdio: 'inherit' });
  if (tc.status !== 0) {
    console.error('npm test: typecheck failed');
    process.exit(tc.status ?? 1);
  }
}

// the test twins of the native core (libcuzk_*_test.so: cuzk.h plus cuzk_test.h's hooks; src/ffi/load.ts)
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: { ...process.env, CUZK_LOG: process.env.CUZK_LOG ?? 'warn', CUZK_NATIVE_TEST_HOOKS: process.env.CUZK_NATIVE_TEST_HOOKS ?? '1' },
});
process.exit(r.status ?? 1);
