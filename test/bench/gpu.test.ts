// `npm run bench -- gpu`'s proof check: the GPU proof is verified on every run, and compared with the
// CPU core's only when the CPU core ran (`--cpu-runs 0` says "not compared" instead of a false NO and
// exits 0 when the proof verifies). The whole bench in its dry mode (CPU core on both sides, 2^10),
// and the cell and verdict on hand-made results.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { proofCheckCell, proofFailed, type ProofResult } from '../../bench/gpu.js';
import type { ProveStats } from '../../src/ffi/groth16-key.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function dryBench(cpuRuns: number): { status: number | null; row: string | undefined; out: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'bench/main.ts', 'gpu', '--dry', '--sizes', '10', '--proof-sizes', '10', '--runs', '1', '--cpu-runs', String(cpuRuns)], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, CUZK_LOG: 'warn' },
  });
  const out = r.stdout + r.stderr;
  return { status: r.status, row: r.stdout.split('\n').find((l) => l.includes('GPU proof verifies')), out };
}

const proved = (over: Partial<ProofResult>): ProofResult => ({
  lg: 10, gpu: [{} as ProveStats], gpuWallMs: [1], cpu: [], cpuWallMs: [], uploadMs: 0, keyBytes: 0, verified: true, ...over,
});

describe('bench gpu: proof checks', () => {
  it('--cpu-runs 0: the proof verifies, "not compared", exit 0', () => {
    const r = dryBench(0);
    assert.equal(r.status, 0, r.out);
    assert.equal(r.row, '| &nbsp; GPU proof verifies; = CPU proof | yes; = CPU proof: not compared (no CPU run) |');
  });

  it('--cpu-runs 1: verified and equal to the CPU core proof, exit 0', () => {
    const r = dryBench(1);
    assert.equal(r.status, 0, r.out);
    assert.equal(r.row, '| &nbsp; GPU proof verifies; = CPU proof | yes; = CPU proof: yes |');
  });

  it('a proof that does not verify or differs fails the bench, compared or not', () => {
    assert.equal(proofCheckCell(proved({ verified: false })), '**NO**; = CPU proof: not compared (no CPU run)');
    assert.equal(proofFailed(proved({ verified: false })), true);
    assert.equal(proofCheckCell(proved({ same: false })), 'yes; = CPU proof: **NO**');
    assert.equal(proofFailed(proved({ same: false })), true);
    assert.equal(proofFailed(proved({})), false);
    assert.equal(proofFailed(proved({ same: true })), false);
    assert.equal(proofCheckCell(proved({ gpu: [] })), '-');
    assert.equal(proofFailed(proved({ gpu: [], verified: false })), false, 'a skipped size is not a failure');
  });
});
