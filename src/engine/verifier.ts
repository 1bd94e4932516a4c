// Groth16 verification through the native pairing: snarkjs's equation
// e(A, B) = e(α, β)·e(Σ pub_i·IC_i, γ)·e(C, δ), with snarkjs's input checks (public signals < r).
import { InputError } from '../errors.js';
import { curveByName, type CurveInfo } from '../formats/curves.js';
import { encodeG1, encodeG2, g1Bytes, g2Bytes, scalarToLe } from '../formats/lem.js';
import type { Groth16Proof } from '../formats/proof-json.js';
import type { VerificationKey } from '../formats/vkey-json.js';
import { groth16Verify, groth16VerifyAsync } from '../ffi/native.js';

function curveOf(name: string): CurveInfo {
  const c = curveByName(name);
  if (!c) throw new InputError('E_INVALID_ARG', `unknown curve ${name}`);
  return c;
}

/** alpha1 ‖ beta2 ‖ gamma2 ‖ delta2 ‖ IC[nPublic+1], LEM: the layout of cuzk_groth16_verify. */
export function encodeVerificationKey(vk: VerificationKey): Uint8Array {
  const c = curveOf(vk.curve);
  const s1 = g1Bytes(c);
  const s2 = g2Bytes(c);
  const out = new Uint8Array(s1 + 3 * s2 + s1 * vk.IC.length);
  encodeG1(vk.alpha1, c, out, 0);
  encodeG2(vk.beta2, c, out, s1);
  encodeG2(vk.gamma2, c, out, s1 + s2);
  encodeG2(vk.delta2, c, out, s1 + 2 * s2);
  vk.IC.forEach((p, i) => encodeG1(p, c, out, s1 + 3 * s2 + i * s1));
  return out;
}

export function encodeProof(proof: Groth16Proof): Uint8Array {
  const c = curveOf(proof.curve);
  const s1 = g1Bytes(c);
  const out = new Uint8Array(2 * s1 + g2Bytes(c));
  encodeG1(proof.a, c, out, 0);
  encodeG2(proof.b, c, out, s1);
  encodeG1(proof.c, c, out, s1 + g2Bytes(c));
  return out;
}

export function encodePublics(signals: readonly bigint[], curve: CurveInfo): Uint8Array {
  const out = new Uint8Array(32 * signals.length);
  signals.forEach((v, i) => {
    if (v < 0n || v >= curve.r) throw new InputError('E_INVALID_ARG', `public signal ${i} is not below the ${curve.label} scalar field prime`);
    scalarToLe(v, 32, out, 32 * i);
  });
  return out;
}

/**
 * True when `proof` verifies for `vk` and `publicSignals`. Throws InputError when the inputs do not
 * fit together (curve mismatch, wrong signal count); a well-formed but wrong proof returns false.
 */
export function verifyGroth16(vk: VerificationKey, publicSignals: readonly bigint[], proof: Groth16Proof, vkBytes?: Uint8Array): boolean {
  checkFit(vk, publicSignals, proof);
  const c = curveOf(vk.curve);
  return groth16Verify(vk.curve, vkBytes ?? encodeVerificationKey(vk), encodePublics(publicSignals, c), vk.nPublic, encodeProof(proof));
}

/** verifyGroth16 off the event loop (the engine's verify-before-return). */
export function verifyGroth16Async(vk: VerificationKey, publicSignals: readonly bigint[], proof: Groth16Proof, vkBytes?: Uint8Array): Promise<boolean> {
  checkFit(vk, publicSignals, proof);
  const c = curveOf(vk.curve);
  return groth16VerifyAsync(vk.curve, vkBytes ?? encodeVerificationKey(vk), encodePublics(publicSignals, c), vk.nPublic, encodeProof(proof));
}

function checkFit(vk: VerificationKey, publicSignals: readonly bigint[], proof: Groth16Proof): void {
  if (proof.curve !== vk.curve) throw new InputError('E_INVALID_ARG', `proof is on ${proof.curve} but the verification key is on ${vk.curve}`);
  if (publicSignals.length !== vk.nPublic) {
    throw new InputError('E_INVALID_ARG', `${publicSignals.length} public signals given, the verification key expects ${vk.nPublic}`);
  }
}
