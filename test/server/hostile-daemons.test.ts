// Daemons against each other (issue #27): a second daemon given the first's unix socket must not take
// it (the first would run on, unreachable), --takeover must signal only a process that has this very
// journal open (an inode number alone repeats across filesystems), and two --takeover at once must
// not both signal the old daemon (a second SIGTERM stops it undrained); a password on the command
// line (--store) is warned about.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CuzkClient } from '../../src/client/index.js';
import { lockHolders } from '../../src/server/journal/journal-open.js';
import { removeDataDir, runChild, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { makeGate, untilRunning } from '../helpers/gate.js';
import { scratch } from '../helpers/scratch-fs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const mult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const zkey = vectorFile(mult, 'circuit.zkey');
const LIMIT = { timeout: 120_000 };

const started = (p: Promise<DaemonProcess>) => p.then((d) => d, (e: Error) => e);

function readyOn(socketPath: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ socketPath, path: '/readyz' }, (res) => (res.resume(), resolve(res.statusCode ?? 0)));
    req.on('error', () => resolve(0));
  });
}

/** A unix socket file nothing listens on (its process killed before it could remove it). */
async function deadSocket(p: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(p)}, () => process.kill(process.pid, 'SIGKILL'))`]);
  await new Promise((r) => child.on('exit', r));
  assert.ok(statSync(p).isSocket());
}

describe('daemons against each other', () => {
  it('a second daemon on a live daemon\'s unix socket is refused and leaves it; a dead socket is replaced', LIMIT, async () => {
    const a = await startDaemon({ socket: true });
    const sock = path.join(a.dataDir, 'cuzk.sock');
    try {
      const b = await started(startDaemon({ dataDir: scratch(), args: ['--listen', `unix:${sock}`] }));
      if (!(b instanceof Error)) await b.stop();
      assert.ok(b instanceof Error, 'the second daemon started on the first one\'s socket');
      assert.match(b.message, new RegExp(`cannot listen on unix:${sock.replace(/[.]/g, '\\.')}: another process is listening on it`));
      assert.equal(await readyOn(sock), 200, 'the first daemon is unreachable');
    } finally {
      assert.equal(await a.stop(), 0, a.logs());
      removeDataDir(a.dataDir);
    }
    const stale = path.join(scratch(), 'stale.sock');
    await deadSocket(stale);
    const c = await startDaemon({ dataDir: scratch(), args: ['--listen', `unix:${stale}`] });
    assert.equal(await readyOn(stale), 200);
    assert.equal(await c.stop(), 0, c.logs());
    assert.ok(!existsSync(stale));
  });

  it('a lock on a file with the journal\'s inode number is not the journal\'s holder unless that process has the journal open', () => {
    const file = path.join(scratch(), 'journal.sqlite');
    writeFileSync(file, 'x');
    const ino = statSync(file).ino;
    // what /proc/locks shows for a lock this process holds on another filesystem's inode `ino`
    const locks = `1: POSIX  ADVISORY  WRITE ${process.pid} 00:99:${ino} 0 EOF\n`;
    assert.deepEqual(lockHolders(file, locks), [], 'same inode number, another file: not a holder');
    const fd = openSync(file, 'r');
    try {
      assert.deepEqual(lockHolders(file, locks), [process.pid]);
    } finally {
      closeSync(fd);
    }
  });

  it('two --takeover at once: one signals the old daemon, which drains and exits 0; the other is refused', LIMIT, async () => {
    const dir = scratch();
    const g = makeGate();
    const a = await startDaemon({ dataDir: dir, args: [...vectorDirArgs(), '--drain-timeout-ms', '100000'], env: g.env });
    const ca = new CuzkClient({ address: a.address });
    const { job } = await ca.submit({ key: zkey, witnesses: [new Uint8Array(readFileSync(vectorFile(mult, 'witness.wtns')))] });
    await untilRunning(ca, job.id);
    ca.close();
    const takeover = () => started(startDaemon({ dataDir: dir, args: [...vectorDirArgs(), '--takeover'] }));
    const both = [takeover(), takeover()];
    // with one of them refused the other waits for the old daemon, which waits at the gate
    const first = await Promise.race([...both, new Promise<'neither'>((r) => setTimeout(r, 60_000, 'neither'))]);
    g.open();
    const [b, c] = await Promise.all(both);
    try {
      assert.ok(first instanceof Error, `the first to finish was not refused: ${first === 'neither' ? 'neither finished in 60 s' : 'it started'}`);
      assert.match(first.message, /--takeover: pid \d+ \([^)]*\) is taking it over already/);
      assert.equal(await a.exited, 0, a.logs());
      assert.doesNotMatch(a.logs(), /second signal/);
      const winner = [b, c].find((d): d is DaemonProcess => !(d instanceof Error));
      assert.ok(winner, 'neither took over');
      assert.equal((winner.logs().match(/asked the running daemon to drain/g) ?? []).length, 1);
    } finally {
      for (const d of [b, c]) if (!(d instanceof Error)) await d.stop();
    }
  });

  it('a --store URL with a password is warned about at start, the password not repeated; one without is not', LIMIT, async () => {
    // nothing listens on port 1: the start fails after the warning, as it would after a good connect
    const withPw = await runChild(['serve', '--data-dir', scratch(), '--listen', '127.0.0.1:0', '--store', 'postgres://cuzk:s3cret-pw@127.0.0.1:1/cuzk']);
    assert.notEqual(withPw.code, 0);
    assert.match(withPw.stderr, /--store carries a password, which every local user can read in this process's command line/);
    assert.doesNotMatch(withPw.stderr, /s3cret-pw/);
    const without = await runChild(['serve', '--data-dir', scratch(), '--listen', '127.0.0.1:0', '--store', 'postgres://cuzk@127.0.0.1:1/cuzk']);
    assert.notEqual(without.code, 0);
    assert.doesNotMatch(without.stderr, /carries a password/);
  });
});
