// e(P, Q) as snarkjs writes it in verification_key.json (vk_alphabeta_12): the native pairing's Fq12
// bytes (standard form, natural tower order, see native/pairing/fp12.hpp) nested as ffjavascript's
// Gt.toObject: [Fp6, Fp6], Fp6 = [Fp2, Fp2, Fp2], Fp2 = [c0, c1].
import { curveByName } from '../formats/curves.js';
import { encodeG1, encodeG2, leToBigint, type G1Affine, type G2Affine } from '../formats/lem.js';
import type { Fp12 } from '../formats/vkey-json.js';
import { pairing, sizesOf, type CurveName } from '../ffi/native.js';

export function pairingGt(curveName: CurveName, p: G1Affine | null, q: G2Affine | null): Fp12 {
  const curve = curveByName(curveName)!;
  const z = sizesOf(curveName);
  const out = new Uint8Array(z.fq12);
  pairing(curveName, encodeG1(p, curve), encodeG2(q, curve), 1, out);
  const c = (i: number) => leToBigint(out, i * z.n8q, z.n8q);
  const fp2 = (i: number) => [c(i), c(i + 1)] as const;
  const fp6 = (i: number) => [fp2(i), fp2(i + 2), fp2(i + 4)] as const;
  return [fp6(0), fp6(6)];
}
