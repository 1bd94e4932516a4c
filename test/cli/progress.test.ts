// What a one-shot prove prints besides its result: on a terminal, one live line of phases with their
// elapsed times (cleared at the end); off a terminal, nothing but the one note; no JSON log line
// unless --verbose (then the backend line), as a snarkjs drop-in.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/capture.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const set = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
let dir: string;
before(() => void (dir = mkdtempSync(path.join(tmpdir(), 'cuzk-progress-'))));
after(() => rmSync(dir, { recursive: true, force: true }));
const proveArgs = () => ['prove', vectorFile(set, 'circuit.zkey'), vectorFile(set, 'witness.wtns'), path.join(dir, 'p.json'), path.join(dir, 'q.json')];

/** stderr of `cuzk` run as its own process (the logger writes to fd 2), CUZK_LOG unset. */
function childStderr(args: string[]): string[] {
  const { CUZK_LOG: _unset, ...env } = process.env;
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'test', 'helpers', 'cuzk-child.ts'), ...args], { cwd: root, env, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stderr.split('\n').filter(Boolean);
}

describe('prove: progress and log lines', () => {
  it('no JSON log line by default; --verbose adds the backend line', () => {
    const plain = childStderr(proveArgs());
    assert.deepEqual(plain.filter((l) => l.startsWith('{')), [], plain.join('\n'));
    assert.equal(plain.length, 1, plain.join('\n'));
    assert.match(plain[0]!, /^proving .* on the CPU core\.\.\.$/);
    const verbose = childStderr([...proveArgs(), '--verbose']).filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string });
    assert.ok(verbose.some((l) => /^cuzk backend: /.test(l.msg)), JSON.stringify(verbose));
  });

  it('on a terminal: the phases with elapsed times, then the line cleared', async () => {
    const r = await runCli(proveArgs(), { tty: true });
    assert.equal(r.code, 0, r.stderr);
    const draws = r.stderr.split('\r\x1b[K').filter(Boolean);
    // the witness is read beside the key (no phase of its own); a GPU adds 'upload key' before 'prove'
    for (const phase of ['load key', 'prove', 'verify']) {
      assert.ok(draws.some((d) => new RegExp(`(^| \\| )${phase}( \\d+%)? \\d+\\.\\d s`).test(d)), `${phase} in ${JSON.stringify(draws)}`);
    }
    assert.ok(draws.some((d) => /load key \d+\.\d s \| (upload key \d+\.\d s \| )?prove( \d+%)? \d+\.\d s\.\.\./.test(d)), JSON.stringify(draws));
    assert.ok(r.stderr.endsWith('\r\x1b[K'), 'the live line is cleared at the end');
  });

  it('off a terminal (and with --quiet on one): nothing drawn', async () => {
    const r = await runCli(proveArgs());
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^proving .* on the CPU core\.\.\.\n$/);
    const q = await runCli([...proveArgs(), '--quiet'], { tty: true });
    assert.equal(q.stderr, '');
  });
});
