// The one logger (src/log.ts): pino's shape, CUZK_LOG's level (a value that is no level is said once
// and logs at info), and the engine and the native loader logging through the logger they are given.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../src/engine/create.js';
import { createLogger, type LogLevel } from '../src/log.js';
import { vectorFile, vectorSets } from './helpers/vectors.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A logger at `level` whose lines land in `lines`, parsed. */
function captured(level: LogLevel): { lines: Record<string, unknown>[]; logger: ReturnType<typeof createLogger> } {
  const lines: Record<string, unknown>[] = [];
  const dest = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger(level, dest) };
}

/** stderr of a child that imports src/log.ts and runs `code` (default: one info and one warn line). */
function childLog(env: NodeJS.ProcessEnv, code = "import { log } from './src/log.ts'; log.info({ n: 1 }, 'an info line'); log.warn({ n: 2 }, 'a warn line');"): string[] {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stderr.split('\n').filter(Boolean);
}

describe('log', () => {
  it("lines have pino's shape: numeric level, ISO time, pid, name, the fields, msg", () => {
    const { lines, logger } = captured('info');
    logger.info({ jobId: 'j1', bytes: 5 }, 'job accepted');
    logger.debug({ jobId: 'j1' }, 'below the level');
    assert.equal(lines.length, 1);
    const l = lines[0]!;
    assert.equal(l.level, 30);
    assert.ok(typeof l.time === 'string' && !Number.isNaN(Date.parse(l.time)));
    assert.deepEqual({ pid: l.pid, name: l.name, jobId: l.jobId, bytes: l.bytes, msg: l.msg }, { pid: process.pid, name: 'cuzk', jobId: 'j1', bytes: 5, msg: 'job accepted' });
  });

  it('CUZK_LOG sets the level; a value that is no level is said once, then info', () => {
    const warnOnly = childLog({ CUZK_LOG: 'warn' }).map((t) => JSON.parse(t) as Record<string, unknown>);
    assert.deepEqual(warnOnly.map((l) => [l.level, l.msg]), [[40, 'a warn line']]);
    const loud = childLog({ CUZK_LOG: 'loud' }).map((t) => JSON.parse(t) as Record<string, unknown>);
    assert.deepEqual(loud.map((l) => l.level), [40, 30, 40]);
    assert.equal(loud[0]!.CUZK_LOG, 'loud');
    assert.match(loud[0]!.msg as string, /CUZK_LOG must be one of debug, info, warn, error, silent: logging at info/);
  });

  it('the process logger keeps a level set before its first line, and every level set after it', () => {
    // log.ts makes the pino logger on the first line written; what was set before must carry over
    const code = [
      "import { log, setLogLevel } from './src/log.ts';",
      "setLogLevel('error'); log.warn('dropped'); if (log.level !== 'error' || log.isLevelEnabled('warn')) throw new Error('level ' + log.level);",
      "setLogLevel('debug'); log.debug({ n: 1 }, 'first line'); setLogLevel('error'); log.warn('dropped too'); log.error({ n: 2 }, 'an error');",
      "if (log.level !== 'error') throw new Error('level after ' + log.level);",
    ].join(' ');
    const lines = childLog({ CUZK_LOG: '' }, code).map((t) => JSON.parse(t) as Record<string, unknown>);
    assert.deepEqual(lines.map((l) => [l.level, l.msg, l.n, l.name]), [[20, 'first line', 1, 'cuzk'], [50, 'an error', 2, 'cuzk']]);
  });

  it("the engine and the native loader log through EngineConfig.logger, at that logger's level", async () => {
    const { lines, logger } = captured('info');
    const e = await createEngine({ threads: 1, logger });
    try {
      const s = vectorSets().find((v) => v.curve === 'bn128' && v.circuit === 'multiplier')!;
      const job = await e.await(e.submit({ key: vectorFile(s, 'circuit.zkey'), witnesses: [new Uint8Array(readFileSync(vectorFile(s, 'witness.wtns')))] }).id);
      assert.equal(job.state, 'completed', job.error?.message);
      const msgs = lines.map((l) => l.msg);
      assert.match(String(msgs[0]), /^cuzk backend: /, 'the loader line (first use of the core in this process)');
      for (const m of ['engine started', 'key loaded']) assert.ok(msgs.includes(m), `"${m}" in ${JSON.stringify(msgs)}`);
      // per-job lines are debug (the daemon logs a job's end once it is journaled)
      for (const m of ['job queued', 'job completed']) assert.ok(!msgs.includes(m), `the debug line "${m}" at info`);
    } finally {
      await e.close();
    }
  });
});
