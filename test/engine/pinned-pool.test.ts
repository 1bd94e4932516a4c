// PinnedPool: buffers reused across checkouts (no allocation after warm-up), counted in the budget
// while the pool holds them, freed when idle or under pressure; `enabled: false` uses heap memory
// accounted as host memory.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryBudget } from '../../src/engine/budget.js';
import { PinnedPool } from '../../src/engine/pinned-pool.js';

const MiB = 1 << 20;

describe('PinnedPool', () => {
  it('reuses released buffers: no allocation after warm-up', async () => {
    const budget = new MemoryBudget({ host: 64 * MiB, pinned: 64 * MiB });
    const pool = new PinnedPool(budget, { enabled: true });
    const [a, b] = await pool.checkoutMany([3 * MiB, 1000], 'warm-up');
    assert.equal(a!.bytes.byteLength, 3 * MiB);
    assert.equal(b!.bytes.byteLength, 1000);
    a!.bytes.fill(7);
    a!.release();
    b!.release();
    pool.markWarm();
    for (let i = 0; i < 5; i++) {
      const [x, y] = await pool.checkoutMany([3 * MiB - 5, 900], `job ${i}`);
      assert.equal(x!.bytes[0], 7, 'the same memory came back');
      x!.release();
      y!.release();
    }
    const st = pool.stats();
    assert.equal(st.allocations, 2);
    assert.equal(st.allocationsAfterWarmup, 0);
    assert.equal(st.inUse, 0);
    assert.equal(budget.status('pinned').used, 3 * MiB + 4096, 'free buffers stay counted in the budget');
    pool.close();
    assert.equal(budget.status('pinned').used, 0);
  });

  it('waits for the budget, and frees idle buffers under pressure', async () => {
    const budget = new MemoryBudget({ pinned: 8 * MiB });
    const pool = new PinnedPool(budget, { enabled: true });
    const a = await pool.checkout(6 * MiB, 'a');
    let got = false;
    const b = pool.checkout(4 * MiB, 'b').then((x) => { got = true; return x; });
    await new Promise((r) => setImmediate(r));
    assert.equal(got, false, 'the budget holds the second buffer back');
    a.release(); // the waiter makes the pool free its idle buffer
    const bb = await b;
    assert.ok(budget.status('pinned').used <= 8 * MiB);
    bb.release();
    // a third, differently sized request forces the idle buffer out
    const c = await pool.checkout(7 * MiB + 1, 'c');
    assert.ok(budget.status('pinned').used <= 8 * MiB);
    assert.equal(pool.stats().buffers, 1);
    c.release();
    assert.equal(pool.shrink(0), 8 * MiB);
    // freed on a koffi worker thread: the budget gets the bytes back when the native free is done
    while (budget.status('pinned').used > 0) await new Promise((r) => setTimeout(r, 2));
    assert.equal(pool.stats().bytes, 0);
  });

  it('pinned: off hands out heap memory counted as host memory', async () => {
    const budget = new MemoryBudget({ host: 16 * MiB, pinned: 16 * MiB });
    const pool = new PinnedPool(budget, { enabled: false });
    const x = await pool.checkout(2 * MiB, 'x');
    assert.equal(x.pinned, false);
    assert.equal(budget.status('host').used, 2 * MiB);
    assert.equal(budget.status('pinned').used, 0);
    x.release();
    pool.close();
    assert.equal(budget.status('host').used, 0);
  });
});
