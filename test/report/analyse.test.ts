// The trace analysis on a trace with known gaps (test/helpers/synthetic-trace.ts): utilisation,
// each gap's position, size, cause and split, phase quantiles and copy bandwidth, to the ms.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { analyseTrace, largestGapLine } from '../../src/report/analyse.js';
import { binnedFraction, complement, quantile, union } from '../../src/report/intervals.js';
import { readTraceFile } from '../../src/report/trace-read.js';
import { syntheticTrace } from '../helpers/synthetic-trace.js';

const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-report-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function report(queueHoleMs: number) {
  const file = path.join(dir, `t-${queueHoleMs}.json`);
  syntheticTrace(file, queueHoleMs);
  return analyseTrace(readTraceFile(file));
}

const round = (o: Record<string, number | undefined>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, +v!.toFixed(3)]));

describe('trace analysis', () => {
  it('finds every gap of the device lane with its cause and split', () => {
    const r = report(200);
    assert.deepEqual(r.window, { start: 0, end: 1450, durMs: 1450 });
    assert.equal(r.jobCount, 3);
    assert.deepEqual(r.lanes.map((l) => l.lane), ['gpu:0'], 'copy, synthesis, queue and finalize tracks are not device lanes');
    const [lane] = r.lanes;
    assert.equal(+lane!.busyMs.toFixed(3), 800);
    assert.equal(+lane!.utilisation.toFixed(4), +(800 / 1450).toFixed(4));
    assert.deepEqual(r.gaps.map((g) => [g.start, +g.dur.toFixed(3), g.cause, round(g.byCause)]), [
      [530, 300, 'synthesis', { synthesis: 280, upload: 20 }],
      [1030, 200, 'queue', { queue: 140, dispatch: 10, synthesis: 40, upload: 10 }],
      [0, 130, 'synthesis', { dispatch: 10, synthesis: 100, upload: 20 }],
      [1430, 20, 'queue', { queue: 20 }],
    ]);
    assert.deepEqual(round(lane!.idleByCause), { synthesis: 420, upload: 50, dispatch: 20, queue: 160 });
    assert.equal(largestGapLine(r), 'largest idle gap: gpu:0 300 ms at 0.53 s, waiting for synthesis');
  });

  it('names the queue when the hole with nothing in flight is the largest', () => {
    const r = report(450);
    assert.equal(largestGapLine(r), 'largest idle gap: gpu:0 450 ms at 1.03 s, waiting for the queue (no job waiting for a device)');
    assert.equal(+r.gaps[0]!.byCause.queue!.toFixed(3), 390);
  });

  it('a dispatched job outside any traced stage is nearer the lane than a queued one', () => {
    const sp = (name: string, track: string, job: string, start: number, end: number) => ({ name, track, job, start, end, args: {} });
    const r = analyseTrace([
      sp('msm', 'cpu', 'a', 0, 100),
      // b: dispatched at 100, reads its witness (no span) until 160, synthesis 160..200; c queued 100..300
      sp('queue', 'queue', 'b', 90, 100), sp('synthesis', 'synthesis', 'b', 160, 200), sp('msm', 'cpu', 'b', 200, 300),
      sp('queue', 'queue', 'c', 100, 300), sp('synthesis', 'synthesis', 'c', 300, 320), sp('msm', 'cpu', 'c', 320, 400),
    ]);
    assert.deepEqual(r.gaps.map((g) => [g.start, g.dur, g.cause, round(g.byCause)]), [
      [100, 100, 'untraced', { untraced: 60, synthesis: 40 }],
      [300, 20, 'synthesis', { synthesis: 20 }],
    ]);
  });

  it('a witness being read into its buffer (a read span) is named; a partition still off the device waits as its job does', () => {
    const sp = (name: string, track: string, start: number, end: number, partition = -1) => ({ name, track, job: 'a', start, end, args: { partition } });
    // one job of two partitions: partition 0 reads its witness 0..40 and proves 40..100; partition 1
    // reads 40..70 and reaches the lane only at 120 (untraced: a buffer or a slot), never 'queue'
    const r = analyseTrace([
      sp('queue', 'queue', 0, 0), sp('witness', 'read', 0, 40, 0), sp('msm', 'gpu:0', 40, 100, 0),
      sp('witness', 'read', 40, 70, 1), sp('msm', 'gpu:0', 120, 180, 1),
    ]);
    assert.deepEqual(r.gaps.map((g) => [g.start, g.dur, g.cause, round(g.byCause)]), [[0, 40, 'read', { read: 40 }], [100, 20, 'untraced', { untraced: 20 }]]);
    assert.equal(largestGapLine(r), 'largest idle gap: gpu:0 40 ms at 0.00 s, waiting for a witness read into its buffer');
  });

  it('per-phase distributions and the copies\' bandwidth', () => {
    const r = report(200);
    const phase = (n: string) => {
      const p = r.phases.find((x) => x.name === n)!;
      return [p.count, +p.totalMs.toFixed(3), +p.p50.toFixed(3), +p.p90.toFixed(3), +p.max.toFixed(3), p.tracks.join(' ')];
    };
    assert.deepEqual(phase('msm'), [3, 500, 100, 300, 300, 'gpu:0']);
    assert.deepEqual(phase('synthesis'), [3, 840, 100, 700, 700, 'synthesis']);
    assert.deepEqual(phase('queue'), [3, 110, 10, 90, 90, 'queue']);
    assert.deepEqual(phase('h2d'), [3, 50, 20, 20, 20, 'gpu:0:copy']);
    const b = r.bandwidth!;
    assert.deepEqual([b.count, b.bytes, +b.aggregateGBps.toFixed(3), +b.p50.toFixed(3), +b.p90.toFixed(3), +b.max.toFixed(3)], [3, 4.5e8, 9, 10, 15, 15]);
    assert.equal(b.bins.reduce((s, x) => s + x.count, 0), 3);
    assert.deepEqual(b.bins.filter((x) => x.count > 0).map((x) => x.lo), [5, 10, 15]);
  });

  it('bins utilisation over time', () => {
    const r = report(200);
    const busy = r.timeline.lanes[0]!.busy.map((f) => +f.toFixed(3));
    // 100 ms bins: idle to 130, busy 130..530, idle to 830, busy to 1030, idle to 1230, busy to 1430
    assert.deepEqual(busy, [0, 0.7, 1, 1, 1, 0.3, 0, 0, 0.7, 1, 0.3, 0, 0.7, 1, 0.6]);
  });
});

describe('intervals', () => {
  it('union, complement, bins and nearest-rank quantiles', () => {
    assert.deepEqual(union([[5, 7], [0, 2], [1, 3], [3, 4], [9, 9]]), [[0, 4], [5, 7]]);
    assert.deepEqual(complement([[0, 4], [5, 7]], -1, 10), [[-1, 0], [4, 5], [7, 10]]);
    assert.deepEqual(binnedFraction([[0, 15]], 0, 25, 10), [1, 0.5, 0]);
    assert.deepEqual([0.5, 0.9, 1].map((q) => quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], q)), [5, 9, 10]);
  });

  it('a lane with 200,000 idle gaps (the daemon ring\'s whole) is analysed, not a stack overflow (#27)', () => {
    const n = 200_000;
    const spans = Array.from({ length: n }, (_, i) => ({ name: 'msm', track: 'gpu:0', start: i * 2, end: i * 2 + 1, args: {} }));
    const r = analyseTrace(spans);
    assert.equal(r.lanes[0]!.gaps, n - 1);
    assert.equal(r.gaps.length, n - 1);
  });
});
