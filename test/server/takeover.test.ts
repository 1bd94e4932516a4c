// `cuzk serve --takeover`: a new daemon on a running daemon's data dir asks it to drain (SIGTERM),
// waits for its journal lock, and starts on the same address; the old one's queued jobs run on the
// new one, none lost, none completed twice. "Running" is held by the test gate (test/helpers/gate.ts),
// so the old daemon has queued jobs when the new one starts whatever this machine's speed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { CuzkClient, type JobInfo } from '../../src/client/index.js';
import { longCheckoutPath, runChild, startDaemon, vectorDirArgs } from '../helpers/daemon.js';
import { makeGate, untilRunning } from '../helpers/gate.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { processLabel } from '../../src/server/startup/takeover.js';
import { scratch } from '../helpers/scratch-fs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const zkey = vectorFile(bnMult, 'circuit.zkey');
const witness = new Uint8Array(readFileSync(vectorFile(bnMult, 'witness.wtns')));
const vkey = JSON.parse(readFileSync(vectorFile(bnMult, 'vkey.json'), 'utf8'));
after(async () => {
  await terminateSnarkjs();
});



async function until(cond: () => boolean, what: string): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > 30_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** How many times each job id was logged completed, across the daemons' logs. */
function completions(logs: string): Map<string, number> {
  const n = new Map<string, number>();
  for (const line of logs.split('\n')) {
    const m = /"jobId":"([^"]+)","state":"completed"[^\n]*"msg":"job completed"/.exec(line);
    if (m) n.set(m[1]!, (n.get(m[1]!) ?? 0) + 1);
  }
  return n;
}

describe('processLabel: a lock holder as a message names it', () => {
  const deep = `/${'very-long-folder-name/'.repeat(8)}clone`;
  it('a cuzk serve is "cuzk serve" and its flags, whatever the interpreter and install path before it', () => {
    const args = ['/usr/bin/node', '--import', 'tsx', `${deep}/test/helpers/cuzk-child.ts`, 'serve', '--data-dir', '/tmp/d', '--listen', '127.0.0.1:0'];
    assert.equal(processLabel(args), 'cuzk serve --data-dir /tmp/d --listen 127.0.0.1:0');
    assert.equal(processLabel(['/opt/cuzk/bin/cuzk.js', 'serve']), 'cuzk serve');
  });
  it('a long command line is cut after a whole word and marked with "…"', () => {
    const args = ['/usr/bin/node', `${deep}/bin/cuzk.js`, 'serve', '--data-dir', `${deep}/data`, '--listen', '127.0.0.1:7000'];
    const label = processLabel(args, 60);
    assert.equal(label, 'cuzk serve --data-dir …');
    assert.ok(label.length <= 62);
    assert.equal(processLabel(['sleep', 'infinity'], 60), 'sleep infinity', 'not a cuzk serve: as it is');
    assert.equal(processLabel([`${deep}/python3`, 'x.py'], 20), `${deep.slice(0, 20)}…`, 'one word longer than the limit: cut, marked');
  });
});

describe('cuzk serve --takeover', { timeout: 180_000 }, () => {
  it('a new daemon takes over a running one with 30 jobs queued: the old one drains and exits 0, all 30 complete once and verify', async () => {
    const dir = scratch();
    const g = makeGate();
    const a = await startDaemon({ dataDir: dir, args: vectorDirArgs(), env: g.env });
    let aExit: number | string | undefined;
    void a.exited.then((code) => (aExit = code));
    const ca = new CuzkClient({ address: a.address });
    await ca.loadKey({ path: zkey });
    await ca.pauseQueue();
    const jobs: JobInfo[] = [];
    for (let i = 0; i < 30; i++) jobs.push((await ca.submit({ key: zkey, witnesses: [witness], requestId: `takeover-${i}` })).job);
    await ca.resumeQueue();
    await untilRunning(ca, jobs[0]!.id); // held at the gate: the other jobs wait behind it

    // B, on A's own address: it can bind only once A has closed its listener
    const starting = startDaemon({ dataDir: dir, args: [...vectorDirArgs(), '--takeover', '--listen', a.address] });
    await until(() => a.logs().includes('"msg":"stopping: no new jobs, draining"'), 'A to start draining');
    assert.equal(aExit, undefined, 'A drains while its running proof is held');
    g.open();
    const b = await starting;
    try {
      assert.equal(await a.exited, 0, a.logs());
      assert.equal(b.address, a.address, 'B serves the address A served');
      assert.match(b.logs(), /"msg":"takeover: asked the running daemon to drain \(SIGTERM\)/);
      const unfinished = Number(/"unfinished":(\d+)[^\n]*"msg":"stopped: unfinished jobs stay queued/.exec(a.logs())?.[1]);
      assert.ok(unfinished > 0, `A left queued jobs for B (left ${unfinished})`);
      const resubmitted = jobs.filter((j) => new RegExp(`"jobId":"${j.id}"[^\\n]*"msg":"journaled job resubmitted"`).test(b.logs()));
      assert.equal(resubmitted.length, unfinished, 'B resubmits exactly the jobs A left queued');

      const cb = new CuzkClient({ address: b.address });
      for (const j of jobs) {
        const done = await cb.await(j.id);
        assert.equal(done.state, 'completed', JSON.stringify(done.error));
        assert.equal(done.requestId, j.requestId);
        const p = done.proofs![0]!;
        assert.equal(await snarkjsVerify(vkey, p.publicSignals, p.proof), true, `job ${j.id} verifies`);
      }
      const n = completions(a.logs() + b.logs());
      for (const j of jobs) assert.equal(n.get(j.id), 1, `job ${j.id} completed exactly once (A or B)`);
      assert.ok(completions(a.logs()).has(jobs[0]!.id), 'the proof running on A finished there during its drain');
    } finally {
      assert.equal(await b.stop(), 0, b.logs());
    }
  });

  it('--takeover with no daemon running starts normally', async () => {
    const dir = scratch();
    const d = await startDaemon({ dataDir: dir, args: [...vectorDirArgs(), '--takeover'] });
    try {
      assert.doesNotMatch(d.logs(), /takeover:/);
      assert.equal((await new CuzkClient({ address: d.address }).prove({ key: zkey, witnesses: [witness] })).state, 'completed');
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
    }
  });

  it('a daemon that does not release the journal within --takeover-timeout-s: one line naming it, exit non-zero; without --takeover, refused at once', async () => {
    const dir = scratch();
    const g = makeGate();
    // started through a 150+ character path: the message names the holder whatever the clone's path
    const checkout = longCheckoutPath(scratch());
    const a = await startDaemon({ dataDir: dir, args: vectorDirArgs(), env: g.env, checkout });
    assert.ok((readFileSync(`/proc/${a.proc.pid}/cmdline`, 'utf8').split('\0')[3] ?? '').startsWith(checkout), 'the holder runs from the long path');
    const ca = new CuzkClient({ address: a.address });
    const { job } = await ca.submit({ key: zkey, witnesses: [witness] });
    await untilRunning(ca, job.id);

    const refused = await runChild(['serve', '--data-dir', dir, '--listen', '127.0.0.1:0']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /is locked by another process: .*start this one with --takeover/);
    assert.doesNotMatch(a.logs(), /stopping/, 'without --takeover the running daemon is not signalled');

    const t0 = Date.now();
    const r = await runChild(['serve', '--data-dir', dir, '--listen', '127.0.0.1:0', '--takeover', '--takeover-timeout-s', '1']);
    assert.ok(Date.now() - t0 >= 1000, 'it waited the timeout');
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, new RegExp(`^cuzk: E_UNAVAILABLE: journal ${path.join(dir, 'journal.sqlite').replace(/[.]/g, '\\.')}: --takeover: still locked by pid ${a.proc.pid} \\(cuzk serve --data-dir [^)]*\\) after 1 s: it is still draining`));
    assert.match(a.logs(), /"msg":"stopping: no new jobs, draining"/, 'the running daemon was asked to drain');
    g.open();
    assert.equal(await a.exited, 0, a.logs());
    assert.equal(completions(a.logs()).get(job.id), 1, 'its running proof finished on it');
  });
});
