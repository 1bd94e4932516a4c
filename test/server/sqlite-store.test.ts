// The journal's conformance suite, run on each JobStore backend (the SqliteJobStore called on this
// thread, and the same store on its own thread through journal-thread.ts): jobs with their witness
// files (path, size, hash; never bytes) round-trip, request ids are unique, results replace payloads,
// purge respects retention, keys persist, everything survives reopening the file, and each fault
// comes back as the same error (class, code, message, retryable flag) from either backend.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, it } from 'node:test';
import type { JobInfo } from '../../src/engine/api.js';
import { CuzkError, InputError, ResourceError } from '../../src/errors.js';
import type { JobStore, StoredJob } from '../../src/server/job-store.js';
import { openJournalThread } from '../../src/server/journal-thread.js';
import { SqliteJobStore } from '../../src/server/sqlite-store.js';
import { useTmpDir } from '../helpers/tmp.js';

const FILES = [{ path: '/spool/a.wtns', size: 1234, sha256: 'ab'.repeat(32), owned: true }, { path: '/srv/w.wtns', size: 76, sha256: 'file:1700000000000', owned: false }];

function job(id: string, over: Partial<StoredJob> = {}): StoredJob {
  return { id, fingerprint: `fp-${id}`, key: 'k', priority: 'normal', state: 'queued', partitions: 2, submittedAt: 1000, request: { witnessFiles: FILES }, ...over };
}

const BACKENDS: { name: string; open: (file: string) => Promise<JobStore> }[] = [
  { name: 'SqliteJobStore on the calling thread', open: async (file) => new SqliteJobStore(file) },
  { name: 'SqliteJobStore on its own thread (openJournalThread)', open: (file) => openJournalThread(file) },
];

/** What a backend threw or rejected with. */
async function failure(p: () => Promise<unknown>): Promise<Error> {
  const out = await p().then(() => undefined, (e: unknown) => e);
  assert.ok(out instanceof Error, `expected a failure, got ${String(out)}`);
  return out;
}

function assertError(err: Error, cls: new (...a: never[]) => Error, code: string, message: RegExp | string, retryable?: boolean): void {
  assert.equal(err.constructor, cls, `${err.constructor.name}: ${err.message}`);
  assert.equal((err as { code?: string }).code, code, err.message);
  if (typeof message === 'string') assert.equal(err.message, message);
  else assert.match(err.message, message);
  if (retryable !== undefined) assert.equal((err as CuzkError).retryable, retryable);
}

const NEEDS_ROOT = process.getuid?.() === 0 ? false : 'needs root to mount a tmpfs (a real full disk)';

/** Writes until the file system is full; returns the filler's path. */
function fill(dir: string): string {
  const p = path.join(dir, 'filler');
  const fd = openSync(p, 'w');
  try {
    for (const chunk of [65536, 4096, 512, 1]) {
      const b = Buffer.alloc(chunk, 1);
      for (;;) {
        try {
          if (writeSync(fd, b) < chunk) break;
        } catch {
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return p;
}

for (const backend of BACKENDS) {
  describe(`JobStore conformance: ${backend.name}`, () => {
    const tmp = useTmpDir('cuzk-journal-');
    const openStore = backend.open;

    it('insert, dedup by request id, finish, unfinished, purge; durable across reopen', async () => {
      const file = path.join(tmp(), 'sub', 'journal.sqlite');
      let s = await openStore(file);
      assert.deepEqual(await s.insert(job('a', { requestId: 'r1' })), { inserted: true });
      const dup = await s.insert(job('b', { requestId: 'r1', fingerprint: 'other' }));
      assert.equal(dup.inserted, false);
      assert.equal(!dup.inserted && dup.existing.id, 'a');
      await s.insert(job('c', { submittedAt: 2000, request: { inputs: [{ a: '1' }], wasm: '/w.wasm' }, deadlineMs: 500 }));
      await s.putKey('kid', '/keys/k.zkey');
      await s.close();

      s = await openStore(file);
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
      const s = await openStore(file);
      const secret = 'private-input-0x5ec2e7-'.repeat(40);
      await s.insert(job('p', { request: { inputs: [{ a: secret }], wasm: '/w.wasm' } }));
      await s.close();
      const raw = () => ['', '-wal'].map((x) => (existsSync(file + x) ? readFileSync(file + x).toString('latin1') : '')).join('');
      assert.ok(raw().includes('private-input-0x5ec2e7'), 'the test looks in the right place');
      const again = await openStore(file);
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
      const s = await openStore(file);
      const [old] = await s.unfinished();
      assert.equal(old?.id, 'old');
      assert.deepEqual(old!.request!.witnesses!.map((w) => [...w]), [[7, 8, 9]]);
      await s.insert(job('new'));
      assert.deepEqual((await s.get('new'))!.request!.witnessFiles, FILES);
      await s.close();
    });

    it('a journal that cannot be opened: the one-line E_INVALID_ARG, its SQLite cause kept', async () => {
      const dir = tmp();
      const empty = path.join(dir, 'empty.sqlite');
      writeFileSync(empty, '');
      const e = await failure(() => openStore(empty));
      assertError(e, InputError, 'E_INVALID_ARG', `journal ${empty}: the file is empty (0 bytes), so the jobs it held are gone: restore it from a backup, or delete it (and empty.sqlite-wal) to start a new journal`, false);
      const garbage = path.join(dir, 'garbage.sqlite');
      writeFileSync(garbage, Buffer.alloc(8192, 'not a database '));
      const g = await failure(() => openStore(garbage));
      assertError(g, InputError, 'E_INVALID_ARG', new RegExp(`^journal ${garbage}: is corrupt or not a cuzk journal \\(SQLITE_NOTADB\\): stop the daemon`), false);
      assert.equal((g.cause as { code?: string } | undefined)?.code, 'SQLITE_NOTADB', 'the SQLite error is the cause (--verbose prints it)');
    });

    it("a query's own error passes as it is; a bad row is the CuzkError it was", async () => {
      const file = path.join(tmp(), 'journal.sqlite');
      let s = await openStore(file);
      await s.insert(job('a'));
      const dup = await failure(() => s.insert(job('a')));
      assert.equal(dup.name, 'SqliteError');
      assert.equal((dup as { code?: string }).code, 'SQLITE_CONSTRAINT_PRIMARYKEY');
      assert.equal(dup.message, 'UNIQUE constraint failed: jobs.id');
      await s.close();
      const db = new Database(file);
      const blob = Buffer.alloc(4 + 8 + 2); // announces 3 bytes, holds 2
      blob.writeUInt32LE(1, 0);
      blob.writeBigUInt64LE(3n, 4);
      db.prepare("UPDATE jobs SET witnesses = ?, witness_files = NULL WHERE id = 'a'").run(blob);
      db.close();
      s = await openStore(file);
      assertError(await failure(() => s.unfinished()), CuzkError, 'E_INTERNAL', 'journal: witness blob truncated (witness 0 of 1)', false);
      await s.close();
    });

    it('a full disk at run time: E_UNAVAILABLE, retryable, naming the journal; not ready until there is room', { skip: NEEDS_ROOT }, async () => {
      const mnt = path.join(tmp(), 'mnt');
      mkdirSync(mnt);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]);
      try {
        const file = path.join(mnt, 'journal.sqlite');
        const s = await openStore(file);
        await s.insert(job('a'));
        assert.equal(await s.writeProblem(), undefined);
        const filler = fill(mnt);
        const full = await failure(() => s.insert(job('b', { request: { inputs: [{ a: 'x'.repeat(64 * 1024) }], wasm: '/w.wasm' } })));
        assertError(full, ResourceError, 'E_UNAVAILABLE', new RegExp(`^journal ${file}: the disk is full: free space on its file system`), true);
        assert.match((await s.writeProblem()) ?? 'ready', /the disk is full/);
        rmSync(filler);
        assert.equal(await s.writeProblem(), undefined);
        await s.insert(job('b'));
        assert.deepEqual((await s.unfinished()).map((j) => j.id), ['a', 'b']);
        await s.close();
      } finally {
        execFileSync('umount', ['-l', mnt]);
      }
    });
  });
}
