// Nothing accepted is lost: kill -9 in the middle of a proof, restart on the same journal, and the
// jobs complete under their ids with proofs snarkjs accepts; request ids stay idempotent and old
// results stay fetchable across restarts; SIGTERM lets the running proof finish (or, past the drain
// deadline, requeues it) and a second signal exits at once.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CuzkClient, type JobInfo } from '../../src/client/index.js';
import { slowDevKey, type DevKey } from '../helpers/dev-key.js';
import { makeDataDir, removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
let dev: DevKey;
let witness: Uint8Array;
const dirs: string[] = [];
const served = () => vectorDirArgs(path.dirname(dev.zkey));
before(async () => {
  dev = await slowDevKey(8192);
  witness = new Uint8Array(readFileSync(dev.wtns));
});
after(async () => {
  for (const d of dirs) removeDataDir(d);
  await terminateSnarkjs();
});

function dataDir(): string {
  const d = makeDataDir();
  dirs.push(d);
  return d;
}

/** The id of the job the daemon is proving now (polls its status). */
async function runningJob(c: CuzkClient): Promise<string> {
  for (;;) {
    const cur = (await c.status()).devices.find((x) => x.currentJob)?.currentJob;
    if (cur) return cur;
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function assertDevProof(job: JobInfo): Promise<void> {
  assert.equal(job.state, 'completed', JSON.stringify(job.error));
  const p = job.proofs![0]!;
  assert.equal(await snarkjsVerify(JSON.parse(readFileSync(dev.vkey, 'utf8')), p.publicSignals, p.proof), true);
}

/** One after another, so the engine's FIFO order is the array's order. */
async function submitDev(c: CuzkClient, n: number, prefix: string): Promise<JobInfo[]> {
  const jobs: JobInfo[] = [];
  // four proofs per job, so a job seen running is still running a moment later, even on a fast machine
  for (let i = 0; i < n; i++) jobs.push((await c.submit({ key: dev.zkey, witnesses: [witness, witness, witness, witness], requestId: `${prefix}-${i}` })).job);
  return jobs;
}

describe('cuzk serve: durability', () => {
  it('kill -9 mid-proof, restart: the jobs complete and verify; ids, request ids and old results survive', async () => {
    const dir = dataDir();
    let d: DaemonProcess = await startDaemon({ dataDir: dir, args: served() });
    let c = new CuzkClient({ address: d.address });
    const early = await c.prove({ key: vectorFile(bnMult, 'circuit.zkey'), witnesses: [new Uint8Array(readFileSync(vectorFile(bnMult, 'witness.wtns')))] });
    assert.equal(early.state, 'completed');
    const jobs = await submitDev(c, 3, 'kill9');
    const running = await runningJob(c);
    const killedAt = Date.now();
    assert.equal(await d.stop('SIGKILL'), 'SIGKILL');

    d = await startDaemon({ dataDir: dir, args: served() });
    try {
      c = new CuzkClient({ address: d.address });
      const resubmitted = (id: string) => new RegExp(`"jobId":"${id}"[^\n]*"msg":"journaled job resubmitted"`).test(d.logs());
      // the job seen running runs again, unless it finished in the moment between the look and the kill
      const seen = await c.await(running, 0);
      if (!(seen.state === 'completed' && (seen.finishedAt ?? Infinity) <= killedAt)) assert.ok(resubmitted(running), 'the job killed mid-proof runs again');
      assert.ok(jobs.some((j) => resubmitted(j.id)), 'jobs unfinished at the kill run again');
      for (const j of jobs) {
        const done = await c.await(j.id);
        assert.equal(done.requestId, j.requestId);
        assert.equal(done.submittedAt, j.submittedAt, 'the original submission time is kept');
        await assertDevProof(done);
      }
      const again = await c.submit({ key: dev.zkey, witnesses: [witness, witness, witness, witness], requestId: 'kill9-1' });
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
    const dir = dataDir();
    let d = await startDaemon({ dataDir: dir, args: served() });
    let c = new CuzkClient({ address: d.address });
    const jobs = await submitDev(c, 3, 'term');
    const running = await runningJob(c);
    const waiting = c.await(jobs[2]!.id); // answered with its current state when the daemon has drained
    const stopped = d.stop('SIGTERM');
    const late = await c.submit({ key: dev.zkey, witnesses: [witness] }).then(() => undefined, (e: { code: string }) => e.code);
    assert.ok(late === 'E_OVERLOADED' || late === 'E_UNAVAILABLE', `a submit during the drain: ${late}`);
    assert.equal(await stopped, 0, d.logs());
    assert.match(d.logs(), /"jobId":"[^"]+","state":"completed"[^\n]*"msg":"job completed"/);
    const answered = await waiting;
    assert.ok(answered.state === 'queued' || answered.state === 'completed', answered.state);

    d = await startDaemon({ dataDir: dir, args: served() });
    try {
      c = new CuzkClient({ address: d.address });
      const first = await c.await(running, 0);
      assert.equal(first.state, 'completed', 'the in-flight proof finished during the drain');
      for (const j of jobs) await assertDevProof(await c.await(j.id));
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
    }
  });

  it('past the drain deadline the running job is requeued; a second signal exits at once', async () => {
    const dir = dataDir();
    let d = await startDaemon({ dataDir: dir, args: ['--drain-timeout-ms', '50', ...served()] });
    let c = new CuzkClient({ address: d.address });
    // six proofs in one job: still running at the 50 ms deadline even where one proof is quick (a
    // single proof can finish inside its last phase before the stop is seen, and is then kept)
    const { job } = await c.submit({ key: dev.zkey, witnesses: Array.from({ length: 6 }, () => witness), requestId: 'deadline-0' });
    assert.equal(await runningJob(c), job.id);
    assert.equal(await d.stop('SIGTERM'), 0, d.logs());
    assert.match(d.logs(), /stays queued in the journal/);

    d = await startDaemon({ dataDir: dir, args: ['--drain-timeout-ms', '60000', ...served()] });
    c = new CuzkClient({ address: d.address });
    await assertDevProof(await c.await(job.id));
    const [next] = await submitDev(c, 1, 'twice');
    assert.equal(await runningJob(c), next!.id);
    const t0 = Date.now();
    d.proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 50));
    d.proc.kill('SIGINT');
    assert.equal(await d.exited, 130);
    assert.ok(Date.now() - t0 < 5000, 'the second signal did not wait for the drain');

    d = await startDaemon({ dataDir: dir, args: served() });
    try {
      await assertDevProof(await new CuzkClient({ address: d.address }).await(next!.id));
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
    }
  });
});
