// cuzk_exit_now (native.ts exitNow): the process ends at once with the status given, after what it
// wrote to stdout and stderr (files and pipes), and without running exit handlers (the CUDA
// runtime's teardown is one; here a process 'exit' listener stands in for it).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const child = `
import { exitNow } from ${JSON.stringify(path.join(ROOT, 'src/ffi/native.ts'))};
process.on('exit', () => process.stdout.write('exit handler ran\\n'));
process.stdout.write('x'.repeat(200000) + '\\n');
process.stderr.write('to stderr\\n');
exitNow(Number(process.argv[1]));
process.stdout.write('after exitNow\\n');
`;

describe('exitNow', () => {
  for (const status of [0, 3]) {
    it(`ends the process with status ${status}: output kept, exit handlers and the rest skipped`, () => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', child, String(status)], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 22 });
      assert.equal(r.status, status, r.stderr);
      assert.equal(r.signal, null);
      const lines = r.stdout.split('\n');
      assert.equal(lines[0]!.length, 200000, 'the long line written before exitNow is all there');
      assert.ok(!r.stdout.includes('exit handler ran'), 'an exit handler ran');
      assert.ok(!r.stdout.includes('after exitNow'), 'code after exitNow ran');
      assert.match(r.stderr, /to stderr/);
    });
  }
});
