// Reference G1/G2 groups for the native core's oracle tests: @noble/curves points (an independent
// implementation) plus their snarkjs LEM byte images (x‖y, Montgomery, G2 coordinates c0‖c1,
// all-zero = infinity).
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import type { WeierstrassPoint } from '@noble/curves/abstract/weierstrass.js';
import { concat, fromLem, toLem } from './lem.js';
import { MODULI, type CurveName } from './ref-field.js';
import type { Rng } from './rng.js';

export type GroupName = 'g1' | 'g2';
type Fp2 = { c0: bigint; c1: bigint };
/** A point of either group (coordinates bigint or Fp2); a RefGroup only receives its own points. */
export type RefPoint = WeierstrassPoint<unknown>;

export interface RefGroup {
  readonly curve: CurveName;
  readonly group: GroupName;
  /** Bytes of one LEM point. */
  readonly bytes: number;
  readonly base: RefPoint;
  readonly zero: RefPoint;
  add(a: RefPoint, b: RefPoint): RefPoint;
  neg(a: RefPoint): RefPoint;
  dbl(a: RefPoint): RefPoint;
  /** k·a for any k >= 0 (reduced mod r: the points are in the order-r subgroup). */
  mul(a: RefPoint, k: bigint): RefPoint;
  eq(a: RefPoint, b: RefPoint): boolean;
  toLem(a: RefPoint): Uint8Array;
  fromLem(b: Uint8Array, offset?: number): RefPoint;
  /** A uniformly random non-zero multiple of the generator. */
  random(rng: Rng): RefPoint;
}

function makeGroup<T>(
  curve: CurveName,
  group: GroupName,
  Point: { BASE: WeierstrassPoint<T>; ZERO: WeierstrassPoint<T>; fromAffine(p: { x: T; y: T }): WeierstrassPoint<T> },
  coords: (v: T) => bigint[],
  make: (c: bigint[]) => T,
): RefGroup {
  const { q, r, n8q } = MODULI[curve];
  const k = group === 'g1' ? 1 : 2;
  const bytes = 2 * k * n8q;
  const P = (a: RefPoint) => a as WeierstrassPoint<T>;
  return {
    curve,
    group,
    bytes,
    base: Point.BASE,
    zero: Point.ZERO,
    add: (a, b) => P(a).add(P(b)),
    neg: (a) => P(a).negate(),
    dbl: (a) => P(a).double(),
    mul: (a, s) => (s % r === 0n ? Point.ZERO : P(a).multiplyUnsafe(s % r)),
    eq: (a, b) => P(a).equals(P(b)),
    toLem: (a) => {
      if (P(a).is0()) return new Uint8Array(bytes);
      const { x, y } = P(a).toAffine();
      return concat([...coords(x), ...coords(y)].map((c) => toLem(c, q, n8q)));
    },
    fromLem: (b, offset = 0) => {
      if (b.subarray(offset, offset + bytes).every((v) => v === 0)) return Point.ZERO;
      const c = Array.from({ length: 2 * k }, (_, i) => fromLem(b, q, n8q, offset + i * n8q));
      return Point.fromAffine({ x: make(c.slice(0, k)), y: make(c.slice(k)) });
    },
    random: (rng) => Point.BASE.multiplyUnsafe(rng.below(r - 1n) + 1n),
  };
}

const g1 = (v: bigint) => [v];
const g2 = (v: Fp2) => [v.c0, v.c1];

export function refGroup(curve: CurveName, group: GroupName): RefGroup {
  const c = curve === 'bn128' ? bn254 : bls12_381;
  return group === 'g1'
    ? makeGroup<bigint>(curve, group, c.G1.Point, g1, (x) => x[0])
    : makeGroup<Fp2>(curve, group, c.G2.Point, g2, (x) => ({ c0: x[0], c1: x[1] }));
}
