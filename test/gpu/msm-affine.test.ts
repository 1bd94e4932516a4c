// The GPU MSM suite (msm.test.ts) again in a child with the batch-affine bucket accumulation forced
// for every GPU MSM (CUZK_GPU_ACC=affine, native/msm/accumulate_affine.cuh): its results must be the
// CPU core's bytes too, on the same random and edge inputs (P + P, P + (-P), infinity, equal scalars).
// The text it runs is also checked on the host in test/native/gpu-texts.test.ts.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { runSuitesInChild } from '../helpers/child-suites.js';
import { createRng } from '../helpers/rng.js';
import { gpuSkip } from './gpu-gate.js';

const skip = gpuSkip();
const rng = createRng();

describe('GPU MSM with batch-affine buckets (CUZK_GPU_ACC=affine)', () => {
  it('passes the GPU MSM suite, results equal to the CPU core', { skip }, () => {
    const suite = fileURLToPath(new URL('./msm.test.ts', import.meta.url));
    const r = runSuitesInChild([suite], { CUZK_GPU_ACC: 'affine', CUZK_TEST_SEED: String(rng.seed) });
    assert.equal(r.status, 0, `child with CUZK_GPU_ACC=affine failed:\n${r.failures}\n${r.stderr.slice(-4000)}`);
    assert.match(r.stdout, /^# pass [1-9]\d*$/m, 'the child ran no test');
    assert.match(r.stdout, /^# skipped 0$/m, 'the child skipped tests');
  });
});
