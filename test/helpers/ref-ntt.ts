// BigInt oracle for the Fr NTT: the DFT straight from its definition (O(n^2)), with snarkjs's roots
// (ffjavascript F1Field: nqr = 5 on both curves, w[s] = nqr^((r-1)/2^s), w[k] = w[k+1]^2, shift = 25).
// Independent of the native code: no butterflies, no tables shared with it.

export type NttCurve = 'bn128' | 'bls12381';

export const FR: Readonly<Record<NttCurve, { r: bigint; s: number }>> = {
  bn128: { r: 21888242871839275222246405745257275088548364400416034343698204186575808495617n, s: 28 },
  bls12381: { r: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n, s: 32 },
};

export function modPow(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  b %= m;
  for (; e > 0n; e >>= 1n) {
    if (e & 1n) r = (r * b) % m;
    b = (b * b) % m;
  }
  return r;
}

export const modInv = (a: bigint, m: bigint): bigint => modPow(a, m - 2n, m);

/** ω for a domain of size 2^k: snarkjs's Fr.w[k]. */
export function rootOfUnity(curve: NttCurve, k: number): bigint {
  const { r, s } = FR[curve];
  let w = modPow(5n, (r - 1n) >> BigInt(s), r);
  for (let i = s; i > k; i--) w = (w * w) % r;
  return w;
}

/** The coset generator of cuzk.h: ω_2n = Fr.w[k+1], or Fr.shift = 25 at k = s. */
export function cosetGen(curve: NttCurve, k: number): bigint {
  return k < FR[curve].s ? rootOfUnity(curve, k + 1) : 25n;
}

/** sum_j a_j x^j (Horner). */
export function evalPoly(a: readonly bigint[], x: bigint, r: bigint): bigint {
  let acc = 0n;
  for (let j = a.length - 1; j >= 0; j--) acc = (acc * x + a[j]) % r;
  return acc;
}

/**
 * Forward: out[k] = A(x_k), x_k = ω^k (or g·ω^k with `coset`), A the polynomial with coefficients a.
 * Inverse: the coefficients c with C(x_k) = a_k, i.e. c_j = n^-1·sum_k a_k ω^-jk (times g^-j with `coset`).
 */
export function naiveNtt(curve: NttCurve, a: readonly bigint[], inverse: boolean, coset: boolean): bigint[] {
  const { r } = FR[curve];
  const n = a.length;
  const k = Math.log2(n);
  const w = rootOfUnity(curve, k);
  const g = coset ? cosetGen(curve, k) : 1n;
  if (!inverse) return a.map((_, i) => evalPoly(a, (g * modPow(w, BigInt(i), r)) % r, r));
  const wi = modInv(w, r);
  const ni = modInv(BigInt(n), r);
  const gi = modInv(g, r);
  return a.map((_, j) => {
    const c = (evalPoly(a, modPow(wi, BigInt(j), r), r) * ni) % r;
    return (c * modPow(gi, BigInt(j), r)) % r;
  });
}

export function toBytesLE(values: readonly bigint[]): Uint8Array {
  const out = new Uint8Array(32 * values.length);
  values.forEach((v, i) => {
    for (let b = 0; b < 32; b++, v >>= 8n) out[32 * i + b] = Number(v & 0xffn);
  });
  return out;
}

export function fromBytesLE(bytes: Uint8Array): bigint[] {
  const out: bigint[] = [];
  for (let i = 0; i < bytes.length; i += 32) {
    let v = 0n;
    for (let b = 31; b >= 0; b--) v = (v << 8n) | BigInt(bytes[i + b]);
    out.push(v);
  }
  return out;
}
