// The daemon's stderr is one log: pino JSON lines of one shape (numeric level, time, msg) from the
// daemon, the engine and the native loader alike, all at the one level `log_level` sets.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { CuzkClient } from '../../src/client/index.js';
import { removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const key = vectorFile(bnMult, 'circuit.zkey');
const witness = (name: string) => new Uint8Array(readFileSync(vectorFile(bnMult, name)));

interface Line {
  level: unknown;
  time: unknown;
  msg: unknown;
  [field: string]: unknown;
}

/** Every stderr line, parsed; a line that is not a JSON object fails the test, naming it. */
function lines(d: DaemonProcess): Line[] {
  return d.logs().split('\n').filter(Boolean).map((text) => {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      assert.fail(`stderr line is not JSON: ${text}`);
    }
    assert.ok(v && typeof v === 'object' && !Array.isArray(v), `stderr line is not a JSON object: ${text}`);
    return v as Line;
  });
}

const PINO_INFO = 30;
const PINO_WARN = 40;

const daemons: DaemonProcess[] = [];
after(() => {
  for (const d of daemons) removeDataDir(d.dataDir);
});

/** Proves one good and one failing job, then stops the daemon (so its shutdown lines are in). */
async function proveTwoJobs(d: DaemonProcess): Promise<{ good: string; bad: string }> {
  const c = new CuzkClient({ address: d.address });
  const good = await c.prove({ key, witnesses: [witness('witness.wtns')] });
  assert.equal(good.state, 'completed', JSON.stringify(good.error));
  const bad = await c.prove({ key, witnesses: [witness('witness_bad.wtns')] });
  assert.equal(bad.state, 'failed');
  assert.equal(await d.stop('SIGTERM'), 0, d.logs());
  return { good: good.id, bad: bad.id };
}

describe('cuzk serve: one log', () => {
  it('--log-level warn: no line below warn on stderr, from the engine and the loader included', async () => {
    // CUZK_LOG=info in the environment: the flag is what counts
    const d = await startDaemon({ args: ['--log-level', 'warn', ...vectorDirArgs()], env: { CUZK_LOG: 'info' }, socket: true });
    daemons.push(d);
    const { bad } = await proveTwoJobs(d);
    const all = lines(d);
    for (const l of all) assert.ok(typeof l.level === 'number' && l.level >= PINO_WARN, `line below warn: ${JSON.stringify(l)}`);
    assert.ok(all.some((l) => l.msg === 'job failed' && l.jobId === bad), `the failed job's warn line is logged:\n${d.logs()}`);
  });

  it('default level: every line has pino\'s shape, and engine and loader lines are among them at info', async () => {
    const d = await startDaemon({ args: vectorDirArgs(), env: { CUZK_LOG: undefined } });
    daemons.push(d);
    const { good } = await proveTwoJobs(d);
    const all = lines(d);
    for (const l of all) {
      assert.equal(typeof l.level, 'number', `level is not pino's number: ${JSON.stringify(l)}`);
      assert.equal(typeof l.msg, 'string', `no msg: ${JSON.stringify(l)}`);
      assert.ok(typeof l.time === 'string' && !Number.isNaN(Date.parse(l.time)), `no ISO time: ${JSON.stringify(l)}`);
      assert.ok((l.level as number) >= PINO_INFO, `debug line at the default level: ${JSON.stringify(l)}`);
    }
    const at = (msg: RegExp) => all.filter((l) => msg.test(l.msg as string));
    assert.equal(at(/^cuzk backend: /)[0]?.level, PINO_INFO, `the loader's backend line (src/ffi/load.ts):\n${d.logs()}`);
    assert.equal(at(/^engine started$/)[0]?.level, PINO_INFO, `the engine's start line (src/engine/create.ts):\n${d.logs()}`);
    assert.equal(at(/^key loaded$/).find((l) => 'ms' in l)?.level, PINO_INFO, `the key cache's line (src/engine/key-cache.ts):\n${d.logs()}`);
    // one end-of-job line per job (the job service's, once journaled; the engine's is debug), naming it as `jobId`
    const completed = at(/^job completed$/);
    assert.equal(completed.length, 1, `one 'job completed' line for the one completed job:\n${d.logs()}`);
    assert.equal(completed[0]!.jobId, good, `the 'job completed' line names the job: ${JSON.stringify(completed[0])}`);
    assert.equal(completed[0]!.level, PINO_INFO);
  });
});
