// The curve table every format reader shares: snarkjs names, base field q, scalar field r and byte widths.
// One place on purpose: a zkey is recognised by (q, r), a wtns or r1cs by r alone, JSON by the snarkjs name.
// Constants from snarkjs src/curves.js (ffjavascript bn128 / bls12381).

export type CurveName = 'bn128' | 'bls12381';

export interface CurveInfo {
  /** snarkjs's name, as written in proof.json and verification_key.json. */
  readonly name: CurveName;
  /** Name for messages. */
  readonly label: 'BN254' | 'BLS12-381';
  readonly q: bigint;
  readonly r: bigint;
  /** Bytes per base-field element in files (LEM coordinates). */
  readonly n8q: number;
  /** Bytes per scalar-field element in files. */
  readonly n8r: number;
}

export const BN128: CurveInfo = Object.freeze({
  name: 'bn128',
  label: 'BN254',
  q: 21888242871839275222246405745257275088696311157297823662689037894645226208583n,
  r: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
  n8q: 32,
  n8r: 32,
});

export const BLS12381: CurveInfo = Object.freeze({
  name: 'bls12381',
  label: 'BLS12-381',
  q: 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn,
  r: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n,
  n8q: 48,
  n8r: 32,
});

export const CURVES: readonly CurveInfo[] = Object.freeze([BN128, BLS12381]);

export function curveByName(name: string): CurveInfo | undefined {
  return CURVES.find((c) => c.name === name);
}

export function curveByQ(q: bigint): CurveInfo | undefined {
  return CURVES.find((c) => c.q === q);
}

export function curveByR(r: bigint): CurveInfo | undefined {
  return CURVES.find((c) => c.r === r);
}

/** Short form of a prime for error messages: decimal when short, else 0x-prefixed head…tail. */
export function describePrime(p: bigint): string {
  const known = CURVES.find((c) => c.q === p || c.r === p);
  if (known) return `the ${known.label} ${known.q === p ? 'base' : 'scalar'} field prime`;
  const hex = p.toString(16);
  return hex.length <= 24 ? `0x${hex}` : `0x${hex.slice(0, 10)}…${hex.slice(-10)} (${p.toString(2).length} bits)`;
}
