// Randomness for the dev tools. DevRng: fast, seeded, NOT cryptographic (sfc32, PractRand-clean to 2^64
// bytes), for synthetic circuits only. secretScalar: toxic waste from SHA-512(domain ‖ seed ‖ label ‖ counter)
// when a seed is given (reproducible, hence insecure) or from crypto.randomBytes otherwise; 512 bits mod r,
// so the bias is below 2^-256.

import { createHash, randomBytes } from 'node:crypto';

export type Seed = number | string;

function seedWords(seed: Seed): Uint32Array {
  const h = createHash('sha256').update(`cuzk-dev-rng:${typeof seed}:${seed}`).digest();
  return new Uint32Array(h.buffer.slice(h.byteOffset, h.byteOffset + 16));
}

export class DevRng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private readonly words = new Uint32Array(8);
  private readonly wordView = new DataView(this.words.buffer);

  constructor(seed: Seed) {
    const w = seedWords(seed);
    [this.a, this.b, this.c, this.d] = [w[0], w[1], w[2], w[3] | 1];
    for (let i = 0; i < 16; i++) this.u32();
  }

  /** sfc32 (Chris Doty-Humphrey's PractRand small fast counter). */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform integer in [0, n) for n ≤ 2^32 (multiply-shift; bias < n/2^32, fine for test data). */
  below(n: number): number {
    return Math.floor((this.u32() * n) / 4294967296);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.u32() < p * 4294967296;
  }

  /** A 256-bit value mod r: nearly uniform in [0, r), full width like hash outputs in real circuits. */
  field(r: bigint): bigint {
    const w = this.words;
    for (let i = 0; i < 8; i++) w[i] = this.u32();
    const v = this.wordView;
    const x = v.getBigUint64(0, true) | (v.getBigUint64(8, true) << 64n) | (v.getBigUint64(16, true) << 128n) |
      (v.getBigUint64(24, true) << 192n);
    return x % r;
  }
}

/**
 * A nonzero secret in [1, r). With `seed`, the same (seed, label) always gives the same value: for
 * reproducible fixtures only. Without it, fresh from the OS CSPRNG.
 */
export function secretScalar(r: bigint, label: string, seed?: Seed): bigint {
  for (let counter = 0; ; counter++) {
    const bytes =
      seed === undefined
        ? randomBytes(64)
        : createHash('sha512').update(`cuzk-dev-setup:${typeof seed}:${seed}:${label}:${counter}`).digest();
    let x = 0n;
    for (const b of bytes) x = (x << 8n) | BigInt(b);
    x %= r;
    if (x !== 0n) return x;
  }
}
