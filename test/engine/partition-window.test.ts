// A job's partitions run in order, as many in flight as the lanes' pipeline holds (slots + 1 per
// lane), the way separate jobs do: with all of them started at once, every partition read its
// witness and waited for a lane together and a 10-partition job kept an H200 half idle (issue 32).
// Held before their device phase (testHooks), only the first window of partitions gets there; run
// freely, each partition's witness is read into its buffer (a 'read' span, off the event loop) while
// the partition before it is on the lane, so the lane never waits for one.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../src/index.js';

const vec = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'vectors', 'bn128', 'poseidon');

describe('partitions of one job', { timeout: 120_000 }, () => {
  it('start in order, at most the pipeline depth (slots + 1 per lane) at once, and all complete', async () => {
    const held: { partition: number; go: () => void }[] = [];
    let inFlight = 0, most = 0;
    const reached: number[] = [];
    const e = await createEngine({
      backend: 'cpu', threads: 2,
      testHooks: {
        beforeDevicePhase: (at) => new Promise<void>((go) => {
          reached.push(at.partition);
          most = Math.max(most, ++inFlight);
          held.push({ partition: at.partition, go: () => { inFlight--; go(); } });
        }),
      },
    });
    // a handle of the test's own for its whole life: a hang then ends as this test's timeout, naming it,
    // never as an empty event loop (one full-suite run under memory pressure ended so, unexplained)
    const alive = setInterval(() => undefined, 1000);
    try {
      const depth = e.maxRunning;
      assert.equal(depth, 2, 'the CPU core lane: one phase-2 slot plus one');
      const witness = new Uint8Array(readFileSync(path.join(vec, 'witness.wtns')));
      const job = e.submit({ key: path.join(vec, 'circuit.zkey'), witnesses: Array.from({ length: 6 }, () => witness) });
      // wait until the first window is held, then give the others every chance to arrive too
      for (let t = 0; t < 500 && held.length < depth; t++) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(reached, [0, 1], 'only the first window reaches its device phase');
      // release one at a time, oldest first: each release lets exactly the next partition in
      while (reached.length < 6 || held.length > 0) {
        const h = held.shift();
        if (h) h.go();
        await new Promise((r) => setTimeout(r, 20));
      }
      const info = await e.await(job.id);
      assert.equal(info.state, 'completed', info.error?.message);
      assert.equal(info.proofs!.length, 6);
      assert.deepEqual(reached, [0, 1, 2, 3, 4, 5], 'in order');
      assert.ok(most <= depth, `at most ${depth} partitions held at once, saw ${most}`);
    } finally {
      clearInterval(alive);
      await e.close();
    }
  });

  it('read each witness in partition order, beside the device phase of the partition before', async () => {
    const e = await createEngine({ backend: 'cpu', threads: 2 });
    try {
      const witness = new Uint8Array(readFileSync(path.join(vec, 'witness.wtns')));
      const n = 6;
      const job = e.submit({ key: path.join(vec, 'circuit.zkey'), witnesses: Array.from({ length: n }, () => witness) });
      const info = await e.await(job.id);
      assert.equal(info.state, 'completed', info.error?.message);
      const spans = e.spans.spans().filter((s) => s.jobId === job.id);
      const of = (track: string) => Array.from({ length: n }, (_, k) => {
        const ss = spans.filter((s) => s.track === track && s.partition === k);
        assert.ok(ss.length > 0, `partition ${k} has a ${track} span`);
        return { start: Math.min(...ss.map((s) => s.start)), end: Math.max(...ss.map((s) => s.start + s.dur)) };
      });
      const read = of('read'), device = of('cpu');
      for (const r of spans.filter((s) => s.track === 'read')) assert.ok(r.bytes! > 0 && r.bytes! % 32 === 0, `a read span says its bytes (${r.bytes})`);
      for (let k = 1; k < n; k++) assert.ok(read[k]!.start >= read[k - 1]!.start, `partition ${k} read after partition ${k - 1}`);
      for (let k = 1; k + 1 < n; k++) {
        assert.ok(read[k + 1]!.start < device[k]!.end, `partition ${k + 1}'s witness was read (from ${read[k + 1]!.start.toFixed(1)}) before partition ${k} left the lane (${device[k]!.end.toFixed(1)})`);
        assert.ok(read[k + 1]!.end <= device[k + 1]!.start, `partition ${k + 1} was read before its own device phase`);
      }
    } finally {
      await e.close();
    }
  });
});
