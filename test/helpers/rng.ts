// Seeded RNG for tests (xoshiro128**, Blackman & Vigna 2018): reproducible inputs, and the seed in
// every failure message. CUZK_TEST_SEED=<n> replays a run; otherwise the seed is random.

export interface Rng {
  readonly seed: number;
  u32(): number;
  bytes(n: number): Uint8Array;
  /** Uniform in [0, max) for max > 0 (rejection sampling over whole bytes). */
  below(max: bigint): bigint;
}

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export function createRng(seed = defaultSeed()): Rng {
  const init = splitmix32(seed);
  const s = [init(), init(), init(), init()];
  const rotl = (x: number, k: number) => ((x << k) | (x >>> (32 - k))) >>> 0;
  const u32 = (): number => {
    const r = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return r;
  };
  const bytes = (n: number): Uint8Array => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = u32() & 0xff;
    return out;
  };
  const below = (max: bigint): bigint => {
    const nbytes = Math.ceil(max.toString(16).length / 2);
    const bits = max.toString(2).length;
    const mask = (1n << BigInt(bits)) - 1n;
    for (;;) {
      let v = 0n;
      for (const b of bytes(nbytes)) v = (v << 8n) | BigInt(b);
      v &= mask;
      if (v < max) return v;
    }
  };
  return { seed, u32, bytes, below };
}

function defaultSeed(): number {
  const env = process.env.CUZK_TEST_SEED;
  if (env !== undefined && env !== '') return Number(env) >>> 0;
  return (Math.random() * 2 ** 32) >>> 0;
}
