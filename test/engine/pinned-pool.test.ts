// PinnedPool: buffers reused across checkouts (no allocation after warm-up), counted in the budget
// while the pool holds them, freed when idle or under pressure; `enabled: false` uses heap memory
// accounted as host memory; a block past 4 GiB serves buffers past its 4 GiB mark.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
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

  it('a block past 4 GiB is carved like any other: a buffer past the mark is its own memory; one buffer past 4 GiB is E_LIMIT', async () => {
    // only the buffers' pages written below are touched: the rest of the 4 GiB + 8 MiB costs nothing
    const GiB = 1024 * MiB;
    const chunk = 4 * GiB + 8 * MiB;
    const budget = new MemoryBudget({ pinned: 5 * GiB });
    const pool = new PinnedPool(budget, { enabled: true, grow: { targetBytes: chunk, chunkBytes: chunk } });
    try {
      await pool.grow(() => []);
      for (const end = Date.now() + 10_000; pool.stats().growState !== 'full' && Date.now() < end; ) await new Promise((r) => setTimeout(r, 2));
      assert.deepEqual([pool.stats().buffers, pool.stats().bytes], [1, chunk]);
      const [low, high] = await pool.checkoutMany([4 * GiB, 8 * MiB], 'past the mark');
      assert.equal(pool.stats().allocations, 1, 'both from the one block');
      assert.equal(high!.bytes.byteLength, 8 * MiB);
      high!.bytes.fill(3);
      low!.bytes[low!.bytes.length - 1] = 9;
      assert.equal(high!.bytes[0], 3, 'the low buffer\'s last byte is not the high one\'s first');
      assert.equal(low!.bytes[0], 0);
      low!.release();
      high!.release();
      await assert.rejects(pool.checkout(4 * GiB + 1, 'huge'), (e: unknown) => e instanceof CuzkError && e.code === 'E_LIMIT' && /^huge: a 4294967297-byte buffer is more than one Uint8Array can view/.test(e.message));
      assert.equal(pool.stats().allocations, 1, 'refused before anything was allocated');
    } finally {
      pool.close();
    }
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
