// The memory-aware start's waiting logic (src/server/startup/memory-wait.ts) on a fake clock and fake
// meminfo readings: rising past the target, never reaching it (policy exit, policy start), budgets
// the machine can never hold, and default budgets, which never wait.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { POLL_MS, PROGRESS_MS, waitForMemory, type MemoryWaitConfig } from '../../src/server/startup/memory-wait.js';

const GiB = 1024 ** 3;

/** A fake machine: `available(t)` is MemAvailable at fake time t (ms); sleep advances t. */
function fake(available: (t: number) => number, totalBytes = 64 * GiB) {
  let t = 0;
  let reads = 0;
  const lines: Array<{ msg: string; availableBytes?: number; level: number; [k: string]: unknown }> = [];
  const log = createLogger('debug', { write: (s: string) => void lines.push(JSON.parse(s)) });
  return {
    lines,
    reads: () => reads,
    time: () => t,
    deps: {
      log,
      now: () => t,
      sleep: async (ms: number) => void (t += ms),
      read: () => (reads++, { totalBytes, freeBytes: 0, availableBytes: available(t) }),
    },
  };
}

const cfg = (over: Partial<MemoryWaitConfig>): MemoryWaitConfig => ({ memoryHost: 0, memoryPinned: 0, pinnedPoolBytes: 0, pinned: true, memoryWaitS: 30, memoryWaitPolicy: 'start', ...over });

describe('memory-aware start', () => {
  it('waits while MemAvailable rises and resolves at the first poll past the target, with a progress line every ~2 s', async () => {
    // 1 GiB/s from 2 GiB: 16 GiB reached at t = 14 s
    const m = fake((t) => 2 * GiB + Math.floor(t / 1000) * GiB);
    const got = await waitForMemory(cfg({ memoryHost: 16 * GiB, memoryPinned: 8 * GiB }), m.deps);
    assert.deepEqual(got, { memoryHost: 16 * GiB, memoryPinned: 8 * GiB }, 'budgets kept');
    assert.equal(m.time(), 14_000, 'resolved at the first poll at or past the target');
    assert.equal(m.reads(), 1 + 14_000 / POLL_MS);
    const progress = m.lines.filter((l) => l.msg.startsWith('waiting for memory: ') && l.msg.includes(' of '));
    assert.equal(progress.length, Math.floor((14_000 - 1) / PROGRESS_MS), m.lines.map((l) => l.msg).join('\n'));
    assert.deepEqual(progress.map((l) => l.availableBytes), [4, 6, 8, 10, 12, 14].map((g) => g * GiB), 'progress shows memory rising');
    assert.equal(m.lines.at(-1)!.msg, 'memory available: starting');
  });

  it('policy exit: never reaching the target ends after memory_wait_s with one line naming the budget, what is available and what to do', async () => {
    const m = fake(() => 3 * GiB);
    await assert.rejects(waitForMemory(cfg({ memoryPinned: 10 * GiB, memoryWaitS: 5, memoryWaitPolicy: 'exit' }), m.deps), (e: Error) => {
      assert.ok(e instanceof InputError && e.code === 'E_INVALID_ARG', String(e));
      assert.ok(!e.message.includes('\n'), 'one line');
      assert.match(e.message, /^engine\.memory_pinned_bytes \(--memory-pinned-bytes\) is 10\.0 GiB \(10737418240 bytes\) but only 3\.00 GiB available after waiting 5 s: lower it to at most 3221225472, .*raise engine\.memory_wait_s, or set engine\.memory_wait_policy = "start"$/);
      return true;
    });
    assert.equal(m.time(), 5000, 'waited exactly memory_wait_s');
  });

  it('policy start: the budgets that do not fit are lowered to MemAvailable and logged; those that fit are kept', async () => {
    const m = fake(() => 6 * GiB);
    const got = await waitForMemory(cfg({ memoryHost: 20 * GiB, memoryPinned: 4 * GiB, memoryWaitS: 3 }), m.deps);
    assert.deepEqual(got, { memoryHost: 6 * GiB, memoryPinned: 4 * GiB });
    const lowered = m.lines.filter((l) => /lowered/.test(l.msg));
    assert.equal(lowered.length, 1);
    assert.match(lowered[0]!.msg, /^engine\.memory_host_bytes lowered from 20\.0 GiB to 6\.00 GiB to fit: only 6\.00 GiB available after waiting 3 s$/);
    assert.equal(m.time(), 3000);
  });

  it('the pinned pool size is waited for too (it is pinned right after start); short, it names engine.pinned_pool_bytes', async () => {
    const rising = fake((t) => 2 * GiB + t * (GiB / 1000)); // 1 GiB/s from 2 GiB
    assert.deepEqual(await waitForMemory(cfg({ pinnedPoolBytes: 10 * GiB }), rising.deps), { memoryHost: 0, memoryPinned: 0 });
    assert.equal(rising.time(), 8000, 'waited until 10 GiB were available');
    const flat = fake(() => 6 * GiB);
    await assert.rejects(waitForMemory(cfg({ pinnedPoolBytes: 10 * GiB, memoryWaitS: 2, memoryWaitPolicy: 'exit' }), flat.deps), /^InputError: engine\.pinned_pool_bytes \(--pinned-pool-bytes\) is 10\.0 GiB/);
    const unpinned = fake(() => 6 * GiB);
    assert.deepEqual(await waitForMemory(cfg({ pinnedPoolBytes: 10 * GiB, pinned: false }), unpinned.deps), { memoryHost: 0, memoryPinned: 0 });
    assert.equal(unpinned.time(), 0, 'engine.pinned off: no pinned pool to wait for');
  });

  it('a budget larger than the machine is not waited for: the policy applies at once', async () => {
    const m = fake(() => 60 * GiB);
    await assert.rejects(waitForMemory(cfg({ memoryHost: 2 ** 52, memoryWaitPolicy: 'exit' }), m.deps), /more than this machine has \(64\.0 GiB\)/);
    assert.equal(m.time(), 0);
    assert.equal(m.reads(), 1);
  });

  it('default budgets (0) and budgets that fit never wait; memory_wait_s 0 applies the policy at once', async () => {
    const dflt = fake(() => 1 * GiB);
    assert.deepEqual(await waitForMemory(cfg({}), dflt.deps), { memoryHost: 0, memoryPinned: 0 });
    assert.equal(dflt.reads(), 0, 'nothing configured: nothing read');
    const fits = fake(() => 10 * GiB);
    assert.deepEqual(await waitForMemory(cfg({ memoryHost: 10 * GiB }), fits.deps), { memoryHost: 10 * GiB, memoryPinned: 0 });
    assert.equal(fits.time(), 0);
    const unpinned = fake(() => 1 * GiB);
    assert.deepEqual(await waitForMemory(cfg({ memoryPinned: 10 * GiB, pinned: false }), unpinned.deps), { memoryHost: 0, memoryPinned: 10 * GiB }, 'engine.pinned off: the pinned budget is not waited for');
    const now = fake(() => 1 * GiB);
    assert.deepEqual(await waitForMemory(cfg({ memoryHost: 2 * GiB, memoryWaitS: 0 }), now.deps), { memoryHost: 1 * GiB, memoryPinned: 0 });
    assert.equal(now.time(), 0);
  });
});
