// The pinned pool's background growth: allocated bytes rise chunk by chunk to the target (seen step
// by step through the beforeChunk hook, never by timing); the budget is never exceeded (growth never
// waits in the budget's queue, and stops when keys or proofs hold the memory); a proof submitted while
// the pool grows takes its buffers from the pool (no allocation on its path); and pinning runs on a
// koffi worker thread, so the event loop keeps turning through a large growth.
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { after, describe, it } from 'node:test';
import { createEngine } from '../../src/index.js';
import { MemoryBudget } from '../../src/engine/budget.js';
import { PinnedPool } from '../../src/engine/pinned-pool.js';
import { loadCore } from '../../src/ffi/load.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';
import { readFileSync } from 'node:fs';

const MiB = 1 << 20;

/** The beforeChunk hook, held: each chunk waits until the test opens it. */
function chunkGate() {
  const waiting: { index: number; bytes: number; open: () => void }[] = [];
  let wake: (() => void) | undefined;
  const hook = (c: { index: number; bytes: number }) => new Promise<void>((open) => {
    waiting.push({ ...c, open });
    wake?.();
  });
  const next = async () => {
    while (waiting.length === 0) await new Promise<void>((r) => (wake = r));
    return waiting.shift()!;
  };
  return { hook, next };
}

/** Polls until `cond` holds (allocations complete on a koffi thread; the test's timeout bounds the wait). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 2));
}

describe('pinned pool growth', () => {
  it('allocated bytes rise chunk by chunk to the target, then the state is full', async () => {
    const budget = new MemoryBudget({ pinned: 64 * MiB });
    const gate = chunkGate();
    const pool = new PinnedPool(budget, { enabled: true, grow: { targetBytes: 16 * MiB, chunkBytes: 4 * MiB, beforeChunk: gate.hook } });
    assert.equal(pool.stats().growState, 'idle');
    const ready = pool.grow(() => []);
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) {
      const c = await gate.next();
      assert.equal(c.index, i);
      assert.equal(c.bytes, 4 * MiB);
      const st = pool.stats();
      assert.equal(st.growState, 'growing');
      assert.equal(st.growing, true);
      assert.equal(st.targetBytes, 16 * MiB);
      seen.push(st.bytes);
      c.open();
      if (i === 0) await ready; // the first chunk is what a daemon waits for before it is ready
    }
    await until(() => pool.stats().growState === 'full');
    const st = pool.stats();
    assert.deepEqual(seen, [0, 4 * MiB, 8 * MiB, 12 * MiB]);
    assert.equal(st.bytes, 16 * MiB);
    assert.equal(st.growState, 'full');
    assert.equal(st.growing, false);
    assert.equal(st.buffers, 4);
    assert.equal(budget.status('pinned').used, 16 * MiB, 'every chunk is held in the budget');
    pool.close();
    assert.equal(budget.status('pinned').used, 0);
  });

  it('never exceeds the budget: growth stops where keys and waiting proofs leave no room, and resumes when they let go', async () => {
    const budget = new MemoryBudget({ pinned: 12 * MiB });
    const key = budget.tryReserve({ pinned: 5 * MiB }, 'a key')!;
    const gate = chunkGate();
    const pool = new PinnedPool(budget, { enabled: true, grow: { targetBytes: 64 * MiB, chunkBytes: 4 * MiB, retryMs: 1, beforeChunk: gate.hook } });
    const alive = setInterval(() => undefined, 1000); // the retry timer is unref'd, as it should be in a daemon
    after(() => clearInterval(alive));
    void pool.grow(() => []);
    (await gate.next()).open(); // chunk 0: 9 of 12 MiB held
    const c1 = await gate.next();
    assert.equal(c1.index, 1);
    c1.open(); // chunk 1 would need 13 MiB of 12: refused, growth blocked, retried (retryMs 1)
    const c1again = await gate.next();
    assert.equal(c1again.index, 1, 'the refused chunk is asked for again');
    assert.equal(pool.stats().bytes, 4 * MiB);
    assert.ok(budget.status('pinned').peak <= 12 * MiB);
    // a proof that needs memory: the pool's idle chunk goes back to the budget (pressure), and the
    // proof, not growth, gets the key's bytes when they are freed
    const proof = budget.reserve({ pinned: 8 * MiB }, 'a proof');
    assert.equal(pool.stats().buffers, 0, 'idle chunks freed under pressure');
    key.release();
    const held = await proof;
    await until(() => budget.status('pinned').used === 8 * MiB); // the chunk's native free is done
    assert.equal(pool.stats().bytes, 0);
    c1again.open(); // growth takes what is left: 4 MiB
    const c2 = await gate.next();
    assert.equal(c2.index, 2);
    assert.equal(pool.stats().bytes, 4 * MiB);
    assert.equal(budget.status('pinned').used, 12 * MiB);
    c2.open(); // refused: the proof holds 8 of 12
    const c2again = await gate.next();
    assert.equal(c2again.index, 2);
    held.release();
    c2again.open();
    (await gate.next()).open();
    const c4 = await gate.next();
    assert.equal(c4.index, 4);
    assert.equal(pool.stats().bytes, 12 * MiB, 'grown to the budget, not to the 64 MiB target');
    assert.equal(budget.status('pinned').peak, 12 * MiB, 'the budget was never exceeded');
    pool.close();
    c4.open();
    assert.equal(budget.status('pinned').used, 0);
  });

  it('a proof submitted while the pool grows takes its buffers from it: no allocation on its path', async () => {
    const poseidon = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
    const gate = chunkGate();
    const e = await createEngine({ threads: 2, pinnedPool: { targetBytes: 8 * MiB, chunkBytes: 1 * MiB }, testHooks: { beforePoolChunk: gate.hook } });
    let held: Awaited<ReturnType<typeof gate.next>> | undefined;
    try {
      await e.loadKey(vectorFile(poseidon, 'circuit.zkey'));
      const ready = e.growPool();
      (await gate.next()).open();
      await ready;
      held = await gate.next(); // chunk 1 is held: the pool is still growing while the proof runs
      assert.equal(e.status().pinnedPool.growState, 'growing');
      const w = new Uint8Array(readFileSync(vectorFile(poseidon, 'witness.wtns')));
      const info = await e.await(e.submit({ key: vectorFile(poseidon, 'circuit.zkey'), witnesses: [w, w] }).id);
      assert.equal(info.state, 'completed', info.error?.message);
      const st = e.status().pinnedPool;
      assert.equal(st.pathAllocations, 0, 'no buffer was allocated on the proof\'s path');
      assert.equal(st.allocations, 1, 'the one allocation is the first chunk');
      assert.equal(st.bytes, 1 * MiB);
      assert.equal(st.inUse, 0);
    } finally {
      await e.close();
      held?.open(); // after close: growth has stopped and allocates nothing more
    }
  });

  it('pinning and unpinning run off the event loop: a large growth, then a pressure shrink, never stall it (each call made to cost 300 ms off the loop, 3 s on it)', async (t) => {
    const COST_MS = 300;
    // a call made on the event loop would stall it this long: far above what load alone does to the
    // loop (~0.5 s seen with a second suite beside this one on 2 cores), and never paid when the code is right
    const SYNC_COST_MS = 3000;
    const CHUNKS = 5;
    const abi = loadCore().abi as unknown as Record<string, unknown>;
    type Fn = ((...a: unknown[]) => number) & { async: (...a: unknown[]) => void };
    const real = { mem_alloc: abi.mem_alloc as Fn, mem_free: abi.mem_free as Fn };
    const calls = { mem_alloc: { sync: 0, async: 0 }, mem_free: { sync: 0, async: 0 } };
    // the seam: cudaHostAlloc's (cudaFreeHost's) cost, paid on whichever thread runs the call
    const costly = (name: 'mem_alloc' | 'mem_free') => Object.assign((...a: unknown[]) => {
      calls[name].sync++;
      const until = performance.now() + SYNC_COST_MS;
      while (performance.now() < until);
      return real[name](...a);
    }, {
      async: (...a: unknown[]) => {
        calls[name].async++;
        const cb = a.pop() as (err: unknown, res: number) => void;
        real[name].async(...a, (err: unknown, res: number) => setTimeout(() => cb(err, res), COST_MS));
      },
    });
    abi.mem_alloc = costly('mem_alloc');
    abi.mem_free = costly('mem_free');
    const delay = monitorEventLoopDelay({ resolution: 10 });
    try {
      const budget = new MemoryBudget({ pinned: 1024 * MiB });
      const pool = new PinnedPool(budget, { enabled: true, grow: { targetBytes: CHUNKS * 64 * MiB, chunkBytes: 64 * MiB } });
      delay.enable();
      await new Promise((r) => setTimeout(r, 50)); // the monitor's first tick only starts its clock
      await pool.grow(() => []);
      await until(() => pool.stats().growState === 'full');
      assert.equal(pool.stats().bytes, CHUNKS * 64 * MiB);
      // a request for the whole budget: every idle chunk is freed under pressure, and it is granted when they are
      const all = await budget.reserve({ pinned: 1024 * MiB }, 'everything');
      await new Promise((r) => setTimeout(r, 50)); // a last tick, so a stall just before is recorded
      delay.disable();
      assert.equal(pool.stats().bytes, 0);
      const maxMs = delay.max / 1e6;
      t.diagnostic(`max event-loop delay ${maxMs.toFixed(1)} ms over ${CHUNKS} chunk allocations and ${CHUNKS} frees of ${COST_MS} ms each`);
      assert.deepEqual(calls, { mem_alloc: { sync: 0, async: CHUNKS }, mem_free: { sync: 0, async: CHUNKS } }, 'every chunk was pinned and unpinned through koffi\'s async calls');
      assert.ok(maxMs < SYNC_COST_MS / 2, `max event-loop delay ${maxMs.toFixed(1)} ms`);
      all.release();
      pool.close();
    } finally {
      Object.assign(abi, real);
    }
  });
});
