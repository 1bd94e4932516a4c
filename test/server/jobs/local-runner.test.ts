// LocalRunner against a fake engine (test/helpers/fake-engine.ts) and a real SQLite journal: what it
// journals, when it releases spool files, what a restart resubmits, and the backlog behind a full queue.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { ResourceError } from '../../../src/errors.js';
import { createLogger } from '../../../src/log.js';
import { LocalRunner } from '../../../src/server/jobs/local-runner.js';
import type { SpooledWitness } from '../../../src/server/intake/spool.js';
import type { StoredJob } from '../../../src/server/journal/job-store.js';
import { SqliteJobStore } from '../../../src/server/journal/sqlite-store.js';
import { FakeEngine } from '../../helpers/fake-engine.js';

const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-local-runner-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const log = createLogger('silent');
const cfg = { keyDirs: [dir], inputDirs: [dir] };
async function until(cond: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (const t0 = Date.now(); !(await cond()); await new Promise((r) => setTimeout(r, 5))) if (Date.now() - t0 > 10_000) throw new Error(`timed out waiting for ${what}`);
}

let n = 0;
function witnessFile(exists = true): SpooledWitness {
  const p = path.join(dir, `w${n++}.wtns`);
  if (exists) writeFileSync(p, 'x');
  return { path: p, size: 1, sha256: 'h', owned: true };
}

function job(over: Partial<StoredJob> = {}): StoredJob {
  return { id: `job-${n++}`, fingerprint: 'f', key: 'k', priority: 'normal', state: 'queued', partitions: 1, submittedAt: Date.now(), request: { witnessFiles: [witnessFile()] }, ...over };
}

describe('LocalRunner', () => {
  let engine: FakeEngine, store: SqliteJobStore, released: SpooledWitness[], runner: LocalRunner;
  beforeEach(() => {
    engine = new FakeEngine();
    engine.keys = [{ id: 'k', path: path.join(dir, 'k.zkey') } as never];
    store = new SqliteJobStore(path.join(dir, `journal-${n++}.sqlite`));
    released = [];
    runner = new LocalRunner(engine, store, { release: async (f) => void released.push(...(f ?? [])) }, cfg, log);
  });

  it('runs an accepted job in the engine, journals its result, then releases its spool files', async () => {
    const s = job({ requestId: 'r1' });
    await store.insert(s);
    const info = await runner.accept(s, s.request!.witnessFiles);
    assert.equal(info.state, 'queued');
    assert.equal(info.requestId, 'r1', 'the journal\'s request id, which the engine never sees');
    assert.equal(engine.submitted[0]!.requestId, undefined);
    assert.deepEqual(engine.submitted[0]!.witnessFiles, [s.request!.witnessFiles![0]!.path]);
    assert.equal(released.length, 0, 'files stay while it runs');
    engine.finish(s.id, 'completed');
    await runner.live.settle();
    assert.equal((await store.get(s.id))!.state, 'completed');
    assert.deepEqual(released, s.request!.witnessFiles);
    assert.equal(runner.live.get(s.id)!.submittedAt, s.submittedAt, 'the journaled submission time');
  });

  it('a job the engine refuses is removed from the journal and the refusal thrown', async () => {
    const s = job();
    await store.insert(s);
    engine.refuse = new ResourceError('E_OVERLOADED', 'queue full');
    await assert.rejects(runner.accept(s, s.request!.witnessFiles), { code: 'E_OVERLOADED' });
    assert.equal(await store.get(s.id), undefined);
  });

  it('a job the engine gives back cancelled while the daemon stops stays queued; a user cancel is journaled', async () => {
    const a = job(), b = job();
    for (const s of [a, b]) {
      await store.insert(s);
      await runner.accept(s, s.request!.witnessFiles);
    }
    runner.live.cancel(b.id);
    runner.live.stopIntake();
    engine.finish(a.id, 'cancelled');
    await runner.live.settle();
    assert.equal((await store.get(a.id))!.state, 'queued', 'stopped by shutdown: replayed at the next start');
    assert.equal((await store.get(b.id))!.state, 'cancelled');
    assert.deepEqual(released, b.request!.witnessFiles);
  });

  it('cancels a journaled job the engine does not hold: journaled cancelled, files released', async () => {
    const s = job();
    await store.insert(s);
    const info = await runner.cancelStored(s);
    assert.equal(info.state, 'cancelled');
    assert.equal((await store.get(s.id))!.state, 'cancelled');
    assert.deepEqual(released, s.request!.witnessFiles);
    await assert.rejects(runner.stored('no-such-job'), { code: 'E_NOT_FOUND' });
  });

  it('recover: expired jobs end expired, a lost witness file fails its job, the rest resubmitted under their ids', async () => {
    const expired = job({ deadlineMs: 10, submittedAt: Date.now() - 1000 });
    const lost = job({ request: { witnessFiles: [witnessFile(false)] } });
    const ok = job({ deadlineMs: 60_000 });
    for (const s of [expired, lost, ok]) await store.insert(s);
    const counts = await runner.recover(await store.unfinished());
    assert.deepEqual(counts, { resubmitted: 1, expired: 1, lost: 1, waiting: 0 });
    assert.equal((await store.get(expired.id))!.result!.error!.code, 'E_TIMEOUT');
    assert.match((await store.get(lost.id))!.result!.error!.message, /after a restart: witness file .* is gone/);
    assert.deepEqual(engine.submitted.map((r) => r.id), [ok.id]);
    const d = engine.submitted[0]!.deadlineMs!;
    assert.ok(d > 50_000 && d <= 60_000, `the deadline counts from the journaled submission (${d} ms left)`);
  });

  it('recover behind a full queue: the rest wait in the backlog and enter as jobs finish', async () => {
    engine.maxQueue = 2;
    const jobs = [job(), job(), job(), job()];
    for (const s of jobs) await store.insert(s);
    assert.deepEqual(await runner.recover(await store.unfinished()), { resubmitted: 2, expired: 0, lost: 0, waiting: 2 });
    engine.finish(jobs[0]!.id, 'completed');
    await until(() => engine.submitted.length === 3, 'one finished, one more entered');
    await runner.cancelStored((await store.get(jobs[3]!.id))!);
    engine.finish(jobs[1]!.id, 'completed');
    await until(async () => (await store.get(jobs[1]!.id))!.state === 'completed', 'the second result journaled');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(engine.submitted.length, 3, 'a job cancelled in the backlog never enters');
    engine.finish(jobs[2]!.id, 'completed');
    await runner.live.settle();
  });

  it('a journaled job whose key left files.key_dirs fails at recover, said as after a restart', async () => {
    const s = job({ key: '/elsewhere/k.zkey' });
    await store.insert(s);
    assert.equal((await runner.recover(await store.unfinished())).resubmitted, 0);
    const r = (await store.get(s.id))!.result!;
    assert.equal(r.state, 'failed');
    assert.match(r.error!.message, /^after a restart: /);
  });
});
