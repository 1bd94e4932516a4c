// GPU fixed-base multiplication (cuzk_batch_mul with the GPU forced, msm/fixed_base_gpu.cuh) against the
// CPU core (GPU off) in the same process, G1 and G2 of both curves: byte-identical LEM affine points for
// the generator and for a random base, random scalars from 1 to 2^20 (a size that spans several device
// blocks' tiles), and edge scalars: 0, 1, r−1, r, r+1, 2^256−1, repeated values. The CPU core itself is
// checked against @noble/curves in test/dev/dev-setup.test.ts. Skipped with a reason unless
// `npm run test:gpu` runs on a GPU.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generatorBytes } from '../../src/dev/generators.js';
import { batchMul, GROUP } from '../../src/ffi/native.js';
import { curveByName } from '../../src/formats/curves.js';
import { MODULI, type CurveName } from '../helpers/ref-field.js';
import { createRng } from '../helpers/rng.js';
import { gpuSkip, onDevice, sizesToRun } from './gpu-gate.js';
import { pointBytes, randomPoints, randomScalars, repeatScalar, type GroupName } from './random-inputs.js';

const skip = gpuSkip();
const rng = createRng();
const seedNote = `(CUZK_TEST_SEED=${rng.seed})`;
const K = 1 << 10;
const SIZES: Record<GroupName, number[]> = { g1: [1, 17, 4 * K + 3, 64 * K, K * K], g2: [1, 17, 4 * K + 3, 64 * K, 256 * K] };

function sameOnBoth(curve: CurveName, group: GroupName, base: Uint8Array, scalars: Uint8Array, n: number, what: string): void {
  const pb = pointBytes(curve, group);
  const gpu = new Uint8Array(pb * n).fill(0xa5);
  const cpu = new Uint8Array(pb * n);
  onDevice('force', () => batchMul(curve, GROUP[group], base, scalars, n, gpu));
  onDevice('off', () => batchMul(curve, GROUP[group], base, scalars, n, cpu));
  for (let i = 0; i < n; i++) {
    const [g, c] = [gpu.subarray(i * pb, (i + 1) * pb), cpu.subarray(i * pb, (i + 1) * pb)];
    if (!Buffer.from(g).equals(c)) {
      assert.fail(`${curve} ${group} n = ${n}, ${what}: point ${i} differs: GPU ${Buffer.from(g).toString('hex')} CPU ${Buffer.from(c).toString('hex')} ${seedNote}`);
    }
  }
}

function edgeScalars(curve: CurveName, n: number): Uint8Array {
  const { r } = MODULI[curve];
  const edges = [0n, 1n, r - 1n, r, r + 1n, (1n << 256n) - 1n, 2n, r - 2n];
  const out = randomScalars(curve, n, rng);
  for (let i = 0; i < n; i += 2) out.set(repeatScalar(edges[(i / 2) % edges.length]!, 1), 32 * i);
  return out;
}

for (const curve of ['bn128', 'bls12381'] as CurveName[]) {
  for (const group of ['g1', 'g2'] as GroupName[]) {
    describe(`GPU batch_mul ${curve} ${group} = CPU core`, () => {
      const gen = generatorBytes(curveByName(curve)!)[group];
      for (const n of sizesToRun(SIZES[group])) {
        it(`n = ${n}, random scalars, the generator and a random base`, { skip }, () => {
          const scalars = randomScalars(curve, n, rng);
          sameOnBoth(curve, group, gen, scalars, n, 'generator');
          sameOnBoth(curve, group, randomPoints(curve, group, 1, rng), scalars, n, 'random base');
        });
      }
      it('edge scalars (0, 1, r-1, r, r+1, 2^256-1) and one scalar repeated', { skip }, () => {
        const n = 4 * K + 3;
        sameOnBoth(curve, group, gen, edgeScalars(curve, n), n, 'edge scalars');
        sameOnBoth(curve, group, gen, repeatScalar(MODULI[curve].r - 1n, n), n, 'r-1 repeated');
        sameOnBoth(curve, group, gen, new Uint8Array(32 * n), n, 'all zero');
      });
    });
  }
}
