// Texts of the GPU MSM that the host compiles too, checked here on any machine through test hooks
// (native/api/debug_gpu_texts.cpp): the binary-GCD inversion (native/field/inv_bingcd.hpp) against the
// BigInt inverse on all four fields, and the batch-affine bucket accumulation (native/msm/affine_lanes.hpp)
// against sums of @noble/curves points over every run of sorted pairs, with P + P, P + (-P), infinity
// points, runs across many chunks and idle lanes. The device build of the same text is checked on the
// GPU machine by gpu_selftest (inv, and msm with CUZK_GPU_ACC=affine).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { debugAffineLanes, debugBingcdInv } from '../../src/ffi/native.js';
import { concat, fromLe, toLe, toLem } from '../helpers/lem.js';
import { refGroup, type GroupName, type RefPoint } from '../helpers/ref-curve.js';
import { MODULI, pow, type CurveName } from '../helpers/ref-field.js';
import { createRng } from '../helpers/rng.js';

const rng = createRng();
const seedNote = `(CUZK_TEST_SEED=${rng.seed})`;

describe('binary-GCD inversion (field/inv_bingcd.hpp, host build)', () => {
  const fields = [
    { id: 0, name: 'BN254 Fq', p: MODULI.bn128.q, n8: 32 },
    { id: 1, name: 'BN254 Fr', p: MODULI.bn128.r, n8: 32 },
    { id: 2, name: 'BLS12-381 Fq', p: MODULI.bls12381.q, n8: 48 },
    { id: 3, name: 'BLS12-381 Fr', p: MODULI.bls12381.r, n8: 32 },
  ] as const;
  for (const { id, name, p, n8 } of fields) {
    it(`${name}: the image of a^-1 (R^2/x for the image x), 0 for 0`, () => {
      const edges = [0n, 1n, 2n, 3n, p - 1n, p - 2n, (p - 1n) / 2n, (p + 1n) / 2n];
      for (let b = 30n; b < BigInt(8 * n8); b += 31n) edges.push((1n << b) % p, ((1n << b) - 1n) % p, ((1n << b) + 1n) % p);
      const xs = [...edges, ...Array.from({ length: 300 }, () => rng.below(p))];
      const out = new Uint8Array(n8 * xs.length);
      debugBingcdInv(id, concat(xs.map((x) => toLe(x, n8))), out, xs.length);
      const R2 = pow(2n, BigInt(16 * n8), p);
      xs.forEach((x, i) => {
        const want = x === 0n ? 0n : (R2 * pow(x, p - 2n, p)) % p;
        assert.equal(fromLe(out, n8 * i, n8), want, `${name} inv image of ${x} ${seedNote}`);
      });
    });
  }

  it('refuses an input that is not below p and an unknown field', () => {
    const p = MODULI.bn128.q;
    const bad = (fn: () => unknown, part: string) =>
      assert.throws(fn, (e: unknown) => e instanceof CuzkError && e.code === 'E_INVALID_ARG' && e.message.includes(part));
    bad(() => debugBingcdInv(0, toLe(p, 32), new Uint8Array(32), 1), 'not below p');
    bad(() => debugBingcdInv(7 as 0, toLe(1n, 32), new Uint8Array(32), 1), 'unknown field');
  });
});

// Sorted pairs with the cases the lanes treat apart: runs of every length (1 to several chunks), the
// same point twice with one sign (a doubling), with both signs (a cancellation, then a fresh start),
// infinity points first, inside and alone, and gaps between bucket keys.
function makePairs(npts: number, infIdx: number, nbuckets: number) {
  const keys: number[] = [];
  const vals: number[] = [];
  const neg = 0x80000000;
  const pick = () => rng.u32() % npts;
  const sign = () => (rng.u32() & 1 ? neg : 0);
  let key = 0;
  for (let run = 0; key < nbuckets; run++) {
    const kind = run % 7;
    const body: number[] = [];
    if (kind === 1) { const i = pick(); body.push(i, i, pick()); } // P + P
    else if (kind === 2) { const i = pick(); body.push(i, i | neg, pick(), pick()); } // P + (-P), then Q
    else if (kind === 3) body.push(infIdx, pick(), infIdx, pick()); // infinity first and inside
    else if (kind === 4) body.push(infIdx); // a run of infinity only
    else if (kind === 5) for (let j = 0; j < 40 + (rng.u32() % 30); j++) body.push(pick() | sign()); // across chunks
    else for (let j = 0, len = 1 + (rng.u32() % 9); j < len; j++) body.push(pick() | sign());
    for (const v of body) {
      keys.push(key);
      vals.push(v);
    }
    key += 1 + (rng.u32() % 3);
  }
  return { keys: Uint32Array.from(keys), vals: Uint32Array.from(vals) };
}

describe('batch-affine bucket accumulation (msm/affine_lanes.hpp, host build)', () => {
  const cases: [CurveName, GroupName][] = [['bn128', 'g1'], ['bn128', 'g2'], ['bls12381', 'g1'], ['bls12381', 'g2']];
  for (const [curve, group] of cases) {
    it(`${curve} ${group}: heads, tails and buckets equal the runs' sums`, () => {
      const G = refGroup(curve, group);
      const pts: RefPoint[] = Array.from({ length: 12 }, () => G.random(rng));
      pts.push(G.neg(pts[0]), pts[1], G.zero); // -P0, a second copy of P1, infinity
      const infIdx = pts.length - 1;
      const nbuckets = 60;
      const { keys, vals } = makePairs(pts.length, infIdx, nbuckets);
      const E = keys.length;
      const ran: number[] = [];
      const point = (v: number) => (v & 0x80000000 ? G.neg(pts[v & 0x7fffffff]) : pts[v & 0x7fffffff]);
      for (const [L, threads, spare] of [[7, 3, 0], [5, 4, 2], [32, 1, 0], [3, 16, 1], [1, 6, 0], [2, 2, 0]]) {
        const chunks = Math.ceil(E / L);
        const lanes = Math.ceil(chunks / threads) + spare;
        if (lanes > 64) continue;
        const got = debugAffineLanes({
          curve, group, points: concat(pts.map((q) => G.toLem(q))), keys, vals, chunkLen: L, threads, lanes,
          buckets: nbuckets,
        });
        const want = { buckets: new Map<number, RefPoint>(), heads: new Map<number, RefPoint>(), tails: new Map<number, RefPoint>() };
        for (let c = 0; c < chunks; c++) {
          const b = c * L, e = Math.min(b + L, E);
          const fromBefore = b > 0 && keys[b - 1] === keys[b], toAfter = e < E && keys[e] === keys[e - 1];
          for (let s = b, first = true; s < e; first = false) {
            let t = s;
            let sum = G.zero;
            while (t < e && keys[t] === keys[s]) sum = G.add(sum, point(vals[t++]));
            if (t === e && toAfter) want.tails.set(c, sum);
            else if (first && fromBefore) want.heads.set(c, sum);
            else want.buckets.set(keys[s], sum);
            s = t;
          }
        }
        const { q, n8q } = MODULI[curve];
        const one = group === 'g1' ? toLem(1n, q, n8q) : concat([toLem(1n, q, n8q), toLem(0n, q, n8q)]);
        const check = (what: 'buckets' | 'heads' | 'tails', count: number) => {
          for (let i = 0; i < count; i++) {
            const img = got[what].subarray(2 * G.bytes * i, 2 * G.bytes * (i + 1));
            const expect = want[what].get(i) ?? G.zero;
            const zz = img.subarray(G.bytes, G.bytes + G.bytes / 2), zzz = img.subarray(G.bytes + G.bytes / 2);
            const where = `${curve} ${group} ${what}[${i}] (L ${L}, ${threads} threads, ${lanes} lanes) ${seedNote}`;
            if (G.eq(expect, G.zero)) {
              assert.ok(zz.every((v) => v === 0), `${where}: want infinity`);
              continue;
            }
            assert.deepEqual([zz, zzz], [one, one], `${where}: ZZ = ZZZ = 1`);
            assert.ok(G.eq(G.fromLem(img.subarray(0, G.bytes)), expect), `${where}: the run's sum`);
          }
        };
        check('buckets', nbuckets);
        check('heads', lanes * threads);
        check('tails', lanes * threads);
        assert.ok(want.heads.size > 0 && want.tails.size > 0, 'the case has runs across chunks');
        ran.push(lanes);
      }
      assert.ok(ran.length >= 5 && Math.max(...ran) > 32, `lane counts run: ${ran} ${seedNote}`);
    });
  }

  it('refuses lanes that do not cover the pairs, keys past the buckets and points past the end', () => {
    const G = refGroup('bn128', 'g1');
    const points = concat([G.toLem(G.base), G.toLem(G.dbl(G.base))]);
    const job = { curve: 'bn128' as const, group: 'g1' as const, points, keys: Uint32Array.from([0, 0, 1]),
      vals: Uint32Array.from([0, 1, 0]), chunkLen: 1, threads: 1, lanes: 3, buckets: 2 };
    const bad = (patch: Partial<typeof job>, part: string) =>
      assert.throws(() => debugAffineLanes({ ...job, ...patch }),
        (e: unknown) => e instanceof CuzkError && e.code === 'E_INVALID_ARG' && e.message.includes(part));
    bad({ lanes: 2 }, 'cover the E pairs');
    bad({ lanes: 65 }, 'lanes must be 1..64');
    bad({ buckets: 1 }, 'not below nbuckets');
    bad({ vals: Uint32Array.from([0, 2, 0]) }, 'not below npts');
    assert.doesNotThrow(() => debugAffineLanes(job));
  });
});
