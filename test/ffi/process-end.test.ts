// How the `cuzk` process ends with a CUDA build loaded (src/ffi/process-end.ts): cuzk_quick_exit ends
// it with the status asked for and the output already written, after the 'exit' listeners added
// before skipTeardownAtExit (the CLI's own: temp dirs, traces) and before anything else at exit
// (those added after it, like the C++ static destructors, never run); CUZK_EXIT_TEARDOWN=1 and a
// process without the CUDA build keep the full exit. The native call is the CPU build's (the same
// library.cpp), so this runs without a GPU.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const mod = (p: string) => JSON.stringify(pathToFileURL(path.join(root, p)).href);

/** A child that writes to stdout, adds an 'exit' listener before and one after skipTeardownAtExit,
 * and exits 7; `cuda`: tells process-end.ts a CUDA build was loaded (the CPU build's quick exit). */
function child(cuda: boolean, env: NodeJS.ProcessEnv = {}) {
  const script = `
    import { loadCore } from ${mod('src/ffi/load.ts')};
    import { cudaCoreLoaded, skipTeardownAtExit } from ${mod('src/ffi/process-end.ts')};
    const core = loadCore();
    if (${cuda}) cudaCoreLoaded(core.abi.quick_exit);
    process.on('exit', () => process.stdout.write(' before'));
    skipTeardownAtExit();
    process.on('exit', () => process.stdout.write(' after'));
    process.stdout.write('output');
    process.exit(7);`;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    env: { ...process.env, CUZK_LOG: 'silent', CUZK_BACKEND: 'cpu', ...env },
    encoding: 'utf8',
  });
}

describe('the cuzk process end', () => {
  it('with a CUDA build: the listeners added before, then cuzk_quick_exit with the status (none after)', () => {
    const r = child(true);
    assert.equal(r.status, 7, r.stderr);
    assert.equal(r.stdout, 'output before');
  });

  it('CUZK_EXIT_TEARDOWN=1, or no CUDA build: the full exit, every listener', () => {
    for (const r of [child(true, { CUZK_EXIT_TEARDOWN: '1' }), child(false)]) {
      assert.equal(r.status, 7, r.stderr);
      assert.equal(r.stdout, 'output before after');
    }
  });
});
