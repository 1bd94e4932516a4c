// GPU NTT (cuzk_ntt with the GPU forced) against the CPU core (GPU off) in the same process, both
// curves, 2^1..2^22, forward / inverse / coset / inverse coset: byte-identical outputs on fresh
// random inputs and on edge inputs (zero, r−1, a delta, a constant), plus GPU round trips. The CPU
// core itself is checked against a BigInt DFT in test/native/ntt.test.ts. Skipped with a reason
// unless `npm run test:gpu` runs on a GPU.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NTT_COSET, NTT_INVERSE, ntt } from '../../src/ffi/native.js';
import { MODULI, type CurveName } from '../helpers/ref-field.js';
import { createRng } from '../helpers/rng.js';
import { DRY, gpuSkip, onDevice } from './gpu-gate.js';
import { randomScalars, repeat, repeatScalar } from './random-inputs.js';

const skip = gpuSkip();
const rng = createRng();
const seedNote = `(CUZK_TEST_SEED=${rng.seed})`;
const FLAGS = [0, NTT_INVERSE, NTT_COSET, NTT_INVERSE | NTT_COSET];
const LG_MAX = DRY ? 14 : 22;
const EDGE_LGS = DRY ? [1, 2, 10] : [1, 2, 10, 16, 20];

const flagName = (f: number) => `${f & NTT_INVERSE ? 'inverse' : 'forward'}${f & NTT_COSET ? ' coset' : ''}`;

function firstDiff(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i += 32) {
    if (Buffer.compare(a.subarray(i, i + 32), b.subarray(i, i + 32)) !== 0) return i / 32;
  }
  return -1;
}

function assertSameBytes(actual: Uint8Array, expected: Uint8Array, what: string): void {
  if (Buffer.from(actual.buffer, actual.byteOffset, actual.length).equals(expected)) return;
  const i = firstDiff(actual, expected);
  const el = (b: Uint8Array) => Buffer.from(b.subarray(32 * i, 32 * i + 32)).toString('hex');
  assert.fail(`${what}: element ${i} is ${el(actual)}, expected ${el(expected)} ${seedNote}`);
}

function onBoth(curve: CurveName, input: Uint8Array, lg: number, flags: number, what: string): Uint8Array {
  const gpu = input.slice();
  const cpu = input.slice();
  onDevice('force', () => ntt(curve, gpu, lg, flags));
  onDevice('off', () => ntt(curve, cpu, lg, flags));
  assertSameBytes(gpu, cpu, `${curve} 2^${lg} ${flagName(flags)} ${what}: GPU vs CPU core`);
  return gpu;
}

for (const curve of ['bn128', 'bls12381'] as CurveName[]) {
  describe(`GPU ntt ${curve} = CPU core`, () => {
    for (let lg = 1; lg <= LG_MAX; lg++) {
      it(`2^${lg}: random input, all four flag sets, and GPU round trips`, { skip }, () => {
        const n = 2 ** lg;
        const a = randomScalars(curve, n, rng);
        for (const flags of FLAGS) onBoth(curve, a, lg, flags, 'random');
        for (const coset of [0, NTT_COSET]) {
          const b = a.slice();
          onDevice('force', () => {
            ntt(curve, b, lg, coset);
            ntt(curve, b, lg, coset | NTT_INVERSE);
          });
          assertSameBytes(b, a, `${curve} 2^${lg} ${coset ? 'coset ' : ''}round trip on the GPU`);
        }
      });
    }

    it(`edge inputs (zero, r-1, delta, constant) at 2^${EDGE_LGS.join(', 2^')}`, { skip }, () => {
      const { r } = MODULI[curve];
      for (const lg of EDGE_LGS) {
        const n = 2 ** lg;
        const delta = repeatScalar(0n, n);
        delta[0] = 1;
        const inputs: Record<string, Uint8Array> = {
          zero: repeatScalar(0n, n),
          'r-1': repeatScalar(r - 1n, n),
          delta,
          constant: repeat(randomScalars(curve, 1, rng), n),
        };
        for (const [what, a] of Object.entries(inputs)) {
          for (const flags of FLAGS) {
            const out = onBoth(curve, a, lg, flags, what);
            if (what === 'zero') assertSameBytes(out, a, `${curve} 2^${lg} ${flagName(flags)}: NTT of zero`);
          }
        }
      }
    });
  });
}
