// `npm install`'s native build (scripts/build-native.mjs) announces the CUDA build before it starts,
// with how long it takes and how to skip it, and CUZK_CUDA=0 skips it even over an earlier CUDA
// configuration. Run against a fake `cmake` on PATH that records its calls: no compiler runs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cudaPlan, readCache } from '../../scripts/build-native.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let dir: string;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'cuzk-build-'));
  // configure writes a cache as CMake does where nvcc exists (or OFF when asked); --build just logs
  writeFileSync(path.join(dir, 'cmake'), `#!/bin/sh
echo "CMAKE $*"
case "$*" in
  *--build*) exit 0 ;;
esac
B=""; prev=""; for a in "$@"; do [ "$prev" = "-B" ] && B="$a"; prev="$a"; done
mkdir -p "$B/CMakeFiles"
case "$*" in
  *-DCUZK_CUDA=OFF*) printf 'CUZK_CUDA:BOOL=OFF\\n' > "$B/CMakeCache.txt" ;;
  *) printf 'CUZK_CUDA:BOOL=ON\\nCMAKE_CUDA_COMPILER:FILEPATH=/usr/local/cuda/bin/nvcc\\n' > "$B/CMakeCache.txt"; mkdir -p "$B/CMakeFiles/cuzk_cuda.dir" ;;
esac
`);
  chmodSync(path.join(dir, 'cmake'), 0o755);
});
after(() => rmSync(dir, { recursive: true, force: true }));

function build(buildDir: string, env: Record<string, string> = {}): string[] {
  const { CUZK_CUDA: _drop, CUZK_RECONFIGURE: _drop2, ...base } = process.env;
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-native.mjs')], {
    env: { ...base, ...env, PATH: `${dir}:${process.env.PATH}`, CUZK_BUILD_DIR: buildDir }, encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean);
}

describe('build-native: the CUDA build', () => {
  it('is announced before it starts: how long, and CUZK_CUDA=0 to skip it', () => {
    const lines = build(path.join(dir, 'b1'));
    const notice = lines.findIndex((l) => l.startsWith('cuzk: building the CUDA core now'));
    const cuda = lines.findIndex((l) => /^CMAKE --build .* --target cuzk_cuda$/.test(l));
    assert.ok(cuda > 0, lines.join('\n'));
    assert.ok(notice >= 0 && notice < cuda, `notice before the CUDA build:\n${lines.join('\n')}`);
    assert.match(lines[notice]!, /roughly \d+-\d+ minutes on \d+ cores?/);
    assert.match(lines[notice]!, /CUZK_CUDA=0 npm install/);
  });

  it('CUZK_CUDA=0 skips it, even where an earlier configure enabled it', () => {
    const b = path.join(dir, 'b2');
    build(b); // configured with CUDA
    const lines = build(b, { CUZK_CUDA: '0' });
    assert.ok(lines.some((l) => l.startsWith('CMAKE -S') && l.includes('-DCUZK_CUDA=OFF')), lines.join('\n'));
    assert.ok(!lines.some((l) => l.includes('cuzk_cuda')), lines.join('\n'));
    assert.match(readFileSync(path.join(b, 'CMakeCache.txt'), 'utf8'), /CUZK_CUDA:BOOL=OFF/);
  });

  it('the plan: no nvcc, nothing; a library already built, an incremental check; times scale with cores', () => {
    const cache = readCache('CMAKE_CUDA_COMPILER:FILEPATH=/usr/bin/nvcc\nCUZK_CUDA:BOOL=ON\n');
    assert.deepEqual(cudaPlan({ env: {}, cache: readCache('CMAKE_CUDA_COMPILER:FILEPATH=CMAKE_CUDA_COMPILER-NOTFOUND\n'), cudaTargetExists: false, cudaLibExists: false, cores: 2 }), { build: false });
    assert.match(cudaPlan({ env: {}, cache, cudaTargetExists: true, cudaLibExists: true, cores: 2 }).notice!, /rebuilt only if its sources changed; CUZK_CUDA=0 skips it/);
    assert.match(cudaPlan({ env: {}, cache, cudaTargetExists: true, cudaLibExists: false, cores: 2 }).notice!, /roughly 6-15 minutes on 2 cores/);
    assert.match(cudaPlan({ env: {}, cache, cudaTargetExists: true, cudaLibExists: false, cores: 16 }).notice!, /roughly 1-2 minutes on 16 cores/);
  });
});
