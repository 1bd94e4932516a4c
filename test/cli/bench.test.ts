// `cuzk bench` on the CPU core with the bundled Poseidon circuit: a short stream with the pinned
// pool and again with it off, a trace, and the JSON result's fields; failed jobs give exit 1.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { BenchResult } from '../../src/engine/bench-stream.js';
import { runCli } from '../helpers/capture.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const poseidon = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
const zkey = vectorFile(poseidon, 'circuit.zkey');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'cuzk-bench-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface TraceEvent {
  name: string;
  ph: string;
  tid: number;
  args: { name?: string };
}

function trackPhases(file: string): Set<string> {
  const trace = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: TraceEvent[] };
  const names = new Map(trace.traceEvents.filter((e) => e.name === 'thread_name').map((e) => [e.tid, e.args.name!]));
  return new Set(trace.traceEvents.filter((e) => e.ph === 'X').map((e) => `${names.get(e.tid)}/${e.name}`));
}

describe('cuzk bench (CPU core)', () => {
  it('runs a stream with pinned on and off, verifies every proof, writes the trace', async () => {
    const trace = path.join(dir, 'trace.json');
    const r = await runCli(['bench', '--circuit', zkey, '--witness', vectorFile(poseidon, 'witness.wtns'), '--jobs', '6', '--warmup', '2',
      '--compare', 'pinned:off', '--trace', trace, '--backend', 'cpu', '--threads', '2', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const res = JSON.parse(r.stdout) as BenchResult & { ok: boolean };
    assert.equal(res.ok, true);
    for (const s of [res.run, res.off!]) {
      assert.equal(s.completed, 6, s.errors.join('; '));
      assert.equal(s.failed, 0);
      assert.equal(s.backend, 'cpu');
      assert.ok(s.proofsPerSec > 0, `proofs/s ${s.proofsPerSec}`);
      assert.ok(s.latencyMs.p50 > 0 && s.latencyMs.p99 >= s.latencyMs.p50, JSON.stringify(s.latencyMs));
      assert.equal(s.pool.allocationsAfterWarmup, 0, 'no pool allocation after warm-up');
      assert.ok(s.pool.allocations > 0);
      assert.equal(s.gpuUtilisation, null, 'no GPU');
      assert.equal(s.deviceTime, 'lane-busy');
      assert.ok(s.deviceMsPerProof > 0 && s.targetRatio > 0);
      assert.ok(s.peakRssMiB > 0);
    }
    assert.equal(res.run.pinned, true);
    assert.equal(res.off!.pinned, false);
    assert.ok(res.ratios!.proofsPerSec > 0);
    for (const file of [trace, path.join(dir, 'trace-pinned-off.json')]) {
      assert.ok(existsSync(file), file);
      const phases = trackPhases(file);
      for (const p of ['synthesis/synthesis', 'cpu/msm', 'finalize/verify']) assert.ok(phases.has(p), `${file} has no ${p} span: ${[...phases].join(', ')}`);
    }
  });

  it('prints a table without --json', async () => {
    const r = await runCli(['bench', '--circuit', zkey, '--witness', vectorFile(poseidon, 'witness2.wtns'), '--jobs', '2', '--warmup', '2', '--threads', '2']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /proofs\/s\s+\d/);
    assert.match(r.stdout, /pool allocations after warm-up\s+0/);
  });

  it('counts failed jobs and exits 1 (a witness that violates the circuit)', async () => {
    const r = await runCli(['bench', '--circuit', zkey, '--witness', vectorFile(poseidon, 'witness_bad.wtns'), '--jobs', '2', '--warmup', '0', '--threads', '2', '--json']);
    assert.equal(r.code, 1);
    const res = JSON.parse(r.stdout) as BenchResult;
    assert.equal(res.run.failed, 2);
    assert.equal(res.run.completed, 0);
    assert.match(r.stderr, /2 job\(s\) failed: E_PROOF_INVALID/);
  });

  it('bad options exit 2', async () => {
    for (const args of [['bench'], ['bench', '--size', '10', '--circuit', zkey], ['bench', '--circuit', zkey, '--witness', 'x', '--compare', 'gpu'],
      ['bench', '--circuit', zkey, '--witness', 'x', '--jobs', '0']]) {
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /E_INVALID_ARG/);
    }
  });
});
