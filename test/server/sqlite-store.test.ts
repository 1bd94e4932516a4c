// The SQLite journal: jobs with their witnesses round-trip, request ids are unique, results replace
// payloads, purge respects retention, keys persist, and everything survives reopening the file.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { JobInfo } from '../../src/engine/api.js';
import type { StoredJob } from '../../src/server/job-store.js';
import { packWitnesses, SqliteJobStore, unpackWitnesses } from '../../src/server/sqlite-store.js';
import { useTmpDir } from '../helpers/tmp.js';

const tmp = useTmpDir('cuzk-journal-');

function job(id: string, over: Partial<StoredJob> = {}): StoredJob {
  return { id, fingerprint: `fp-${id}`, key: 'k', priority: 'normal', state: 'queued', partitions: 2, submittedAt: 1000, request: { key: 'k', witnesses: [new Uint8Array([1, 2, 3]), new Uint8Array(0)] }, ...over };
}

describe('SqliteJobStore', () => {
  it('witness blobs round-trip, including empty ones', () => {
    const ws = [new Uint8Array([9, 8, 7]), new Uint8Array(0), new Uint8Array(1000).fill(5)];
    assert.deepEqual(unpackWitnesses(packWitnesses(ws)).map((w) => [...w]), ws.map((w) => [...w]));
  });

  it('insert, dedup by request id, finish, unfinished, purge; durable across reopen', async () => {
    const file = path.join(tmp(), 'sub', 'journal.sqlite');
    let s = new SqliteJobStore(file);
    assert.deepEqual(await s.insert(job('a', { requestId: 'r1' })), { inserted: true });
    const dup = await s.insert(job('b', { requestId: 'r1', fingerprint: 'other' }));
    assert.equal(dup.inserted, false);
    assert.equal(!dup.inserted && dup.existing.id, 'a');
    await s.insert(job('c', { submittedAt: 2000, request: { key: 'k', inputs: [{ a: '1' }], wasm: '/w.wasm' }, deadlineMs: 500 }));
    await s.putKey('kid', '/keys/k.zkey');
    await s.close();

    s = new SqliteJobStore(file);
    const open = await s.unfinished();
    assert.deepEqual(open.map((j) => j.id), ['a', 'c']);
    assert.deepEqual(open[0]!.request!.witnesses!.map((w) => [...w]), [[1, 2, 3], []]);
    assert.equal(open[0]!.request!.id, 'a');
    assert.equal(open[0]!.request!.requestId, 'r1');
    assert.deepEqual(open[1]!.request!.inputs, [{ a: '1' }]);
    assert.equal(open[1]!.request!.wasm, '/w.wasm');
    assert.equal(open[1]!.request!.deadlineMs, 500);
    assert.deepEqual(await s.keys(), [{ id: 'kid', path: '/keys/k.zkey' }]);

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
    await s.remove('c');
    assert.deepEqual(await s.counts(), {});
    await s.deleteKey('kid');
    assert.deepEqual(await s.keys(), []);
    await s.close();
  });
});
