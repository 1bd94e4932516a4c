// A daemon of a fleet stopped with SIGTERM gives its unfinished jobs back to the shared queue at once
// (no wait for its lease): B holds a job at a closed gate, drains past its deadline and exits; the row
// is queued again with no owner, and A, resumed, claims it as the next attempt and completes it.
// Skipped, loudly, when no PostgreSQL server can be started (test/helpers/postgres.ts).
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { slowDevKey, type DevKey } from '../helpers/dev-key.js';
import { queryOnce, startFleet, stopFleet, type FleetDaemon } from '../helpers/fleet.js';
import { makeGate, untilRunning } from '../helpers/gate.js';
import { postgresProblem, startPostgres, type PostgresServer } from '../helpers/postgres.js';

const skip = postgresProblem() ?? false;
let server: PostgresServer;
let fleet: FleetDaemon[] = [];
let key: DevKey;

before(async () => {
  if (skip) return;
  server = await startPostgres();
  key = await slowDevKey(1024);
});
after(async () => {
  await stopFleet(fleet);
  server?.stop();
});

describe('fleet: a daemon stopping hands its jobs back', { skip, timeout: 120_000 }, () => {
  it('SIGTERM requeues the running job at once; another daemon completes it as the next attempt', async () => {
    const url = await server.createDatabase('stop');
    const gate = makeGate();
    const dir = path.dirname(key.zkey);
    // a lease far longer than the test: only the hand-back can requeue the job in time
    fleet = await startFleet(url, 2, ['--lease-ms', '600000', '--drain-timeout-ms', '200', '--key-dirs', dir, '--input-dirs', dir], [{}, gate.env]);
    const [a, b] = fleet as [FleetDaemon, FleetDaemon];
    await a.client.pauseQueue();
    const { job } = await a.client.submit({ key: key.zkey, witnessFiles: [key.wtns] });
    await untilRunning(b.client, job.id);
    // 'running' in the shared queue means claimed; SIGTERM before B's engine took the job would hand it
    // back on the claim's own path (the engine refuses it), not as an unfinished job
    await gate.untilHeld();
    assert.deepEqual(await queryOnce(url, 'SELECT owner, attempt FROM jobs WHERE id = $1', [job.id]), [{ owner: b.id, attempt: 1 }]);

    assert.equal(await b.d.stop('SIGTERM'), 0);
    assert.match(b.d.logs(), /"requeued":1[^\n]*"msg":"unfinished jobs given back to the shared queue"/);
    assert.deepEqual(await queryOnce(url, 'SELECT state, owner FROM jobs WHERE id = $1', [job.id]), [{ state: 'queued', owner: null }]);
    const members = await queryOnce<{ id: string }>(url, 'SELECT id FROM daemons');
    assert.deepEqual(members.map((m) => m.id), [a.id], 'B left the fleet');

    await a.client.resumeQueue();
    const done = await a.client.await(job.id, 60_000);
    assert.equal(done.state, 'completed', JSON.stringify(done.error));
    assert.deepEqual(await queryOnce(url, 'SELECT state, attempt FROM jobs WHERE id = $1', [job.id]), [{ state: 'completed', attempt: 2 }]);
  });
});
