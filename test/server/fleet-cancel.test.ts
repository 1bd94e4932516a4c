// Any daemon of a fleet answers for any job: two daemons on one PostgreSQL queue, A with its queue
// paused (it claims nothing), B with a closed gate (its proofs hold before the device phase, so a job
// stays running by construction). A job submitted to A runs on B; A's Await and WatchJob follow it,
// a Cancel sent to A reaches B by NOTIFY, the job ends cancelled and B's memory returns to what it
// was before the job (no buffers in use, the same budget use). A queued job cancelled through A
// ends at once, seen so by B. A's GetStatus lists both daemons from their heartbeats. Skipped, loudly, when no PostgreSQL server can be started.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CuzkClient } from '../../src/client/index.js';
import type { EngineStatus, JobEvent } from '../../src/engine/api.js';
import { slowDevKey, type DevKey } from '../helpers/dev-key.js';
import { queryOnce, startFleet, stopFleet, type FleetDaemon } from '../helpers/fleet.js';
import { makeGate } from '../helpers/gate.js';
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

/** Polls `c`'s status (bounded) until `ok` holds; returns the status that met it. */
async function statusUntil(c: CuzkClient, ok: (s: EngineStatus) => boolean, what: string): Promise<EngineStatus> {
  let s = await c.status();
  for (let i = 0; i < 500 && !ok(s); i++) {
    await new Promise((r) => setTimeout(r, 20));
    s = await c.status();
  }
  assert.ok(ok(s), `${what}: ${JSON.stringify({ running: s.running, budget: s.budget, pinnedPool: s.pinnedPool })}`);
  return s;
}

const memory = (s: EngineStatus) => ({ host: s.budget.host.used, pinned: s.budget.pinned.used, inUse: s.pinnedPool.inUse, running: s.running });

describe('fleet: any daemon answers for any job', { skip, timeout: 120_000 }, () => {
  it('a cancel sent to A for a job running on B stops it there and frees its memory', async () => {
    const url = await server.createDatabase('cancel');
    const gate = makeGate();
    gate.open();
    const dir = path.dirname(key.zkey);
    fleet = await startFleet(url, 2, ['--lease-ms', '2000', '--key-dirs', dir, '--input-dirs', dir], [{}, gate.env]);
    const [a, b] = fleet as [FleetDaemon, FleetDaemon];
    for (const f of fleet) assert.match(f.d.logs(), /"notices":"listen\/notify"[^\n]*"msg":"joined the fleet/, 'store.notify = auto: the probe found LISTEN/NOTIFY');
    await a.client.pauseQueue();

    // warm-up through A, run by B: B then holds the key and its buffers are pooled
    const { job: warm } = await a.client.submit({ key: key.zkey, witnessFiles: [key.wtns] });
    const warmDone = await a.client.await(warm.id);
    assert.equal(warmDone.state, 'completed', JSON.stringify(warmDone.error));
    const idle = memory(await statusUntil(b.client, (s) => s.running === 0, 'B idle after the warm-up'));

    gate.close();
    const { job } = await a.client.submit({ key: key.zkey, witnessFiles: [key.wtns] });
    // its buffers come from the pool (already in the budget): in use while the job holds them
    await statusUntil(b.client, (s) => s.running === 1 && s.pinnedPool.inUse > idle.inUse, 'B holds the job at the gate');
    const [row] = await queryOnce<{ owner: string; state: string }>(url, 'SELECT owner, state FROM jobs WHERE id = $1', [job.id]);
    assert.deepEqual(row, { owner: b.id, state: 'running' }, 'B claimed it');
    assert.equal((await a.client.await(job.id, 0)).state, 'running', 'A answers for a job running on B');
    // A's GetStatus shows the fleet from the heartbeats: both daemons, B with the key and the job
    let st = await a.client.status();
    for (let i = 0; i < 100 && !st.fleet.find((m) => m.id === b.id)?.running.includes(job.id); i++) {
      await new Promise((r) => setTimeout(r, 50));
      st = await a.client.status();
    }
    assert.equal(st.daemonId, a.id);
    assert.deepEqual(st.fleet.map((m) => m.id).sort(), [a.id, b.id].sort());
    const seen = st.fleet.find((m) => m.id === b.id)!;
    assert.deepEqual(seen.running, [job.id], 'B\'s heartbeat names the job it runs');
    assert.equal(seen.keys.length, 1);
    assert.equal(seen.address, b.d.address);
    assert.deepEqual(seen.devices.map((d) => d.id), ['cpu']);
    assert.ok(seen.heartbeatAgeMs < 2000, `B's last heartbeat ${seen.heartbeatAgeMs} ms ago, within the lease`);

    const events: JobEvent[] = [];
    const watching = (async () => {
      for await (const e of a.client.watch(job.id)) events.push(e);
    })();
    const asked = await a.client.cancel(job.id);
    assert.equal(asked.state, 'running', 'the cancel is on its way to B');
    const done = await a.client.await(job.id, 20_000);
    assert.equal(done.state, 'cancelled');
    await watching;
    assert.deepEqual(events.map((e) => e.type === 'state' && e.state), ['running', 'cancelled'], 'WatchJob on A followed the job on B');
    assert.match(b.d.logs(), new RegExp(`"jobId":"${job.id}"[^\\n]*"msg":"cancel from another daemon applied"`));
    const after = await statusUntil(b.client, (s) => s.running === 0 && s.pinnedPool.inUse === idle.inUse, 'B back to idle');
    assert.deepEqual(memory(after), idle, 'B\'s memory is what it was before the job');
    assert.equal((await b.client.await(job.id, 0)).state, 'cancelled');

    // a job nobody claimed: cancelled through A at once, and so on B
    await b.client.pauseQueue();
    const { job: queued } = await b.client.submit({ key: key.zkey, witnessFiles: [key.wtns] });
    assert.equal((await a.client.await(queued.id, 0)).state, 'queued');
    assert.equal((await a.client.cancel(queued.id)).state, 'cancelled');
    assert.equal((await b.client.await(queued.id, 0)).state, 'cancelled');
    gate.open();
  });
});
