// The claim statements of the shared PostgreSQL queue (src/server/fleet/pg-claims.ts) on a real server:
// what fits the free budget, in priority, residency and age order; concurrent claimers never get the
// same job (SKIP LOCKED); an expired lease is requeued and the next claim is a new attempt; results
// are fenced (the first proof wins, a late duplicate or a stale attempt's failure is refused); cancels
// of queued and running jobs. Leases are made expired by construction (a negative lease), never by
// waiting. Skipped, loudly, when no PostgreSQL server can be started (test/helpers/postgres.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobInfo, Priority } from '../../src/engine/api.js';
import type { MemoryNeed, StoredJob } from '../../src/server/journal/job-store.js';
import { PgClaims } from '../../src/server/fleet/pg-claims.js';
import { openPostgresStore, type PostgresStore } from '../../src/server/journal/pg-store.js';
import { postgresProblem, startPostgres, type PostgresServer } from '../helpers/postgres.js';

const skip = postgresProblem() ?? false;
let server: PostgresServer;
let store: PostgresStore;
let claims: PgClaims;
let n = 0;

before(async () => {
  if (skip) return;
  server = await startPostgres();
  store = await openPostgresStore(await server.createDatabase('claims'));
  claims = new PgClaims(store.pool);
});
after(async () => {
  await store?.close();
  server?.stop();
});

const ROOMY = { host: 1e12, pinned: 1e12, gpu: Infinity };
const small: MemoryNeed = { host: 100, pinned: 100, gpu: 100, key: 1000 };

async function queue(opts: { key?: string; priority?: Priority; need?: MemoryNeed } = {}): Promise<string> {
  const id = `job-${++n}`;
  const job: StoredJob = {
    id, fingerprint: `f${n}`, key: opts.key ?? 'k1', priority: opts.priority ?? 'normal', state: 'queued', partitions: 1,
    submittedAt: Date.now() + n, request: { inputs: [{ a: 1 }], wasm: '/w.wasm' }, need: opts.need ?? small,
  };
  await store.insert(job);
  return id;
}

const completed = (id: string, proof: string): JobInfo => ({ id, key: 'k1', priority: 'normal', state: 'completed', partitions: 1, submittedAt: 0, timings: {}, proofs: [{ proof: { protocol: proof } as never, publicSignals: [] }] });

/** Claims everything left so the next test starts from an empty queue. */
async function drainQueue(): Promise<void> {
  while (await claims.claim('sweeper', ROOMY, [], 60_000)) {}
}

describe('PostgreSQL claims', { skip }, () => {
  it('claims only what fits, by priority, then a held key, then age', async () => {
    await drainQueue();
    const tooBig = await queue({ priority: 'critical', need: { ...small, pinned: 10_000 } });
    const oldOtherKey = await queue({ key: 'k2' });
    const newHeldKey = await queue({ key: 'k1' });
    const high = await queue({ priority: 'high', key: 'k2' });
    const free = { host: 5000, pinned: 5000, gpu: Infinity };
    const order: string[] = [];
    for (let c = await claims.claim('d1', free, ['k1'], 60_000); c; c = await claims.claim('d1', free, ['k1'], 60_000)) {
      order.push(c.job.id);
      assert.equal(c.attempt, 1);
      assert.equal(c.resident, c.job.key === 'k1');
      assert.deepEqual(c.need, small);
    }
    assert.deepEqual(order, [high, newHeldKey, oldOtherKey], 'the critical job needs more pinned memory than is free');
    assert.equal((await claims.claimOf(tooBig))?.state, 'queued');
    // a key not held counts against the host budget: 100 + 1000 > 1000 free, 100 alone fits when held
    const keyed = await drainAndQueueOne({ key: 'k3' });
    assert.equal(await claims.claim('d1', { host: 1000, pinned: 1e6, gpu: Infinity }, [], 60_000), undefined);
    assert.equal((await claims.claim('d1', { host: 1000, pinned: 1e6, gpu: Infinity }, ['k3'], 60_000))?.job.id, keyed);
  });

  it('concurrent claimers never get the same job', async () => {
    await drainQueue();
    const ids = new Set(await Promise.all(Array.from({ length: 12 }, () => queue())));
    const got = await Promise.all(Array.from({ length: 16 }, (_, i) => claims.claim(`d${i % 4}`, ROOMY, [], 60_000)));
    const claimed = got.filter((c) => c !== undefined).map((c) => c.job.id);
    assert.equal(claimed.length, 12);
    assert.deepEqual(new Set(claimed), ids);
  });

  it('an expired lease is requeued; the first proof wins and a late duplicate is refused', async () => {
    await drainQueue();
    const id = await queue();
    const first = (await claims.claim('dead', ROOMY, [], -1))!; // expired the moment it was taken
    assert.deepEqual((await claims.renew('alive', 60_000)).held, []);
    const reaped = await claims.reap();
    assert.deepEqual(reaped.requeued, [{ id, owner: 'dead' }]);
    const second = (await claims.claim('alive', ROOMY, [], 60_000))!;
    assert.equal(second.job.id, id);
    assert.equal(second.attempt, first.attempt + 1);
    assert.deepEqual(await claims.reap(), { requeued: [], cancelled: [] }, 'a live lease stays');
    // the stale attempt may not fail or cancel the job, but its valid proof, first, wins
    assert.equal(await claims.finish({ ...completed(id, 'x'), state: 'failed' }, { owner: 'dead', attempt: first.attempt }), false);
    assert.equal(await claims.finish(completed(id, 'stale-but-first'), { owner: 'dead', attempt: first.attempt }), true);
    assert.equal(await claims.finish(completed(id, 'late'), { owner: 'alive', attempt: second.attempt }), false, 'a late duplicate is discarded');
    const row = await store.get(id);
    assert.equal(row?.state, 'completed');
    assert.equal((row?.result?.proofs?.[0]?.proof as unknown as { protocol: string }).protocol, 'stale-but-first');
    assert.equal(row?.request, undefined, 'the request is dropped with the result');
  });

  it('cancels: a queued job at once, a running one flagged for its owner (and ended by the reaper if its owner died)', async () => {
    await drainQueue();
    const queued = await queue();
    const info = { ...completed(queued, ''), state: 'cancelled' as const, proofs: undefined };
    assert.equal(await claims.cancelQueued(info), true);
    assert.equal((await store.get(queued))?.state, 'cancelled');
    assert.equal(await claims.requestCancel(queued), undefined, 'not running');

    const running = await queue();
    const c = (await claims.claim('owner', ROOMY, [], 60_000))!;
    assert.equal(c.job.id, running);
    assert.equal(await claims.cancelQueued({ ...info, id: running }), false, 'running: not cancelled behind its owner\'s back');
    assert.equal(await claims.requestCancel(running), 'owner');
    assert.deepEqual((await claims.renew('owner', 60_000)).cancelRequested, [running], 'the heartbeat tells the owner');
    assert.equal(await claims.claim('other', ROOMY, [], 60_000), undefined);
    await claims.renew('owner', -1); // the owner dies with the cancel pending
    assert.deepEqual(await claims.reap(), { requeued: [], cancelled: [running] });
    assert.equal((await claims.claimOf(running))?.state, 'cancelled');
  });
});

async function drainAndQueueOne(opts: { key: string }): Promise<string> {
  await drainQueue();
  return queue(opts);
}
