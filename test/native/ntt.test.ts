// cuzk_ntt against the BigInt DFT of test/helpers/ref-ntt.ts (snarkjs's roots), against
// ffjavascript's own Fr.fft/Fr.ifft, and round trips up to 2^16 on both curves. Sizes above 2^12
// use the per-size twiddle table and the grouped high stages, so they get sampled oracle checks too.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { NTT_COSET, NTT_INVERSE, getThreads, ntt, setThreads } from '../../src/ffi/native.js';
import { FR, cosetGen, evalPoly, fromBytesLE, modInv, modPow, naiveNtt, rootOfUnity, toBytesLE, type NttCurve } from '../helpers/ref-ntt.js';
import { sj, terminateSnarkjs } from '../helpers/snarkjs.js';

const CURVES: NttCurve[] = ['bn128', 'bls12381'];
const FLAGS = [0, NTT_INVERSE, NTT_COSET, NTT_INVERSE | NTT_COSET];
const SEED = Number(process.env.TEST_SEED ?? 0x5eed);

// xorshift32 stream, seeded per case so a failure names a reproducible seed.
function randomFr(curve: NttCurve, n: number, seed: number): bigint[] {
  let x = seed >>> 0 || 1;
  const next = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), x >>> 0);
  const out: bigint[] = [];
  for (let i = 0; i < n; i++) {
    let v = 0n;
    for (let w = 0; w < 8; w++) v = (v << 32n) | BigInt(next());
    out.push(v % FR[curve].r);
  }
  return out;
}

function runNtt(curve: NttCurve, values: readonly bigint[], flags: number): bigint[] {
  const bytes = toBytesLE(values);
  ntt(curve, bytes, Math.log2(values.length), flags);
  return fromBytesLE(bytes);
}

const flagName = (f: number) => `${f & NTT_INVERSE ? 'inverse' : 'forward'}${f & NTT_COSET ? '+coset' : ''}`;

describe('cuzk_ntt vs the O(n^2) BigInt DFT', () => {
  for (const curve of CURVES) {
    it(`${curve}: sizes 2^0..2^6, all flags, random and edge inputs`, () => {
      const r = FR[curve].r;
      for (let lg = 0; lg <= 6; lg++) {
        const n = 2 ** lg;
        for (const flags of FLAGS) {
          const seed = SEED + 97 * lg + flags;
          const inputs = [randomFr(curve, n, seed), Array(n).fill(0n), Array(n).fill(r - 1n), [1n, ...Array(n - 1).fill(0n)]];
          for (const a of inputs) {
            assert.deepEqual(runNtt(curve, a, flags), naiveNtt(curve, a, (flags & NTT_INVERSE) !== 0, (flags & NTT_COSET) !== 0),
              `${curve} lg ${lg} ${flagName(flags)} seed ${seed}`);
          }
        }
      }
    });
  }

  // Sampled outputs: the full O(n^2) oracle is too slow past 2^10, one output is O(n).
  for (const [curve, lg] of [['bn128', 13], ['bls12381', 15]] as const) {
    it(`${curve}: 2^${lg} forward/inverse/coset, sampled outputs`, () => {
      const { r } = FR[curve];
      const n = 2 ** lg;
      const w = rootOfUnity(curve, lg);
      const g = cosetGen(curve, lg);
      const a = randomFr(curve, n, SEED + lg);
      const samples = [0, 1, 2, n / 2 - 1, n / 2, n / 2 + 3, n - 1, 4097 % n];
      const fwd = runNtt(curve, a, NTT_COSET);
      const inv = runNtt(curve, a, NTT_INVERSE);
      const wi = modInv(w, r);
      const ni = modInv(BigInt(n), r);
      for (const k of samples) {
        const x = (g * modPow(w, BigInt(k), r)) % r;
        assert.equal(fwd[k], evalPoly(a, x, r), `${curve} 2^${lg} coset forward at ${k}, seed ${SEED + lg}`);
        assert.equal(inv[k], (evalPoly(a, modPow(wi, BigInt(k), r), r) * ni) % r, `${curve} 2^${lg} inverse at ${k}`);
      }
    });
  }
});

describe('cuzk_ntt vs ffjavascript Fr.fft / Fr.ifft', () => {
  after(terminateSnarkjs);
  for (const curve of CURVES) {
    it(`${curve}: 2^8 both directions`, async () => {
      const c = (await sj.curves.getCurveFromName(curve)) as unknown as {
        Fr: { e(v: bigint): Uint8Array; toObject(b: Uint8Array): bigint; n8: number; fft(b: Uint8Array): Promise<Uint8Array>; ifft(b: Uint8Array): Promise<Uint8Array> };
      };
      const n = 256;
      const a = randomFr(curve, n, SEED + 7);
      const mont = new Uint8Array(32 * n);
      a.forEach((v, i) => mont.set(c.Fr.e(v), 32 * i));
      for (const [flags, ref] of [[0, await c.Fr.fft(mont)], [NTT_INVERSE, await c.Fr.ifft(mont)]] as const) {
        const want = Array.from({ length: n }, (_, i) => c.Fr.toObject(ref.slice(32 * i, 32 * i + 32)));
        assert.deepEqual(runNtt(curve, a, flags), want, `${curve} ${flagName(flags)} seed ${SEED + 7}`);
      }
    });
  }
});

describe('cuzk_ntt round trips', () => {
  for (const curve of CURVES) {
    it(`${curve}: inverse(forward(a)) = a and coset likewise, 2^1..2^16`, () => {
      for (const lg of [1, 4, 9, 12, 13, 14, 16]) {
        const a = randomFr(curve, 2 ** lg, SEED + 31 * lg);
        for (const coset of [0, NTT_COSET]) {
          const bytes = toBytesLE(a);
          ntt(curve, bytes, lg, coset);
          ntt(curve, bytes, lg, coset | NTT_INVERSE);
          assert.deepEqual(bytes, toBytesLE(a), `${curve} 2^${lg} ${coset ? 'coset ' : ''}round trip, seed ${SEED + 31 * lg}`);
        }
      }
    });
  }

  it('gives the same bytes with 1 thread and with several (block layout depends on the thread count)', () => {
    const before = getThreads();
    try {
      const a = toBytesLE(randomFr('bn128', 2 ** 14, SEED + 3));
      const outs = [1, 3].map((t) => {
        setThreads(t);
        const b = a.slice();
        ntt('bn128', b, 14, NTT_COSET);
        return b;
      });
      assert.deepEqual(outs[0], outs[1]);
    } finally {
      setThreads(before);
    }
  });
});

describe('cuzk_ntt errors', () => {
  it('rejects an element >= r with E_INVALID_ARG and leaves the data as it was', () => {
    const vals = [1n, 2n, FR.bn128.r, 3n];
    const bytes = toBytesLE(vals);
    assert.throws(() => ntt('bn128', bytes, 2, 0), (e: unknown) => e instanceof CuzkError && e.code === 'E_INVALID_ARG');
    assert.deepEqual(fromBytesLE(bytes), vals);
  });

  it('rejects unknown flag bits with E_INVALID_ARG', () => {
    assert.throws(() => ntt('bls12381', new Uint8Array(64), 1, 4), (e: unknown) => e instanceof CuzkError && e.code === 'E_INVALID_ARG');
  });
});
