// Nothing accepted is lost: kill -9 in the middle of a proof, restart on the same journal, and the
// jobs complete under their ids with proofs snarkjs accepts; request ids stay idempotent and old
// results stay fetchable across restarts; SIGTERM lets the running proof finish (or, past the drain
// deadline, requeues it) and a second signal exits at once. "Running" is held by construction: the
// daemon children run with a gate (test/helpers/gate.ts) that keeps every proof before its device
// phase until the test opens it, so no assertion depends on how fast this machine proves.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { CuzkClient, type JobInfo } from '../../src/client/index.js';
import { startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { makeGate, untilRunning } from '../helpers/gate.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { scratch } from '../helpers/scratch-fs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const zkey = vectorFile(bnMult, 'circuit.zkey');
const witness = new Uint8Array(readFileSync(vectorFile(bnMult, 'witness.wtns')));
const vkey = JSON.parse(readFileSync(vectorFile(bnMult, 'vkey.json'), 'utf8'));
const served = () => vectorDirArgs();
after(async () => {
  await terminateSnarkjs();
});



async function assertProof(job: JobInfo): Promise<void> {
  assert.equal(job.state, 'completed', JSON.stringify(job.error));
  const p = job.proofs![0]!;
  assert.equal(await snarkjsVerify(vkey, p.publicSignals, p.proof), true);
}

/** One after another, so the engine's FIFO order is the array's order. */
async function submitJobs(c: CuzkClient, n: number, prefix: string): Promise<JobInfo[]> {
  const jobs: JobInfo[] = [];
  for (let i = 0; i < n; i++) jobs.push((await c.submit({ key: zkey, witnesses: [witness], requestId: `${prefix}-${i}` })).job);
  return jobs;
}

describe('cuzk serve: durability', { timeout: 120_000 }, () => {
  it('kill -9 mid-proof, restart: the jobs complete and verify; ids, request ids and old results survive', async () => {
    const dir = scratch();
    const g = makeGate();
    g.open();
    let d: DaemonProcess = await startDaemon({ dataDir: dir, args: served(), env: g.env });
    let c = new CuzkClient({ address: d.address });
    const early = await c.prove({ key: zkey, witnesses: [witness] });
    assert.equal(early.state, 'completed');
    g.close();
    const jobs = await submitJobs(c, 3, 'kill9');
    await untilRunning(c, jobs[0]!.id);
    assert.equal(await d.stop('SIGKILL'), 'SIGKILL');

    d = await startDaemon({ dataDir: dir, args: served() });
    try {
      c = new CuzkClient({ address: d.address });
      const resubmitted = (id: string) => new RegExp(`"jobId":"${id}"[^\n]*"msg":"journaled job resubmitted"`).test(d.logs());
      // none could finish before the kill (the gate held them): every one runs again, the one
      // killed mid-proof included
      for (const j of jobs) assert.ok(resubmitted(j.id), `job ${j.id} runs again after the kill`);
      for (const j of jobs) {
        const done = await c.await(j.id);
        assert.equal(done.requestId, j.requestId);
        assert.equal(done.submittedAt, j.submittedAt, 'the original submission time is kept');
        await assertProof(done);
      }
      const again = await c.submit({ key: zkey, witnesses: [witness], requestId: 'kill9-1' });
      assert.equal(again.deduplicated, true);
      assert.equal(again.job.id, jobs[1]!.id);
      const old = await c.await(early.id, 0);
      assert.equal(old.state, 'completed');
      assert.deepEqual(old.proofs, early.proofs);
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
    }
  });

  it('SIGTERM: the running proof finishes, queued jobs stay journaled and run after a restart', async () => {
    const dir = scratch();
    const g = makeGate();
    let d = await startDaemon({ dataDir: dir, args: served(), env: g.env });
    let c = new CuzkClient({ address: d.address });
    const jobs = await submitJobs(c, 3, 'term');
    await untilRunning(c, jobs[0]!.id);
    const waiting = c.await(jobs[2]!.id); // answered with its current state when the daemon has drained
    const stopped = d.stop('SIGTERM');
    // the drain cannot end while the gate holds the running proof, so the listener is still up
    // and a submit now meets the stopped intake
    const jobsAfter: string[] = []; // accepted before the signal was handled: journaled, run after the restart
    let late: string | undefined;
    for (let i = 0; i < 200 && late === undefined; i++) {
      late = await c.submit({ key: zkey, witnesses: [witness] }).then((r) => { jobsAfter.push(r.job.id); return undefined; }, (e: { code: string }) => e.code);
    }
    assert.equal(late, 'E_OVERLOADED');
    g.open();
    assert.equal(await stopped, 0, d.logs());
    assert.match(d.logs(), new RegExp(`"jobId":"${jobs[0]!.id}","state":"completed"[^\\n]*"msg":"job completed"`));
    assert.equal((await waiting).state, 'queued', 'a queued job stays queued through the drain');

    d = await startDaemon({ dataDir: dir, args: served() });
    try {
      c = new CuzkClient({ address: d.address });
      const first = await c.await(jobs[0]!.id, 0);
      assert.equal(first.state, 'completed', 'the in-flight proof finished during the drain');
      for (const id of [...jobs.map((j) => j.id), ...jobsAfter]) await assertProof(await c.await(id));
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
    }
  });

  it('past the drain deadline the running job is requeued; a second signal exits at once', async () => {
    const dir = scratch();
    const g = makeGate();
    let d = await startDaemon({ dataDir: dir, args: ['--drain-timeout-ms', '50', ...served()], env: g.env });
    let c = new CuzkClient({ address: d.address });
    const { job } = await c.submit({ key: zkey, witnesses: [witness], requestId: 'deadline-0' });
    await untilRunning(c, job.id);
    assert.equal(await d.stop('SIGTERM'), 0, d.logs());
    assert.match(d.logs(), new RegExp(`"jobId":"${job.id}"[^\\n]*stays queued in the journal`));

    d = await startDaemon({ dataDir: dir, args: ['--drain-timeout-ms', '60000', ...served()] });
    c = new CuzkClient({ address: d.address });
    await assertProof(await c.await(job.id));
    assert.equal(await d.stop(), 0, d.logs());

    d = await startDaemon({ dataDir: dir, args: ['--drain-timeout-ms', '60000', ...served()], env: g.env });
    c = new CuzkClient({ address: d.address });
    const [next] = await submitJobs(c, 1, 'twice');
    await untilRunning(c, next!.id);
    const t0 = Date.now();
    d.proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 50));
    d.proc.kill('SIGINT');
    assert.equal(await d.exited, 130);
    assert.ok(Date.now() - t0 < 5000, 'the second signal did not wait for the drain');

    d = await startDaemon({ dataDir: dir, args: served() });
    try {
      await assertProof(await new CuzkClient({ address: d.address }).await(next!.id));
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
    }
  });
});
