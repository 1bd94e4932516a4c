// cuzk_exit_now (native.ts exitNow): the process ends at once with the status given, after what it
// wrote to stdout and stderr (files and pipes), and without running exit handlers (the CUDA
// runtime's teardown is one; here a process 'exit' listener stands in for it). With the teardown
// deferred, the child that holds the process's memory and files for the kernel's release is gone
// once the process is (it would keep a GPU context and a pinned key), and the caller's pipes end
// with the process (the child keeps no copy of them).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const child = `
import { exitNow } from ${JSON.stringify(path.join(ROOT, 'src/ffi/native.ts'))};
process.on('exit', () => process.stdout.write('exit handler ran\\n'));
process.stdout.write('x'.repeat(200000) + '\\n');
process.stderr.write('to stderr\\n');
exitNow(Number(process.argv[1]), { deferTeardown: process.argv[2] === 'defer' });
process.stdout.write('after exitNow\\n');
`;

/** Processes whose command line (read through their memory: a child sharing it shows the same) holds `marker`. */
function processesWith(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(marker)) found.push(pid);
    } catch {
      // ended while we looked
    }
  }
  return found;
}

describe('exitNow', () => {
  for (const [status, mode] of [[0, 'now'], [3, 'now'], [0, 'defer'], [5, 'defer']] as const) {
    it(`ends the process with status ${status}${mode === 'defer' ? ', its teardown deferred' : ''}: output kept, exit handlers and the rest skipped`, async () => {
      const marker = `exit-now-${process.pid}-${mode}-${status}`;
      const t0 = performance.now();
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child, String(status), mode, marker], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 22, timeout: 60_000 });
      assert.equal(r.error, undefined, 'the caller waited for its pipes to end (a child kept a copy of them)');
      assert.equal(r.status, status, r.stderr);
      assert.equal(r.signal, null);
      const lines = r.stdout.split('\n');
      assert.equal(lines[0]!.length, 200000, 'the long line written before exitNow is all there');
      assert.ok(!r.stdout.includes('exit handler ran'), 'an exit handler ran');
      assert.ok(!r.stdout.includes('after exitNow'), 'code after exitNow ran');
      assert.match(r.stderr, /to stderr/);
      // the child holding the teardown is killed as the process ends; give the kernel a moment
      let left = processesWith(marker);
      for (let i = 0; i < 50 && left.length > 0; i++) {
        await new Promise((res) => setTimeout(res, 100));
        left = processesWith(marker);
      }
      assert.deepEqual(left, [], `processes left behind ${(performance.now() - t0).toFixed(0)} ms after the start`);
    });
  }
});
