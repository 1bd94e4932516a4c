// `cuzk bench` on the CPU core with the bundled Poseidon circuit: a short stream with the pinned
// pool and again with it off, a trace, and the JSON result's fields; failed jobs give exit 1.
// `--remote`: the same stream through a `cuzk serve` child it starts itself (self) or a daemon by
// address (key uploaded), compared side by side; an unreachable daemon fails at once.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { CompareRow, DaemonBenchResult } from '../../src/dev/bench-daemon.js';
import type { BenchResult } from '../../src/engine/bench-stream.js';
import { runCli } from '../helpers/capture.js';
import { startDaemon } from '../helpers/daemon.js';
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
      // per proof: synthesis (the CPU core's phase 1), transforms and MSMs
      assert.ok(s.phasesMs.synthesis > 0 && s.phasesMs.ntt > 0 && s.phasesMs.msm > 0 && s.phasesMs.msmSum > 0, JSON.stringify(s.phasesMs));
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
    assert.match(r.stdout, /wires, key (host|pinned)\), cpu backend/, 'the headline says where the key is');
  });

  it('counts failed jobs and exits 1 (a witness that violates the circuit)', async () => {
    const r = await runCli(['bench', '--circuit', zkey, '--witness', vectorFile(poseidon, 'witness_bad.wtns'), '--jobs', '2', '--warmup', '0', '--threads', '2', '--json']);
    assert.equal(r.code, 1);
    const res = JSON.parse(r.stdout) as BenchResult;
    assert.equal(res.run.failed, 2);
    assert.equal(res.run.completed, 0);
    assert.match(r.stderr, /2 job\(s\) failed: E_PROOF_INVALID/);
  });

  it('--inputs --generator: witness-fed and inputs-fed streams, the witness stage alone, every proof verified', async () => {
    const r = await runCli(['bench', '--circuit', zkey, '--inputs', vectorFile(poseidon, 'input.json'), '--generator', vectorFile(poseidon, 'circuit.wasm'),
      '--jobs', '3', '--warmup', '1', '--backend', 'cpu', '--threads', '2', '--witness-slots', '1', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const res = JSON.parse(r.stdout) as BenchResult & { ok: boolean };
    assert.equal(res.ok, true);
    assert.deepEqual([res.run.feed, res.run.completed, res.run.failed, res.run.witnessStage], ['witness', 3, 0, null]);
    assert.deepEqual([res.inputs!.feed, res.inputs!.completed, res.inputs!.failed], ['inputs', 3, 0]);
    assert.ok(res.inputs!.witnessStage!.msPerWitness > 0 && res.inputs!.witnessStage!.slots === 1, JSON.stringify(res.inputs!.witnessStage));
    assert.deepEqual([res.witnessAlone!.kind, res.witnessAlone!.slots, res.witnessAlone!.count], ['wasm', 1, 32]);
    assert.ok(res.witnessAlone!.witnessesPerSec > 0);
  });

  it('--partitions P: each job carries P witnesses, proofs/s counts proofs', async () => {
    const r = await runCli(['bench', '--circuit', zkey, '--witness', vectorFile(poseidon, 'witness.wtns'), '--partitions', '3', '--jobs', '2', '--warmup', '0',
      '--concurrency', '1', '--backend', 'cpu', '--threads', '2', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const res = JSON.parse(r.stdout) as BenchResult;
    assert.deepEqual([res.run.completed, res.run.failed], [2, 0]);
    const jobsPerSec = res.run.completed / (res.run.wallMs / 1000);
    assert.ok(Math.abs(res.run.proofsPerSec - 3 * jobsPerSec) < 1e-6 * res.run.proofsPerSec, `${res.run.proofsPerSec} proofs/s for ${jobsPerSec} jobs/s`);
  });

  it('bad options exit 2', async () => {
    for (const args of [['bench'], ['bench', '--size', '10', '--circuit', zkey], ['bench', '--circuit', zkey, '--witness', 'x', '--compare', 'gpu'],
      ['bench', '--circuit', zkey, '--witness', 'x', '--jobs', '0'], ['bench', '--size', '12', '--remote', 'self', '--compare', 'pinned:off'],
      ['bench', '--size', '12', '--clients', '2'], ['bench', '--size', '12', '--remote', 'self', '--clients', '0'],
      ['bench', '--circuit', zkey, '--inputs', vectorFile(poseidon, 'input.json')], ['bench', '--size', '12', '--inputs', vectorFile(poseidon, 'input.json'), '--generator', vectorFile(poseidon, 'circuit.wasm')],
      ['bench', '--size', '12', '--key-residency', 'sometimes'], ['bench', '--size', '12', '--memory-gpu-bytes', '0'],
      ['bench', '--size', '12', '--memory-gpu-bytes', '1000000000', '--remote', '127.0.0.1:1'],
      ['bench', '--size', '12', '--key-residency', 'streamed', '--remote', 'self'],
      ['bench', '--size', '12', '--stream-chunk-points', '0'], ['bench', '--size', '12', '--stream-chunk-points', '65536', '--remote', 'self'],
      ['bench', '--size', '12', '--spool-dir', '/tmp/x'], ['bench', '--size', '12', '--remote', '127.0.0.1:1', '--spool-dir', '/tmp/x']]) {
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /E_INVALID_ARG/);
    }
  });
});

interface RemoteBench {
  ok: boolean;
  daemon: DaemonBenchResult;
  compare: CompareRow[];
}

function checkCompare(res: RemoteBench, jobs: number): void {
  assert.equal(res.ok, true);
  assert.deepEqual(res.compare.map((c) => c.run), ['in-process', 'grpc', 'connect']);
  for (const c of res.compare) {
    assert.equal(c.completed, jobs, `${c.run}: ${JSON.stringify(c)}`);
    assert.equal(c.failed, 0);
    assert.equal(c.allVerified, true, c.run);
    assert.ok(c.proofsPerSec > 0 && c.vsInProcess > 0, `${c.run} proofs/s ${c.proofsPerSec}`);
    assert.ok(c.latencyMs.p50 > 0 && c.latencyMs.p99 >= c.latencyMs.p50, `${c.run} ${JSON.stringify(c.latencyMs)}`);
    assert.ok(c.submit.mbPerSec! > 0 && c.submit.p50Ms > 0 && c.submit.bytes > 0, `${c.run} ${JSON.stringify(c.submit)}`);
    assert.equal(c.gpuUtilisation, null, 'CPU backend: no GPU utilisation');
  }
  assert.equal(res.compare[0]!.vsInProcess, 1);
  for (const s of [res.daemon.grpc, res.daemon.connect]) {
    assert.equal(s.proofsReceived, jobs + s.warmup, `${s.protocol}: a proof per job, warm-up included`);
    assert.equal(s.verifiedHere, s.proofsReceived, `${s.protocol}: every proof verified again here`);
  }
}

describe('cuzk bench --remote (CPU core)', () => {
  it('self: runs the stream in-process, then through its own cuzk serve child over gRPC and Connect, and stops the child', async () => {
    const trace = path.join(mkdtempSync(path.join(tmpdir(), 'cuzk-bench-trace-')), 't.json');
    const r = await runCli(['bench', '--size', '12', '--jobs', '4', '--warmup', '1', '--clients', '2', '--remote', 'self', '--backend', 'cpu', '--threads', '2', '--json', '--trace', trace]);
    assert.equal(r.code, 0, r.stderr);
    const res = JSON.parse(r.stdout) as RemoteBench;
    checkCompare(res, 4);
    // --trace: the in-process run's trace, and the daemon child's beside it (both protocols' jobs)
    const spans = (f: string) => (JSON.parse(readFileSync(f, 'utf8')) as { traceEvents: { ph: string; name: string }[] }).traceEvents.filter((e) => e.ph === 'X' && e.name === 'synthesis').length;
    assert.ok(spans(trace) >= 5, 'in-process trace: a synthesis span per job');
    assert.equal(spans(trace.replace(/\.json$/, '-daemon.json')), 2 * (4 + 1), 'daemon trace: a synthesis span per job of both protocols, warm-up included');
    assert.equal(res.daemon.backend, 'cpu');
    assert.match(res.daemon.address, /^127\.0\.0\.1:\d+$/);
    assert.equal(res.daemon.keyId, path.resolve('.cache/bench/bn128-2_12/circuit.zkey'), 'the daemon loaded the fixture by its path');
    const self = res.daemon.self!;
    assert.equal(self.exitStatus, 0, 'the child exits 0 after SIGTERM');
    assert.throws(() => process.kill(self.pid, 0), { code: 'ESRCH' }, `daemon child ${self.pid} is still running`);
  });

  it('by address with --upload-key: the daemon gets the .zkey bytes; the table names the three runs', async () => {
    const d = await startDaemon({ args: ['--backend', 'cpu', '--threads', '2'] });
    try {
      const r = await runCli(['bench', '--circuit', zkey, '--witness', vectorFile(poseidon, 'witness.wtns'), '--jobs', '2', '--warmup', '1', '--clients', '2',
        '--remote', d.address, '--upload-key', '--backend', 'cpu', '--threads', '2']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /\s+in-process\s+gRPC\s+Connect\n/);
      assert.match(r.stdout, /proofs\/s vs in-process\s+1\.00x\s+\d+\.\d\dx\s+\d+\.\d\dx/);
      assert.match(r.stdout, /proofs verified\s+all \(engine\)\s+all \(daemon \+ 3 here\)\s+all \(daemon \+ 3 here\)/);
      assert.match(r.stdout, new RegExp(`the daemon at ${d.address.replace(/\./g, '\\.')}`));
      assert.match(d.logs(), /"keyId":"sha256:[0-9a-f]{64}"[^\n]*"key loaded"/, 'LoadKey with the zkey bytes');
    } finally {
      assert.equal(await d.stop(), 0);
    }
  });

  it('failed jobs through the daemon are counted per run and exit 1 (a witness that violates the circuit)', async () => {
    const r = await runCli(['bench', '--circuit', zkey, '--witness', vectorFile(poseidon, 'witness_bad.wtns'), '--jobs', '2', '--warmup', '0', '--clients', '1',
      '--remote', 'self', '--backend', 'cpu', '--threads', '2', '--json']);
    assert.equal(r.code, 1);
    const res = JSON.parse(r.stdout) as RemoteBench;
    assert.equal(res.ok, false);
    for (const c of res.compare) assert.deepEqual([c.run, c.completed, c.failed, c.allVerified], [c.run, 0, 2, false]);
    assert.equal(res.daemon.self!.exitStatus, 0);
    assert.match(r.stderr, /in-process 2 failed, grpc 2 failed, connect 2 failed: E_PROOF_INVALID/);
  });

  it('--partitions P with self: each job names the witness file P times, read in place by the daemon; proofs/s counts proofs', async () => {
    const r = await runCli(['bench', '--circuit', zkey, '--witness', vectorFile(poseidon, 'witness.wtns'), '--partitions', '3', '--jobs', '2', '--warmup', '1',
      '--concurrency', '1', '--clients', '1', '--remote', 'self', '--backend', 'cpu', '--threads', '2', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const res = JSON.parse(r.stdout) as RemoteBench;
    assert.equal(res.ok, true);
    for (const s of [res.daemon.grpc, res.daemon.connect]) {
      assert.deepEqual([s.completed, s.failed], [2, 0], s.protocol);
      assert.equal(s.proofsReceived, 3 * (2 + 1), `${s.protocol}: three proofs per job, warm-up included`);
      assert.equal(s.verifiedHere, s.proofsReceived, `${s.protocol}: every proof verified again here`);
      const jobsPerSec = s.completed / (s.wallMs / 1000);
      assert.ok(Math.abs(s.proofsPerSec - 3 * jobsPerSec) < 1e-6 * s.proofsPerSec, `${s.protocol}: ${s.proofsPerSec} proofs/s for ${jobsPerSec} jobs/s`);
      assert.ok(s.submit.bytes > 0 && s.submit.bytes < 4096 * 2, `${s.protocol}: jobs carry paths, not witness bytes (${s.submit.bytes} bytes)`);
    }
    assert.equal(res.daemon.self!.exitStatus, 0);
  });

  it('an unreachable daemon: exit 1 and one line naming the address, before any proving', async () => {
    const r = await runCli(['bench', '--size', '12', '--jobs', '4', '--remote', '127.0.0.1:1', '--backend', 'cpu', '--json']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /^cuzk: E_UNAVAILABLE: .*127\.0\.0\.1:1/);
  });
});
