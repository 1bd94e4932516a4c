// BigInt reference fields for the native core's oracle tests: Fr, Fq and Fq2 = Fq[u]/(u^2 + 1) of
// BN254 (snarkjs "bn128") and BLS12-381. Plain schoolbook arithmetic, no Montgomery form: it shares
// no code or constants' derivations with native/field.

export type CurveName = 'bn128' | 'bls12381';

export const MODULI: Record<CurveName, { q: bigint; r: bigint; n8q: number; n8r: number }> = {
  bn128: {
    q: 21888242871839275222246405745257275088696311157297823662689037894645226208583n,
    r: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
    n8q: 32,
    n8r: 32,
  },
  bls12381: {
    q: 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn,
    r: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n,
    n8q: 48,
    n8r: 32,
  },
};

export const mod = (a: bigint, p: bigint): bigint => ((a % p) + p) % p;

export function pow(b: bigint, e: bigint, p: bigint): bigint {
  let r = 1n;
  let x = mod(b, p);
  for (let k = e; k > 0n; k >>= 1n) {
    if (k & 1n) r = (r * x) % p;
    x = (x * x) % p;
  }
  return r;
}

/** Prime field Z/p: inv(0) = 0, matching cuzk.h. */
export function primeField(p: bigint) {
  return {
    p,
    add: (a: bigint, b: bigint) => mod(a + b, p),
    sub: (a: bigint, b: bigint) => mod(a - b, p),
    mul: (a: bigint, b: bigint) => mod(a * b, p),
    sqr: (a: bigint) => mod(a * a, p),
    neg: (a: bigint) => mod(-a, p),
    inv: (a: bigint) => (a === 0n ? 0n : pow(a, p - 2n, p)),
  };
}

export type Fp2 = [bigint, bigint];

/** Fq[u]/(u^2 + 1): (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + (a0 b1 + a1 b0) u. */
export function quadraticField(p: bigint) {
  const F = primeField(p);
  const mul = (a: Fp2, b: Fp2): Fp2 => [F.sub(a[0] * b[0], a[1] * b[1]), F.add(a[0] * b[1], a[1] * b[0])];
  return {
    p,
    add: (a: Fp2, b: Fp2): Fp2 => [F.add(a[0], b[0]), F.add(a[1], b[1])],
    sub: (a: Fp2, b: Fp2): Fp2 => [F.sub(a[0], b[0]), F.sub(a[1], b[1])],
    mul,
    sqr: (a: Fp2): Fp2 => mul(a, a),
    neg: (a: Fp2): Fp2 => [F.neg(a[0]), F.neg(a[1])],
    // 1/(a0 + a1 u) = (a0 - a1 u)/(a0^2 + a1^2); inv(0) = 0
    inv: (a: Fp2): Fp2 => {
      const d = F.inv(F.add(a[0] * a[0], a[1] * a[1]));
      return [F.mul(a[0], d), F.neg(F.mul(a[1], d))];
    },
  };
}
