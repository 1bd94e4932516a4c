// The GPU MSM with the batch-affine bucket accumulation forced for every GPU MSM (CUZK_GPU_ACC=affine,
// native/msm/accumulate_affine.cuh): here, MSMs of both curves and groups equal to the CPU core's bytes
// with the kernel's launch counter moving (so the knob did select it); then the whole GPU MSM suite
// (msm.test.ts: random and edge inputs, P + P, P + (-P), infinity, equal scalars) in a child under the
// same setting. The text the kernel runs is also checked on the host in test/native/gpu-texts.test.ts.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { GROUP, debugGpuCounter, msm } from '../../src/ffi/native.js';
import { runSuitesInChild } from '../helpers/child-suites.js';
import type { CurveName } from '../helpers/ref-field.js';
import { createRng } from '../helpers/rng.js';
import { DRY, gpuSkip, onDevice } from './gpu-gate.js';
import { pointBytes, randomPoints, randomScalars, type GroupName } from './random-inputs.js';

// read once by the native core, at its first GPU MSM: this process's MSMs below all take the knob
process.env.CUZK_GPU_ACC = 'affine';

const skip = gpuSkip();
const rng = createRng();
const seedNote = `(CUZK_TEST_SEED=${rng.seed})`;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('GPU MSM with batch-affine buckets (CUZK_GPU_ACC=affine)', () => {
  it('runs the batch-affine kernel, results equal to the CPU core', { skip }, () => {
    const before = debugGpuCounter(0);
    const cases: [CurveName, GroupName, number][] = [
      ['bn128', 'g1', 1 << 16], ['bn128', 'g2', (1 << 12) + 7], ['bls12381', 'g1', (1 << 14) + 3], ['bls12381', 'g2', 1 << 12],
    ];
    for (const [curve, group, n] of cases) {
      const points = randomPoints(curve, group, n, rng);
      const scalars = randomScalars(curve, n, rng);
      const gpu = new Uint8Array(pointBytes(curve, group));
      const cpu = new Uint8Array(gpu.length);
      onDevice('force', () => msm(curve, GROUP[group], points, scalars, n, gpu));
      onDevice('off', () => msm(curve, GROUP[group], points, scalars, n, cpu));
      assert.equal(hex(gpu), hex(cpu), `${curve} ${group} n = ${n}: GPU (batch-affine) differs from the CPU core ${seedNote}`);
    }
    if (!DRY) assert.ok(debugGpuCounter(0) >= before + cases.length, 'the batch-affine kernel did not run for every MSM');
  });

  it('passes the GPU MSM suite, results equal to the CPU core', { skip }, () => {
    const suite = fileURLToPath(new URL('./msm.test.ts', import.meta.url));
    const r = runSuitesInChild([suite], { CUZK_GPU_ACC: 'affine', CUZK_TEST_SEED: String(rng.seed) });
    assert.equal(r.status, 0, `child with CUZK_GPU_ACC=affine failed:\n${r.failures}\n${r.stderr.slice(-4000)}`);
    assert.match(r.stdout, /^# pass [1-9]\d*$/m, 'the child ran no test');
    assert.match(r.stdout, /^# skipped 0$/m, 'the child skipped tests');
  });
});
