// A fleet on a database without LISTEN/NOTIFY (`--store-notify off` on a real PostgreSQL, standing in
// for CockroachDB): no daemon LISTENs or calls pg_notify (a listener of the test's own on every
// channel hears nothing), and still everything the notices did happens by the polls.
// 1. Two daemons with a 10-minute lease, so no heartbeat falls within the test (one at start, the
//    next 200 s later) and only the 1 s store poll can carry a cancel: A paused, B gated. Jobs sent
//    to A with witness bytes (spooled at A) run on B; A's Await returns when they end; a Cancel sent
//    to A stops the job on B; A's spool file goes when the job ends on B, and B's when a job it
//    accepted is cancelled through A.
// 2. Two daemons, 2 s lease, one closed gate for both (what each claims waits at it: jobs are running
//    when B is killed, by construction), 10 jobs all sent to A: B hears of them only by its 1 s claim
//    timer; kill -9 of B, the gate opened: every job completes once with a verifying proof, B's jobs
//    requeued within 2× the lease.
// Skipped, loudly, when no PostgreSQL server can be started.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { CuzkError, type CuzkClient } from '../../src/client/index.js';
import type { JobInfo } from '../../src/engine/api.js';
import { CHANNELS } from '../../src/server/fleet/pg-claims.js';
import { slowDevKey, type DevKey } from '../helpers/dev-key.js';
import { logTimes, queryOnce, startFleet, stopFleet, type FleetDaemon } from '../helpers/fleet.js';
import { makeGate } from '../helpers/gate.js';
import { postgresProblem, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';

const skip = postgresProblem() ?? false;
let server: PostgresServer;
let fleet: FleetDaemon[] = [];
let key: DevKey;
const heard: string[] = [];
let listener: pg.Client | undefined;

before(async () => {
  if (skip) return;
  server = await startPostgres();
  key = await slowDevKey(1024);
});
after(async () => {
  await stopFleet(fleet);
  await listener?.end();
  server?.stop();
  await terminateSnarkjs();
});

/** A database for one test, and a connection of the test's that LISTENs on every channel of the queue. */
async function database(name: string): Promise<string> {
  const url = await server.createDatabase(name);
  await listener?.end();
  heard.length = 0;
  listener = new pg.Client({ connectionString: url });
  await listener.connect();
  listener.on('notification', (n) => heard.push(`${n.channel} ${n.payload ?? ''}`));
  for (const ch of Object.values(CHANNELS)) await listener.query(`LISTEN ${ch}`);
  return url;
}

/** No notification reached the test's listener (a round trip first: the server sends what is pending before it answers). */
async function noneHeard(): Promise<void> {
  await listener!.query('SELECT 1');
  assert.deepEqual(heard, [], 'no daemon called pg_notify');
}

function assertPolling(f: FleetDaemon): void {
  assert.match(f.d.logs(), /"why":"store\.notify = off"[^\n]*"msg":"queue notices off: idle daemons find new jobs by their 1 s claim timer/);
  assert.match(f.d.logs(), /"notices":"polling"[^\n]*"msg":"joined the fleet/);
}

const spoolFiles = (f: FleetDaemon) => readdirSync(path.join(f.d.dataDir, 'spool'));

async function until(ok: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok()) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  assert.ok(await ok(), what);
}

describe('fleet without LISTEN/NOTIFY (store.notify = off)', { skip, timeout: 240_000 }, () => {
  it('Await, a cross-daemon Cancel and spool removal reach the other daemon by the 1 s poll', async () => {
    const url = await database('notify_off_cancel');
    const gate = makeGate();
    gate.open();
    const dir = path.dirname(key.zkey);
    fleet = await startFleet(url, 2, ['--store-notify', 'off', '--lease-ms', '600000', '--key-dirs', dir, '--input-dirs', dir], [{}, gate.env]);
    const [a, b] = fleet as [FleetDaemon, FleetDaemon];
    for (const f of fleet) assertPolling(f);
    const listening = await queryOnce<{ n: string }>(url, "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE application_name = 'cuzk serve listen'");
    assert.equal(Number(listening[0]!.n), 0, 'no daemon keeps a LISTEN connection');
    await a.client.pauseQueue();
    const witness = () => [new Uint8Array(readFileSync(key.wtns))];

    // sent to A, run on B (it fetches A's spooled witness): A's Await returns, A's spool file goes
    const { job: first } = await a.client.submit({ key: key.zkey, witnesses: witness() });
    assert.equal(spoolFiles(a).length, 1, 'the witness is spooled at A');
    const done = await a.client.await(first.id, 60_000);
    assert.equal(done.state, 'completed', JSON.stringify(done.error));
    const vkey = JSON.parse(readFileSync(key.vkey, 'utf8')) as unknown;
    assert.equal(await snarkjsVerify(vkey, done.proofs![0]!.publicSignals, done.proofs![0]!.proof), true);
    await until(() => spoolFiles(a).length === 0, 'A\'s spool file goes once the job ended on B');

    // held at B's gate; a Cancel sent to A reaches B with no heartbeat due for minutes
    gate.close();
    const { job } = await a.client.submit({ key: key.zkey, witnesses: witness() });
    await until(async () => (await b.client.status()).running === 1, 'B holds the job at the gate');
    assert.equal((await a.client.cancel(job.id)).state, 'running', 'the cancel is on its way to B');
    const cancelled = await a.client.await(job.id, 20_000);
    assert.equal(cancelled.state, 'cancelled');
    assert.match(b.d.logs(), new RegExp(`"jobId":"${job.id}"[^\\n]*"msg":"cancel from another daemon applied"`));
    await until(async () => (await b.client.status()).running === 0, 'B runs nothing once the cancel applied');
    await until(() => spoolFiles(a).length === 0, 'A\'s spool file goes once the job was cancelled on B');
    gate.open();

    // a job B accepted, cancelled through A while queued: B's spool file goes too
    await b.client.pauseQueue();
    const { job: queued } = await b.client.submit({ key: key.zkey, witnesses: witness() });
    assert.equal(spoolFiles(b).length, 1, 'the witness is spooled at B');
    assert.equal((await a.client.cancel(queued.id)).state, 'cancelled');
    assert.equal((await b.client.await(queued.id, 0)).state, 'cancelled');
    await until(() => spoolFiles(b).length === 0, 'B\'s spool file goes once A cancelled the job');
    await noneHeard();
  });

  it('10 jobs sent to one daemon, claimed by both; kill -9 of one: all complete, requeued within 2× the lease', async () => {
    await stopFleet(fleet);
    const LEASE_MS = 2000;
    const JOBS = 10;
    const url = await database('notify_off_fleet');
    const dir = path.dirname(key.zkey);
    const gate = makeGate();
    gate.close();
    fleet = await startFleet(url, 2, ['--store-notify', 'off', '--lease-ms', String(LEASE_MS), '--key-dirs', dir, '--input-dirs', dir], [gate.env, gate.env]);
    const [a, b] = fleet as [FleetDaemon, FleetDaemon];
    const ids: string[] = [];
    for (let n = 0; n < JOBS; n++) ids.push((await a.client.submit({ key: key.zkey, witnessFiles: [key.wtns], requestId: `job${n}` })).job.id);

    // B is never told of A's jobs: it finds them by its claim timer, and they wait at its gate
    const held = async () => (await queryOnce<{ id: string }>(url, "SELECT id FROM jobs WHERE state = 'running' AND owner = $1", [b.id])).map((r) => r.id);
    await until(async () => (await held()).length > 0, 'B claimed some of the jobs sent to A', 30_000);
    const claimedByA = (a.d.logs().match(/"msg":"job claimed"/g) ?? []).length;
    assert.equal(await b.d.stop('SIGKILL'), 'SIGKILL');
    const killedAt = Date.now();
    const orphans = await held();
    assert.ok(orphans.length > 0, 'the killed daemon left running jobs behind');
    gate.open();

    const results: JobInfo[] = [];
    for (const id of ids) results.push(await awaitLive(a.client, id));
    const vkey = JSON.parse(readFileSync(key.vkey, 'utf8')) as unknown;
    for (const j of results) {
      assert.equal(j.state, 'completed', `job ${j.id}: ${JSON.stringify(j.error)}`);
      assert.equal(j.proofs?.length, 1);
      assert.equal(await snarkjsVerify(vkey, j.proofs![0]!.publicSignals, j.proofs![0]!.proof), true, `job ${j.id}'s proof verifies`);
    }
    const rows = await queryOnce<{ state: string; n: string }>(url, 'SELECT state, COUNT(*) AS n FROM jobs GROUP BY state');
    assert.deepEqual(rows.map((r) => [r.state, Number(r.n)]), [['completed', JOBS]], 'none lost, none left behind');
    const requeuedAt = logTimes(a.d.logs(), 'lease expired: job requeued');
    const recovery = orphans.map((id) => (requeuedAt.get(id) ?? Infinity) - killedAt);
    process.stderr.write(`fleet, notify off: ${JOBS} jobs, A had claimed ${claimedByA} when B was killed holding ${orphans.length}; requeued after ${recovery.join(',')} ms\n`);
    for (const ms of recovery) assert.ok(ms <= 2 * LEASE_MS, `requeued ${ms} ms after the kill (lease ${LEASE_MS} ms)`);
    await noneHeard();
  });
});

/** Awaits `id` on `c` until it is terminal, for at most two minutes. */
async function awaitLive(c: CuzkClient, id: string): Promise<JobInfo> {
  const end = Date.now() + 120_000;
  for (;;) {
    try {
      const j = await c.await(id, Math.max(1, Math.min(30_000, end - Date.now())));
      if (['completed', 'failed', 'cancelled', 'expired'].includes(j.state) || Date.now() >= end) return j;
    } catch (err) {
      if (!(err instanceof CuzkError && err.code === 'E_UNAVAILABLE')) throw err;
    }
  }
}
