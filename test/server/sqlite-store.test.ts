// The SQLite journal on each of its backends (the SqliteJobStore called on this thread, and the same
// store on its own thread through journal-thread.ts): the JobStore conformance suite
// (store-conformance.ts, also run on PostgreSQL), then what is SQLite's own: secure_delete, journals
// from before the spool, files that cannot be opened, a full disk; each fault comes back as the same
// error (class, code, message, retryable flag) from either backend.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, it } from 'node:test';
import { CuzkError, InputError, ResourceError } from '../../src/errors.js';
import type { JobStore } from '../../src/server/journal/job-store.js';
import { openJournalThread } from '../../src/server/journal/journal-thread.js';
import { SqliteJobStore } from '../../src/server/journal/sqlite-store.js';
import { fill, tmpfs } from '../helpers/scratch-fs.js';
import { useTmpDir } from '../helpers/tmp.js';
import { failure, FILES, job, storeConformance } from './store-conformance.js';

const BACKENDS: { name: string; open: (file: string) => Promise<JobStore> }[] = [
  { name: 'SqliteJobStore on the calling thread', open: async (file) => new SqliteJobStore(file) },
  { name: 'SqliteJobStore on its own thread (openJournalThread)', open: (file) => openJournalThread(file) },
];

function assertError(err: Error, cls: new (...a: never[]) => Error, code: string, message: RegExp | string, retryable?: boolean): void {
  assert.equal(err.constructor, cls, `${err.constructor.name}: ${err.message}`);
  assert.equal((err as { code?: string }).code, code, err.message);
  if (typeof message === 'string') assert.equal(err.message, message);
  else assert.match(err.message, message);
  if (retryable !== undefined) assert.equal((err as CuzkError).retryable, retryable);
}

const NEEDS_ROOT = process.getuid?.() === 0 ? false : 'needs root to mount a tmpfs (a real full disk)';


for (const backend of BACKENDS) {
  describe(`JobStore conformance: ${backend.name}`, () => {
    const tmp = useTmpDir('cuzk-journal-');
    const openStore = backend.open;
    storeConformance({
      name: backend.name,
      fresh: async () => path.join(tmp(), 'sub', 'journal.sqlite'),
      open: openStore,
      duplicateId: { name: 'SqliteError', code: 'SQLITE_CONSTRAINT_PRIMARYKEY', message: 'UNIQUE constraint failed: jobs.id' },
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

    it('a bad row is the CuzkError it was', async () => {
      const file = path.join(tmp(), 'journal.sqlite');
      let s = await openStore(file);
      await s.insert(job('a'));
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
      const mnt = tmpfs('1m')!;
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
    });
  });
}
