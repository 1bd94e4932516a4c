// The JobStore conformance suite, run on every backend (sqlite-store.test.ts: SqliteJobStore on the
// calling thread and on its journal thread; pg-store.test.ts: PostgreSQL): jobs with their witness
// files (path, size, hash; never bytes) or inputs round-trip, request ids are unique and idempotent,
// results replace payloads, unfinished() is oldest first (insertion order breaks ties), a job's
// memory need (kept by PostgreSQL for claims, pg-claims.test.ts) changes nothing read back, purge
// respects retention, keys persist, the intake's witness layouts (bigints) are left out of rows, everything survives reopening, a query's own error passes as the
// backend's error, and a bad row is the CuzkError it was.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { JobInfo } from '../../src/engine/api.js';
import type { JobStore, StoredJob } from '../../src/server/journal/job-store.js';

export const FILES = [{ path: '/spool/a.wtns', size: 1234, sha256: 'ab'.repeat(32), owned: true }, { path: '/srv/w.wtns', size: 76, sha256: 'file:1700000000000', owned: false }];

export function job(id: string, over: Partial<StoredJob> = {}): StoredJob {
  return { id, fingerprint: `fp-${id}`, key: 'k', priority: 'normal', state: 'queued', partitions: 2, submittedAt: 1000, request: { witnessFiles: FILES }, ...over };
}

export interface StoreBackend {
  name: string;
  /** A new, empty place for a store (a file path, a database URL), inside the current test. */
  fresh(): Promise<string>;
  open(where: string): Promise<JobStore>;
  /** What inserting a second job with an id already journaled fails with. */
  duplicateId: { name: string; code: string; message: string };
}

/** What a call threw or rejected with. */
export async function failure(p: () => Promise<unknown>): Promise<Error> {
  const out = await p().then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(out instanceof Error, `expected a failure, got ${String(out)}`);
  return out;
}

/** Equal as the daemon sees them (a field set to undefined is a field left out). */
function assertJob(actual: StoredJob | undefined, expected: StoredJob): void {
  assert.deepEqual(JSON.parse(JSON.stringify(actual ?? null)), JSON.parse(JSON.stringify(expected)));
}

/** Registers the suite's tests in the calling describe(). */
export function storeConformance(b: StoreBackend): void {
  it("the intake's witness layouts are not journaled: read back, the files are as before", async () => {
    const s = await b.open(await b.fresh());
    try {
      const header = { path: 'witnesses[0]', curve: 'bn128' as const, n8: 32, prime: 21888242871839275222246405745257275088548364400416034343698204186575808495617n, nWitness: 36 };
      const withLayouts = FILES.map((f) => ({ ...f, layout: { header, valuesOffset: 76, totalBytes: f.size } }));
      await s.insert(job('l', { request: { witnessFiles: withLayouts } }));
      const back = await s.get('l');
      assert.deepEqual(back!.request!.witnessFiles, FILES);
    } finally {
      await s.close();
    }
  });

  it('insert, dedup by request id, finish, unfinished, purge; durable across reopen', async () => {
    const where = await b.fresh();
    let s = await b.open(where);
    assert.deepEqual(await s.insert(job('a', { requestId: 'r1' })), { inserted: true });
    const dup = await s.insert(job('b', { requestId: 'r1', fingerprint: 'other' }));
    assert.equal(dup.inserted, false);
    assert.equal(!dup.inserted && dup.existing.id, 'a');
    assert.equal(!dup.inserted && dup.existing.fingerprint, 'fp-a', 'the journaled job, not the new one');
    assert.equal(await s.get('b'), undefined);
    await s.insert(job('c', { submittedAt: 2000, priority: 'high', request: { inputs: [{ a: '1' }], wasm: '/w.wasm' }, deadlineMs: 500 }));
    await s.putKey('kid', '/keys/k.zkey');
    await s.close();

    s = await b.open(where);
    const open = await s.unfinished();
    assert.deepEqual(open.map((j) => j.id), ['a', 'c']);
    assertJob(open[0], job('a', { requestId: 'r1' }));
    assert.equal(open[0]!.request!.witnesses, undefined, 'no witness bytes in the journal');
    assertJob(open[1], job('c', { submittedAt: 2000, priority: 'high', request: { inputs: [{ a: '1' }], wasm: '/w.wasm' }, deadlineMs: 500 }));
    assert.deepEqual(await s.byRequestId('r1'), open[0]);
    assert.deepEqual(await s.keys(), [{ id: 'kid', path: '/keys/k.zkey' }]);
    await s.putKey('kid', '/keys/k2.zkey');
    assert.deepEqual(await s.keys(), [{ id: 'kid', path: '/keys/k2.zkey' }], 'putKey replaces');

    const result: JobInfo = { id: 'a', key: 'k', priority: 'normal', state: 'completed', partitions: 2, submittedAt: 1000, finishedAt: 5000, timings: { msm: 3 }, proofs: [] };
    await s.finish(result);
    const a = await s.get('a');
    assert.equal(a?.state, 'completed');
    assert.equal(a?.request, undefined, 'the witnesses are dropped once terminal');
    assert.deepEqual(a?.result, result);
    assert.deepEqual((await s.unfinished()).map((j) => j.id), ['c']);
    assert.deepEqual(await s.counts(), { completed: 1, queued: 1 });
    assert.equal(await s.purge(4999), 0);
    assert.equal(await s.purge(5001), 1);
    assert.equal(await s.get('a'), undefined);
    assert.equal(await s.byRequestId('r1'), undefined, 'a purged request id can be used again');
    assert.deepEqual(await s.insert(job('a2', { requestId: 'r1' })), { inserted: true });
    await s.remove('a2');
    await s.remove('c');
    assert.deepEqual(await s.counts(), {});
    await s.deleteKey('kid');
    assert.deepEqual(await s.keys(), []);
    assert.equal(await s.writeProblem(), undefined);
    await s.close();
  });

  it('unfinished: oldest first, insertion order among equal times; a failed job is finished', async () => {
    const s = await b.open(await b.fresh());
    for (const [id, at] of [['z', 30], ['y', 10], ['x', 10], ['w', 20]] as const) await s.insert(job(id, { submittedAt: at }));
    assert.deepEqual((await s.unfinished()).map((j) => j.id), ['y', 'x', 'w', 'z']);
    await s.finish({ id: 'x', key: 'k', priority: 'normal', state: 'failed', partitions: 2, submittedAt: 10, timings: {}, error: { code: 'E_CANCELLED', message: 'no' } } as JobInfo);
    assert.deepEqual((await s.unfinished()).map((j) => j.id), ['y', 'w', 'z']);
    assert.equal((await s.get('x'))?.result?.state, 'failed');
    assert.deepEqual(await s.counts(), { failed: 1, queued: 3 });
    await s.close();
  });

  it('a job with a memory need (for claims) journals as any other; the need is not part of the job read back', async () => {
    const s = await b.open(await b.fresh());
    const need = { host: 1, pinned: 2, gpu: 3, key: 4 };
    assert.deepEqual(await s.insert(job('n', { need })), { inserted: true });
    assertJob(await s.get('n'), job('n'));
    assertJob((await s.unfinished())[0], job('n'));
    await s.close();
  });

  it("a query's own error passes as the backend's error", async () => {
    const s = await b.open(await b.fresh());
    await s.insert(job('a'));
    const dup = await failure(() => s.insert(job('a')));
    assert.equal(dup.name, b.duplicateId.name);
    assert.equal((dup as { code?: string }).code, b.duplicateId.code);
    assert.equal(dup.message, b.duplicateId.message);
    assert.equal(await s.writeProblem(), undefined, 'a constraint is no fault of the store');
    await s.close();
  });
}
