// Faults of the journal file, each one clear line and never a hang: at start (exit 2, `cuzk:
// E_INVALID_ARG: journal <path>: ...`) an empty, corrupt, locked or read-only journal, another daemon
// on the same data dir, a full disk; at run time a full disk fails the RPC (E_UNAVAILABLE), /readyz
// says 503 until the journal can be written again, and the daemon stays up. Files are 0600, dirs 0700.
// A full disk and a read-only file system are real (a tiny tmpfs, mounted: needs root); without root
// the read-only journal is a chmod-ed one and the full-disk tests skip, saying why.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { CuzkClient, CuzkError } from '../../src/client/index.js';
import { startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { fill, scratch, tmpfs } from '../helpers/scratch-fs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const job = () => ({ key: vectorFile(bnMult, 'circuit.zkey'), witnesses: [new Uint8Array(readFileSync(vectorFile(bnMult, 'witness.wtns')))] });
const journal = (dir: string) => path.join(dir, 'journal.sqlite');
const canMount = process.getuid?.() === 0 && tmpfs(64 * 1024) !== undefined;
const NEEDS_ROOT = canMount ? false : 'needs root to mount a tmpfs (a real full disk)';


/** Starts a daemon expected to refuse: its exit code and stderr (a daemon that listens fails the test). */
async function refusesToStart(dataDir: string): Promise<{ code: number; stderr: string }> {
  const started = await startDaemon({ dataDir, args: vectorDirArgs() }).then(
    (d) => d,
    (err: Error) => err,
  );
  if (!(started instanceof Error)) {
    await started.stop('SIGKILL');
    assert.fail(`cuzk serve started on ${dataDir}:\n${started.logs()}`);
  }
  const m = /^daemon exited \((\w+)\) before listening:\n([\s\S]*)$/.exec(started.message);
  assert.ok(m, started.message);
  return { code: Number(m[1]), stderr: m[2]! };
}

function assertOneLine(r: { code: number; stderr: string }, file: string, what: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('cuzk: '));
  assert.equal(lines.length, 1, r.stderr);
  assert.ok(lines[0]!.startsWith(`cuzk: E_INVALID_ARG: journal ${file}: `), lines[0]);
  assert.match(lines[0]!, what);
}

/** A data dir with a journal that holds one finished job (the daemon stopped). */
async function usedDataDir(dir: string): Promise<void> {
  const d = await startDaemon({ dataDir: dir, args: vectorDirArgs() });
  assert.equal((await new CuzkClient({ address: d.address }).prove(job())).state, 'completed');
  assert.equal(await d.stop(), 0, d.logs());
}

describe('cuzk serve: journal faults at start', () => {
  it('an empty journal file is refused, not taken for a new journal', async () => {
    const dir = scratch();
    writeFileSync(journal(dir), '');
    assertOneLine(await refusesToStart(dir), journal(dir), /the file is empty \(0 bytes\).*restore it from a backup, or delete it/);
    assert.equal(statSync(journal(dir)).size, 0, 'the file is left as it was');
  });

  it('a corrupt journal (not SQLite, or damaged pages) says so and what to do', async () => {
    const garbage = scratch();
    writeFileSync(journal(garbage), Buffer.alloc(8192, 'not a database '));
    assertOneLine(await refusesToStart(garbage), journal(garbage), /is corrupt or not a cuzk journal \(SQLITE_NOTADB\): stop the daemon, move it/);
    const damaged = scratch();
    await usedDataDir(damaged);
    const image = readFileSync(journal(damaged));
    image.fill(0xa5, 4096); // every page after the first (the schema's root) overwritten
    writeFileSync(journal(damaged), image);
    assertOneLine(await refusesToStart(damaged), journal(damaged), /is corrupt or not a cuzk journal/);
  });

  it('a second daemon on the same data dir is refused at once; nothing else can lock the journal while one runs', async () => {
    const dir = scratch();
    const d = await startDaemon({ dataDir: dir, args: vectorDirArgs() });
    try {
      assertOneLine(await refusesToStart(dir), journal(dir), /is locked by another process: another cuzk serve uses this data dir; stop it, start this one with --takeover/);
      const other = new Database(journal(dir), { timeout: 0 });
      try {
        assert.throws(() => other.exec('BEGIN IMMEDIATE'), (e: { code?: string }) => e.code === 'SQLITE_BUSY');
      } finally {
        other.close();
      }
      assert.equal((await new CuzkClient({ address: d.address }).prove(job())).state, 'completed');
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
    }
  });

  it('a journal another process holds locked: refused at once, exit 2, not a 5 s busy wait per call', async () => {
    const dir = scratch();
    await usedDataDir(dir);
    const holder = new Database(journal(dir));
    holder.exec('BEGIN EXCLUSIVE');
    try {
      assertOneLine(await refusesToStart(dir), journal(dir), /is locked by another process/);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('a read-only journal is refused with what to do', async () => {
    const base = canMount ? tmpfs(4 * 1024 * 1024)! : scratch();
    const dir = path.join(base, 'data');
    await usedDataDir(dir);
    if (canMount) execFileSync('mount', ['-o', 'remount,ro', base]);
    else {
      execFileSync('chmod', ['0400', journal(dir)]);
      execFileSync('chmod', ['0500', dir]);
    }
    try {
      assertOneLine(await refusesToStart(dir), journal(dir), canMount ? /is on a read-only file system: remount it read-write/ : /is read-only/);
    } finally {
      if (canMount) execFileSync('mount', ['-o', 'remount,rw', base]);
      else execFileSync('chmod', ['0700', dir]);
    }
  });

  it('a full disk at start is refused, and leaves no journal behind to be refused later', { skip: NEEDS_ROOT }, async () => {
    const base = tmpfs(256 * 1024)!;
    const filler = fill(base);
    const dir = path.join(base, 'data');
    assertOneLine(await refusesToStart(dir), journal(dir), /the disk is full: free space/);
    assert.equal(existsSync(journal(dir)), false);
    rmSync(filler);
    await usedDataDir(dir);
  });
});

describe('cuzk serve: journal faults while running', () => {
  it('a full disk fails the submit with E_UNAVAILABLE naming the journal; /readyz is 503 until there is room again', { skip: NEEDS_ROOT }, async () => {
    const base = tmpfs(4 * 1024 * 1024)!;
    const d: DaemonProcess = await startDaemon({ dataDir: path.join(base, 'data'), args: vectorDirArgs() });
    try {
      const c = new CuzkClient({ address: d.address });
      assert.equal((await c.prove(job())).state, 'completed');
      assert.equal((await fetch(`${d.url}/readyz`)).status, 200);
      const filler = fill(base);
      const err = await c.submit(job()).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof CuzkError, String(err));
      assert.equal(err.code, 'E_UNAVAILABLE', err.message);
      // the witness's spool file or the journal row, whichever meets the full disk first
      assert.match(err.message, new RegExp(`(journal ${journal(d.dataDir)}|spool ${path.join(d.dataDir, 'spool')}): the disk is full`));
      const ready = await fetch(`${d.url}/readyz`);
      assert.equal(ready.status, 503);
      assert.match(((await ready.json()) as { reason: string }).reason, /the disk is full/);
      assert.equal((await fetch(`${d.url}/healthz`)).status, 200);
      assert.equal((await c.status()).backend, 'cpu', 'the daemon stays up');
      rmSync(filler);
      assert.equal((await fetch(`${d.url}/readyz`)).status, 200);
      assert.equal((await c.prove(job())).state, 'completed');
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
    }
  });

  it('journal, its WAL and uploaded keys are 0600, the data dir and keys dir 0700', async () => {
    const dir = path.join(scratch(), 'fresh', 'data');
    const d = await startDaemon({ dataDir: dir, args: vectorDirArgs() });
    try {
      const c = new CuzkClient({ address: d.address });
      const up = await c.loadKey({ zkey: new Uint8Array(readFileSync(vectorFile(bnMult, 'circuit.zkey'))) });
      assert.equal((await c.prove({ ...job(), key: up.id })).state, 'completed');
      const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);
      assert.equal(mode(dir), '700');
      assert.equal(mode(journal(dir)), '600');
      assert.equal(mode(`${journal(dir)}-wal`), '600');
      assert.equal(mode(path.join(dir, 'keys')), '700');
      assert.equal(mode(path.join(dir, 'keys', `${up.id.slice('sha256:'.length)}.zkey`)), '600');
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
    }
  });
});
