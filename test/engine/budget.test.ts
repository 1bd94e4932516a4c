// MemoryBudget: grants in arrival order, never beyond a limit, whole multi-pool requests or nothing,
// clear refusal of what can never fit, cancellable waits, reclaimers asked before waiting.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { MemoryBudget, type Reservation } from '../../src/engine/budget.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('MemoryBudget', () => {
  it('serves waiters strictly in arrival order and never exceeds the limit', async () => {
    const b = new MemoryBudget({ host: 100 });
    const first = await b.reserve({ host: 80 }, 'first');
    const order: string[] = [];
    const big = b.reserve({ host: 95 }, 'big').then((r) => { order.push('big'); return r; });
    const small = b.reserve({ host: 10 }, 'small').then((r) => { order.push('small'); return r; });
    await tick();
    // 'small' would fit now (80 + 10) but must not pass 'big', which arrived first
    // (and after 'big' is granted, 95 + 10 does not fit until 'big' is released)
    assert.deepEqual(order, []);
    assert.equal(b.status('host').waiters, 2);
    first.release();
    const rb = await big;
    await tick();
    assert.deepEqual(order, ['big']);
    assert.equal(b.status('host').used, 95);
    rb.release();
    (await small).release();
    assert.deepEqual(order, ['big', 'small']);
    assert.equal(b.status('host').used, 0);
    assert.ok(b.status('host').peak <= 100);
  });

  it('grants a multi-pool request whole or not at all', async () => {
    const b = new MemoryBudget({ host: 100, pinned: 50 });
    const p = await b.reserve({ pinned: 40 }, 'holder');
    let granted = false;
    const both = b.reserve({ host: 10, pinned: 20 }, 'both').then((r) => { granted = true; return r; });
    await tick();
    assert.equal(granted, false);
    assert.equal(b.status('host').used, 0, 'no partial grant of the host share');
    p.release('pinned');
    const r = await both;
    assert.deepEqual(r.held, { host: 10, pinned: 20 });
    r.release('host');
    assert.equal(b.status('host').used, 0);
    assert.equal(b.status('pinned').used, 20);
    r.release();
    r.release(); // idempotent
    assert.equal(b.status('pinned').used, 0);
  });

  it('refuses at once what can never fit, naming the pool and the limit', () => {
    const b = new MemoryBudget({ host: 1 << 20, 'gpu:0': 1 << 20 });
    assert.throws(() => b.check({ host: 2 << 20 }, 'job x'), (e: CuzkError) => e.code === 'E_HOST_OOM' && /job x needs 2\.0 MiB of host memory but the budget allows 1\.0 MiB/.test(e.message));
    assert.throws(() => b.check({ 'gpu:0': 2 << 20 }, 'job y'), (e: CuzkError) => e.code === 'E_DEVICE_OOM');
    assert.throws(() => b.check({ pinned: 1 }, 'job z'), /no memory pool pinned/);
  });

  it('an aborted wait leaves the queue and lets the next waiter through', async () => {
    const b = new MemoryBudget({ host: 10 });
    const hold = await b.reserve({ host: 10 }, 'hold');
    const ac = new AbortController();
    const a = b.reserve({ host: 10 }, 'a', ac.signal);
    const c = b.reserve({ host: 5 }, 'c');
    ac.abort();
    await assert.rejects(a, (e: CuzkError) => e.code === 'E_CANCELLED');
    hold.release();
    const rc = await c;
    assert.equal(b.status('host').used, 5);
    rc.release();
  });

  it('asks reclaimers for the shortfall before a request waits', async () => {
    const b = new MemoryBudget({ pinned: 100 });
    let cached: Reservation | undefined = await b.reserve({ pinned: 70 }, 'idle cache');
    const asked: number[] = [];
    b.onPressure((want) => {
      asked.push(want.pinned ?? 0);
      cached?.release();
      cached = undefined;
    });
    const r = await b.reserve({ pinned: 50 }, 'job');
    assert.deepEqual(asked, [20], 'what is missing (70 + 50 - 100), not the whole request');
    assert.equal(b.status('pinned').used, 50);
    r.release();
  });

  it('split moves bytes into reservations released on their own', async () => {
    const b = new MemoryBudget({ host: 100 });
    const r = await b.reserve({ host: 60 }, 'joint');
    const [x, y] = r.split([{ host: 20 }, { host: 30 }]);
    assert.deepEqual(r.held, { host: 10 });
    x!.release();
    assert.equal(b.status('host').used, 40);
    y!.release();
    r.release();
    assert.equal(b.status('host').used, 0);
    assert.throws(() => r.split([{ host: 1 }]), /cannot split/);
  });
});

describe('MemoryBudget across pools', () => {
  it('a waiter on one pool does not hold back requests on other pools', async () => {
    const b = new MemoryBudget({ host: 10, pinned: 10 });
    const p = await b.reserve({ pinned: 10 }, 'p');
    const waiting = b.reserve({ pinned: 5 }, 'waits for pinned');
    const h = await b.reserve({ host: 5 }, 'host only'); // would deadlock behind 'waits for pinned' with one global queue
    assert.equal(b.status('host').used, 5);
    assert.ok(b.tryReserve({ host: 5 }, 'also host'));
    assert.equal(b.tryReserve({ pinned: 1 }, 'queue-jumper'), undefined, 'pinned waiters go first');
    p.release();
    (await waiting).release();
    h.release();
  });
});
