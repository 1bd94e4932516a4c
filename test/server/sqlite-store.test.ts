// The SQLite journal: jobs with their witness files (path, size, hash; never bytes) round-trip, request ids are unique, results replace
// payloads, purge respects retention, keys persist, and everything survives reopening the file.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, it } from 'node:test';
import type { JobInfo } from '../../src/engine/api.js';
import type { StoredJob } from '../../src/server/job-store.js';
import { SqliteJobStore } from '../../src/server/sqlite-store.js';
import { useTmpDir } from '../helpers/tmp.js';

const tmp = useTmpDir('cuzk-journal-');

const FILES = [{ path: '/spool/a.wtns', size: 1234, sha256: 'ab'.repeat(32), owned: true }, { path: '/srv/w.wtns', size: 76, sha256: 'file:1700000000000', owned: false }];

function job(id: string, over: Partial<StoredJob> = {}): StoredJob {
  return { id, fingerprint: `fp-${id}`, key: 'k', priority: 'normal', state: 'queued', partitions: 2, submittedAt: 1000, request: { witnessFiles: FILES }, ...over };
}

describe('SqliteJobStore', () => {
  it('insert, dedup by request id, finish, unfinished, purge; durable across reopen', async () => {
    const file = path.join(tmp(), 'sub', 'journal.sqlite');
    let s = new SqliteJobStore(file);
    assert.deepEqual(await s.insert(job('a', { requestId: 'r1' })), { inserted: true });
    const dup = await s.insert(job('b', { requestId: 'r1', fingerprint: 'other' }));
    assert.equal(dup.inserted, false);
    assert.equal(!dup.inserted && dup.existing.id, 'a');
    await s.insert(job('c', { submittedAt: 2000, request: { inputs: [{ a: '1' }], wasm: '/w.wasm' }, deadlineMs: 500 }));
    await s.putKey('kid', '/keys/k.zkey');
    await s.close();

    s = new SqliteJobStore(file);
    const open = await s.unfinished();
    assert.deepEqual(open.map((j) => j.id), ['a', 'c']);
    assert.deepEqual(open[0]!.request!.witnessFiles, FILES);
    assert.equal(open[0]!.request!.witnesses, undefined, 'no witness bytes in the journal');
    assert.equal(open[0]!.requestId, 'r1');
    assert.deepEqual(open[1]!.request!.inputs, [{ a: '1' }]);
    assert.equal(open[1]!.request!.wasm, '/w.wasm');
    assert.equal(open[1]!.deadlineMs, 500);
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

  it('the inputs of a finished job leave no trace in the journal files (secure_delete)', async () => {
    const file = path.join(tmp(), 'journal.sqlite');
    const s = new SqliteJobStore(file);
    const secret = 'private-input-0x5ec2e7-'.repeat(40);
    await s.insert(job('p', { request: { inputs: [{ a: secret }], wasm: '/w.wasm' } }));
    await s.close();
    const raw = () => ['', '-wal'].map((x) => (existsSync(file + x) ? readFileSync(file + x).toString('latin1') : '')).join('');
    assert.ok(raw().includes('private-input-0x5ec2e7'), 'the test looks in the right place');
    const again = new SqliteJobStore(file);
    await again.finish({ id: 'p', key: 'k', priority: 'normal', state: 'completed', partitions: 1, submittedAt: 1000, finishedAt: 2000, timings: {} });
    await again.close(); // the last close checkpoints the WAL into the file
    assert.ok(!raw().includes('private-input-0x5ec2e7'), 'the inputs are gone from the journal files');
  });

  it('a journal from before the spool (witness blobs, no witness_files column) still replays', async () => {
    const file = path.join(tmp(), 'journal.sqlite');
    const db = new Database(file);
    db.exec(`CREATE TABLE jobs (id TEXT PRIMARY KEY, request_id TEXT UNIQUE, fingerprint TEXT NOT NULL, key TEXT NOT NULL, priority TEXT NOT NULL,
      state TEXT NOT NULL, partitions INTEGER NOT NULL, submitted_at INTEGER NOT NULL, deadline_ms INTEGER, wasm TEXT, inputs TEXT, witnesses BLOB,
      finished_at INTEGER, result TEXT)`);
    const blob = Buffer.alloc(4 + 8 + 3);
    blob.writeUInt32LE(1, 0);
    blob.writeBigUInt64LE(3n, 4);
    blob.set([7, 8, 9], 12);
    db.prepare("INSERT INTO jobs (id, fingerprint, key, priority, state, partitions, submitted_at, witnesses) VALUES ('old', 'fp', 'k', 'low', 'queued', 1, 5, ?)").run(blob);
    db.close();
    const s = new SqliteJobStore(file);
    const [old] = await s.unfinished();
    assert.equal(old?.id, 'old');
    assert.deepEqual(old!.request!.witnesses!.map((w) => [...w]), [[7, 8, 9]]);
    await s.insert(job('new'));
    assert.deepEqual((await s.get('new'))!.request!.witnessFiles, FILES);
    await s.close();
  });
});
