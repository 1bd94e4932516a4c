// What the journal's thread adds to the store (the store itself: sqlite-store.test.ts, run on both
// backends): calls answered in the order they were made, even when they queue up behind a busy
// thread; a thread that dies fails every pending and later call with E_UNAVAILABLE naming the
// journal, and readiness says so, never a hang; an idle thread never keeps the process up, and a
// commit in flight does.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { JobInfo } from '../../src/engine/api.js';
import { ResourceError } from '../../src/errors.js';
import type { StoredJob } from '../../src/server/journal/job-store.js';
import { openJournalThread } from '../../src/server/journal/journal-thread.js';
import { useTmpDir } from '../helpers/tmp.js';

const tmp = useTmpDir('cuzk-journal-thread-');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** A hang fails the test instead of stalling the run. */
const NO_HANG = { timeout: 60_000 };

const job = (id: string, over: Partial<StoredJob> = {}): StoredJob => ({ id, fingerprint: `fp-${id}`, key: 'k', priority: 'normal', state: 'queued', partitions: 1, submittedAt: 1000, ...over });
const done = (id: string): JobInfo => ({ id, key: 'k', priority: 'normal', state: 'completed', partitions: 1, submittedAt: 1000, finishedAt: 2000, timings: {} });

/** The control word of JournalWorkerData.testControl: 0 run, 1 hold, 2 crash. */
function control(): { word: Int32Array; set(v: 0 | 1 | 2): void } {
  const word = new Int32Array(new SharedArrayBuffer(4));
  return {
    word,
    set(v) {
      Atomics.store(word, 0, v);
      Atomics.notify(word, 0);
    },
  };
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('journal thread', () => {
  it('answers calls in the order they were made, each as if the ones before it had finished', NO_HANG, async () => {
    const c = control();
    const s = await openJournalThread(path.join(tmp(), 'journal.sqlite'), { testControl: c.word });
    c.set(1); // every call below queues behind the held thread
    const settled: number[] = [];
    const calls: Promise<unknown>[] = [
      s.insert(job('a', { requestId: 'r' })),
      s.insert(job('b', { requestId: 'r' })),
      s.get('a'),
      s.finish(done('a')),
      s.get('a'),
      s.insert(job('c')),
      s.counts(),
      s.remove('c'),
      s.unfinished(),
      s.purge(2001),
      s.byRequestId('r'),
    ].map((p, i) => p.finally(() => settled.push(i)));
    await turns(20);
    assert.deepEqual(settled, [], 'nothing is answered while the thread is held');
    c.set(0);
    const out = await Promise.all(calls);
    assert.deepEqual(settled, calls.map((_, i) => i));
    const [ins, dup, queued, , finished, , counts, , unfinished, purged, byReq] = out as [unknown, { inserted: boolean; existing?: StoredJob }, StoredJob, unknown, StoredJob, unknown, unknown, unknown, StoredJob[], number, unknown];
    assert.deepEqual(ins, { inserted: true });
    assert.equal(dup.inserted, false);
    assert.equal(dup.existing?.id, 'a');
    assert.equal(queued.state, 'queued');
    assert.equal(finished.state, 'completed');
    assert.deepEqual(counts, { completed: 1, queued: 1 });
    assert.deepEqual(unfinished, []);
    assert.equal(purged, 1);
    assert.equal(byReq, undefined);
    await s.close();
  });

  it('a thread that dies fails every pending and later call with E_UNAVAILABLE naming the journal; readiness says why', NO_HANG, async () => {
    const c = control();
    const file = path.join(tmp(), 'journal.sqlite');
    const s = await openJournalThread(file, { testControl: c.word });
    await s.insert(job('a'));
    c.set(1);
    const pending = [s.insert(job('b')), s.finish(done('a')), s.get('a'), s.writeProblem()];
    const outcomes = Promise.allSettled(pending.slice(0, 3));
    c.set(2); // an uncaught exception on the thread, as a bug would throw
    const why = `journal ${file}: the journal thread stopped (crashed: journal thread: crashed on purpose by a test): nothing more can be journaled; restart the daemon`;
    const check = (r: PromiseSettledResult<unknown>) => {
      assert.equal(r.status, 'rejected');
      const err = (r as PromiseRejectedResult).reason as ResourceError;
      assert.ok(err instanceof ResourceError, String(err));
      assert.equal(err.code, 'E_UNAVAILABLE');
      assert.equal(err.retryable, true);
      assert.equal(err.message, why);
    };
    for (const r of await outcomes) check(r);
    assert.equal(await pending[3], why, 'a readiness probe in flight answers with the reason');
    check((await Promise.allSettled([s.keys()]))[0]!);
    assert.equal(await s.writeProblem(), why, 'not ready (/readyz 503 with this reason)');
    await s.close();
    const db = new Database(file);
    assert.deepEqual(db.prepare('SELECT id, state FROM jobs').all(), [{ id: 'a', state: 'queued' }], 'nothing after the crash was written');
    db.close();
  });

  it('an idle journal thread never keeps the process up; a commit in flight does', NO_HANG, () => {
    const dir = tmp();
    const child = path.join(dir, 'child.mts');
    writeFileSync(child, `import { openJournalThread } from ${JSON.stringify(path.join(root, 'src/server/journal/journal-thread.ts'))};
const s = await openJournalThread(${JSON.stringify(path.join(dir, 'journal.sqlite'))});
await s.insert({ id: 'idle', fingerprint: 'f', key: 'k', priority: 'normal', state: 'queued', partitions: 1, submittedAt: 1 });
void s.insert({ id: 'last', fingerprint: 'f', key: 'k', priority: 'normal', state: 'queued', partitions: 1, submittedAt: 2 }).then(() => console.log('committed'));
`); // the script ends with the second insert in flight and the store never closed
    const r = spawnSync(process.execPath, ['--import', 'tsx', child], { cwd: root, encoding: 'utf8', timeout: 50_000 });
    assert.equal(r.signal, null, `the process did not exit by itself: ${r.stderr}`);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'committed');
    const db = new Database(path.join(dir, 'journal.sqlite'));
    assert.deepEqual(db.prepare('SELECT id FROM jobs ORDER BY submitted_at').all(), [{ id: 'idle' }, { id: 'last' }]);
    db.close();
  });
});
