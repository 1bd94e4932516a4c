// GPU MSM (cuzk_msm with the GPU forced) against the CPU core (GPU off) in the same process, G1 and
// G2 of both curves: byte-identical affine results on fresh random inputs from 1 to 2^22 points,
// and on edge inputs: zero, one, r−1, >= r, equal and witness-shaped (mostly 0/1) scalars, points at
// infinity, one point repeated, P next to −P. The CPU core itself is checked against @noble/curves
// in test/native/msm.test.ts. Skipped with a reason unless `npm run test:gpu` runs on a GPU.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { GROUP, msm, msmAsync } from '../../src/ffi/native.js';
import { MODULI, type CurveName } from '../helpers/ref-field.js';
import { createRng } from '../helpers/rng.js';
import { gpuSkip, onDevice, onDeviceAsync, sizesToRun } from './gpu-gate.js';
import { negatePoints, pointBytes, randomPoints, randomScalars, repeat, repeatScalar, type GroupName } from './random-inputs.js';

const skip = gpuSkip();
const rng = createRng();
const seedNote = `(CUZK_TEST_SEED=${rng.seed})`;

const K = 1 << 10;
const SIZES: Record<CurveName, Record<GroupName, number[]>> = {
  bn128: { g1: [1, 2, 3, 17, 256, K + 7, 4 * K, 64 * K, 256 * K, K * K, 4 * K * K], g2: [1, 2, 3, 17, 256, K + 7, 16 * K, 256 * K] },
  bls12381: { g1: [1, 2, 3, 17, 256, K + 7, 4 * K, 64 * K, 256 * K, K * K, 4 * K * K], g2: [1, 3, 17, K + 7, 16 * K, 64 * K] },
};
// edge cases at a small size and at one where the GPU takes its large-MSM path
const EDGE_SIZES: Record<GroupName, number[]> = { g1: sizesToRun([K + 7, 64 * K]), g2: sizesToRun([K + 7, 16 * K]) };

const label = (n: number) => (Number.isInteger(Math.log2(n)) && n >= 256 ? `2^${Math.log2(n)}` : String(n));
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Both results; asserts they are byte-identical and returns the GPU one. */
function sameOnBoth(curve: CurveName, group: GroupName, points: Uint8Array, scalars: Uint8Array, n: number, what: string): Uint8Array {
  const pb = pointBytes(curve, group);
  const gpu = new Uint8Array(pb);
  const cpu = new Uint8Array(pb);
  onDevice('force', () => msm(curve, GROUP[group], points, scalars, n, gpu));
  onDevice('off', () => msm(curve, GROUP[group], points, scalars, n, cpu));
  assert.equal(hex(gpu), hex(cpu), `${curve} ${group} n = ${n}, ${what}: GPU result (actual) differs from the CPU core (expected) ${seedNote}`);
  return gpu;
}

// Random points made once per (curve, group) at the largest size; smaller sizes use a prefix.
const pointCache = new Map<string, Uint8Array>();
function points(curve: CurveName, group: GroupName, n: number): Uint8Array {
  const k = `${curve}/${group}`;
  let p = pointCache.get(k);
  const max = Math.max(...sizesToRun(SIZES[curve][group]), ...EDGE_SIZES[group]);
  if (!p) pointCache.set(k, (p = randomPoints(curve, group, max, rng)));
  return p.subarray(0, n * pointBytes(curve, group));
}

function edgeScalars(curve: CurveName, n: number): Record<string, Uint8Array> {
  const { r } = MODULI[curve];
  const big = [r, r + 1n, (1n << 256n) - 1n, r - 1n, 0n, 1n];
  const random = randomScalars(curve, n, rng);
  const aboveR = random.slice();
  for (let i = 0; i < n; i += 3) aboveR.set(repeatScalar(big[(i / 3) % big.length]!, 1), 32 * i);
  const witness = random.slice(); // ~45% 0, ~45% 1, ~10% full width: the shape of real witnesses
  for (let i = 0; i < n; i++) {
    const u = rng.u32() % 20;
    if (u < 18) witness.set(repeatScalar(BigInt(u & 1), 1), 32 * i);
  }
  const small = new Uint8Array(32 * n);
  for (let i = 0; i < n; i++) small.set(repeatScalar(BigInt(rng.u32() & 0xffff), 1), 32 * i);
  return {
    'all zero': repeatScalar(0n, n),
    'all one': repeatScalar(1n, n),
    'all r-1': repeatScalar(r - 1n, n),
    'all equal': repeat(random.subarray(0, 32), n),
    '>= r mixed in (r, r+1, 2^256-1)': aboveR,
    'witness-shaped (mostly 0 and 1)': witness,
    'below 2^16': small,
  };
}

for (const curve of ['bn128', 'bls12381'] as CurveName[]) {
  for (const group of ['g1', 'g2'] as GroupName[]) {
    describe(`GPU msm ${curve} ${group} = CPU core`, () => {
      const pb = pointBytes(curve, group);
      after(() => pointCache.delete(`${curve}/${group}`));

      for (const n of sizesToRun(SIZES[curve][group])) {
        it(`n = ${label(n)}, random points and scalars`, { skip }, () => {
          sameOnBoth(curve, group, points(curve, group, n), randomScalars(curve, n, rng), n, 'random');
        });
      }

      for (const n of EDGE_SIZES[group]) {
        it(`n = ${label(n)}, edge scalars: zero, one, r-1, equal, >= r, 0/1-heavy, small`, { skip }, () => {
          const pts = points(curve, group, n);
          for (const [what, sc] of Object.entries(edgeScalars(curve, n))) {
            const out = sameOnBoth(curve, group, pts, sc, n, what);
            if (what === 'all zero') assert.equal(hex(out), hex(new Uint8Array(pb)), 'all-zero scalars must give infinity (all-zero bytes)');
          }
        });

        it(`n = ${label(n)}, edge points: infinity, one point repeated, repeats, P next to -P`, { skip }, () => {
          const base = points(curve, group, n);
          const sc = randomScalars(curve, n, rng);
          const withInf = base.slice();
          for (let i = 0; i < n; i += 5) withInf.fill(0, i * pb, (i + 1) * pb);
          sameOnBoth(curve, group, withInf, sc, n, 'every 5th point at infinity');
          sameOnBoth(curve, group, new Uint8Array(n * pb), sc, n, 'all points at infinity');

          const one = repeat(base.subarray(0, pb), n);
          sameOnBoth(curve, group, one, sc, n, 'one point repeated, random scalars');
          sameOnBoth(curve, group, one, repeat(sc.subarray(0, 32), n), n, 'one point repeated, one scalar');

          const every3 = base.slice();
          for (let i = 0; i < n; i += 3) every3.set(base.subarray(0, pb), i * pb);
          sameOnBoth(curve, group, every3, sc, n, 'every 3rd point the same');

          // P_0, -P_0, P_2, -P_2, ...: with equal scalars the sum is infinity
          const neg = negatePoints(curve, group, base, n);
          const pm = base.slice();
          for (let i = 1; i < n; i += 2) pm.set(neg.subarray((i - 1) * pb, i * pb), i * pb);
          sameOnBoth(curve, group, pm, sc, n, 'P next to -P, random scalars');
          const even = n - (n % 2);
          const cancel = sameOnBoth(curve, group, pm, repeat(sc.subarray(0, 32), even), even, 'P next to -P, one scalar');
          assert.equal(hex(cancel), hex(new Uint8Array(pb)), 'sum of k·P + k·(-P) must be infinity');
        });
      }

      it('a coordinate not below q is refused on the GPU path too (the check runs beside the kernels)', { skip }, () => {
        const n = EDGE_SIZES[group].at(-1)!; // one on the large-MSM path (64K G1, 16K G2), made in a dry run too
        const bad = points(curve, group, n).slice();
        const at = n - 3;
        // x (its first Fq coordinate) set to q itself, little-endian
        const { q, n8q } = MODULI[curve];
        for (let i = 0, v = q; i < n8q; i++, v >>= 8n) bad[at * pb + i] = Number(v & 0xffn);
        const out = new Uint8Array(pb);
        assert.throws(() => onDevice('force', () => msm(curve, GROUP[group], bad, randomScalars(curve, n, rng), n, out)),
          new RegExp(`points\\[${at}\\] has a coordinate not below q`));
      });

      it('n = 0 gives infinity on the GPU path too', { skip }, () => {
        const out = new Uint8Array(pb).fill(7);
        onDevice('force', () => msm(curve, GROUP[group], new Uint8Array(0), new Uint8Array(0), 0, out));
        assert.equal(hex(out), hex(new Uint8Array(pb)));
      });
    });
  }
}

describe('GPU msm through the async entry point and the size policy', () => {
  it('msmAsync on the GPU (a koffi worker thread) = the CPU core, n = 2^12', { skip }, async () => {
    const n = 4096;
    const pts = randomPoints('bn128', 'g1', n, rng);
    const sc = randomScalars('bn128', n, rng);
    const gpu = new Uint8Array(64);
    await onDeviceAsync('force', () => msmAsync('bn128', GROUP.g1, pts, sc, n, gpu));
    assert.equal(hex(gpu), hex(sameOnBoth('bn128', 'g1', pts, sc, n, 'sync')), seedNote);
  });

  it("mode 'auto' at 2^16 (GPU by size) = the CPU core", { skip }, () => {
    const n = 1 << 16;
    const pts = randomPoints('bn128', 'g1', n, rng);
    const sc = randomScalars('bn128', n, rng);
    const auto = new Uint8Array(64);
    msm('bn128', GROUP.g1, pts, sc, n, auto);
    assert.equal(hex(auto), hex(sameOnBoth('bn128', 'g1', pts, sc, n, 'auto')), seedNote);
  });
});
