// The native libraries' dynamic symbols against the headers that write their ABI down: a release
// library (libcuzk_cpu.so, libcuzk_cuda.so where built) exports exactly the functions cuzk.h
// declares; its test twin (libcuzk_*_test.so) exactly those plus cuzk_test.h's hooks. Read with
// `nm -D --defined-only`. abi.ts's test-hook block binds exactly cuzk_test.h's functions, and a hook
// called on a release library fails with one clear line.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BUILD = process.env.CUZK_BUILD_DIR ?? path.join(ROOT, 'build', 'native');

/** The `cuzk_…(` functions a header declares (CUZK_API lines). */
function declaredIn(header: string): string[] {
  const text = readFileSync(path.join(ROOT, 'native', 'include', header), 'utf8');
  return [...text.matchAll(/^CUZK_API\b[^;(]*?\b(cuzk_[a-z0-9_]+)\s*\(/gm)].map((m) => m[1]!).sort();
}

function exported(lib: string): string[] {
  const out = execFileSync('nm', ['-D', '--defined-only', lib], { encoding: 'utf8' });
  return out.split('\n').map((l) => l.trim().split(/\s+/).pop()!).filter(Boolean).sort();
}

function diff(lib: string, got: string[], want: string[]): string {
  const extra = got.filter((s) => !want.includes(s));
  const missing = want.filter((s) => !got.includes(s));
  return `${path.basename(lib)}: ${extra.length ? `exports what the headers do not declare: ${extra.join(', ')}` : ''}` +
    `${extra.length && missing.length ? '; ' : ''}${missing.length ? `lacks what they declare: ${missing.join(', ')}` : ''}`;
}

const api = declaredIn('cuzk.h');
const hooks = declaredIn('cuzk_test.h');

describe('native exports', () => {
  it('the headers: cuzk.h declares the ABI, cuzk_test.h only cuzk_debug_* hooks, no name in both', () => {
    assert.ok(api.length >= 30 && api.includes('cuzk_status_name'), `cuzk.h: ${api.join(', ')}`);
    assert.ok(hooks.length >= 1 && hooks.every((h) => h.startsWith('cuzk_debug_')), `cuzk_test.h: ${hooks.join(', ')}`);
    assert.ok(!api.some((s) => s.startsWith('cuzk_debug_')), 'cuzk.h declares a cuzk_debug_* hook: it belongs in cuzk_test.h');
  });

  for (const backend of ['cpu', 'cuda']) {
    const release = path.join(BUILD, `libcuzk_${backend}.so`);
    const twin = path.join(BUILD, `libcuzk_${backend}_test.so`);
    // the CPU core is always built (npm install); the CUDA one only where nvcc exists
    const skip = backend === 'cuda' && !existsSync(release) ? `no CUDA build at ${release}` : false;
    it(`libcuzk_${backend}.so exports exactly cuzk.h`, { skip }, () => {
      assert.ok(existsSync(release), `${release} is missing: run npm run build:native`);
      const got = exported(release);
      assert.deepEqual(got, api, diff(release, got, api));
    });
    it(`libcuzk_${backend}_test.so exports exactly cuzk.h + cuzk_test.h`, { skip }, () => {
      assert.ok(existsSync(twin), `${twin} is missing: run npm run build:native`);
      const want = [...api, ...hooks].sort();
      const got = exported(twin);
      assert.deepEqual(got, want, diff(twin, got, want));
    });
  }

  it("abi.ts's test-hook block binds exactly cuzk_test.h's hooks, the rest of it none", () => {
    const abi = readFileSync(path.join(ROOT, 'src', 'ffi', 'abi.ts'), 'utf8');
    const block = /function testHooks\([^)]*\) \{([\s\S]*?)\n\}/.exec(abi)?.[1] ?? '';
    const bound = [...block.matchAll(/'(cuzk_debug_[a-z0-9_]+)'/g)].map((m) => m[1]!).sort();
    assert.deepEqual(bound, hooks);
    const outside = abi.replace(block, '');
    assert.ok(!/'cuzk_debug_/.test(outside), 'abi.ts binds a cuzk_debug_* hook outside testHooks()');
  });

  it('a hook called on a release library is a one-line error, not a crash', () => {
    const release = path.join(BUILD, 'libcuzk_cpu.so');
    const script = "import('./src/ffi/native.ts').then((n) => { try { n.debugIfma(); console.log('no error'); } catch (e) { console.log(`${e.code}: ${e.message}`); } })";
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: ROOT, encoding: 'utf8', env: { ...process.env, CUZK_LIB: release, CUZK_NATIVE_TEST_HOOKS: '0', CUZK_LOG: 'warn' },
    });
    assert.equal(r.status, 0, r.stderr);
    const line = r.stdout.trim();
    assert.match(line, /^E_INTERNAL: cuzk_debug_ifma is a test hook: .*libcuzk_cpu\.so is a release library/);
    assert.equal(line.split('\n').length, 1, line);
  });
});
