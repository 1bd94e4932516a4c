// snarkjs's verification_key.json (reference §1.4; zkey_export_verificationkey.js): build it from a zkey's
// decoded points, write it with snarkjs's key order, and parse it strictly. vk_alphabeta_12 = e(α, β) needs a
// pairing, so the caller supplies it (computed natively); `groth16 verify` does not read it.

import { InputError } from '../errors.js';
import { curveByName, type CurveName } from './curves.js';
import {
  asArray, asObject, curveField, decimal, fail, g1ToJson, g2ToJson, parseG1, parseG2, parseJsonInput, protocolField,
  type G1Json, type G2Json,
} from './json-fields.js';
import { decodeG1, decodeG2, g1Bytes, type Fp2, type G1Affine, type G2Affine } from './lem.js';
import type { ZkeyHeader } from './zkey.js';

/** Fp12 as ffjavascript's Gt.toObject nests it: [Fp6, Fp6], Fp6 = [Fp2, Fp2, Fp2], Fp2 = [c0, c1]. */
export type Fp6 = readonly [Fp2, Fp2, Fp2];
export type Fp12 = readonly [Fp6, Fp6];

export interface VerificationKey {
  readonly curve: CurveName;
  readonly nPublic: number;
  readonly alpha1: G1Affine | null;
  readonly beta2: G2Affine | null;
  readonly gamma2: G2Affine | null;
  readonly delta2: G2Affine | null;
  /** nPublic + 1 points. */
  readonly IC: readonly (G1Affine | null)[];
  /** Present when parsed from a file that has it. */
  readonly alphabeta12?: Fp12;
}

export interface VkeyJson {
  protocol: 'groth16';
  curve: CurveName;
  nPublic: number;
  vk_alpha_1: G1Json;
  vk_beta_2: G2Json;
  vk_gamma_2: G2Json;
  vk_delta_2: G2Json;
  vk_alphabeta_12: string[][][];
  IC: G1Json[];
}

/** Decodes the key's section-2 points and `ic` (the IC section bytes, (nPublic + 1) G1 points in LEM). */
export function verificationKeyFromZkey(h: ZkeyHeader, ic: Uint8Array): VerificationKey {
  const curve = curveByName(h.curve)!;
  const sG1 = g1Bytes(curve);
  if (ic.length !== (h.nPublic + 1) * sG1) {
    throw new InputError('E_INVALID_ARG', `${h.path}: IC needs ${(h.nPublic + 1) * sG1} bytes, got ${ic.length}`);
  }
  const where = `${h.path}: zkey section`;
  return {
    curve: h.curve,
    nPublic: h.nPublic,
    alpha1: decodeG1(h.alpha1, curve, 0, `${where} 2 alpha1`),
    beta2: decodeG2(h.beta2, curve, 0, `${where} 2 beta2`),
    gamma2: decodeG2(h.gamma2, curve, 0, `${where} 2 gamma2`),
    delta2: decodeG2(h.delta2, curve, 0, `${where} 2 delta2`),
    IC: Array.from({ length: h.nPublic + 1 }, (_, i) => decodeG1(ic, curve, i * sG1, `${where} 3 IC[${i}]`)),
  };
}

export function vkeyToJson(vk: VerificationKey, alphabeta12: Fp12): VkeyJson {
  if (vk.IC.length !== vk.nPublic + 1) {
    throw new InputError('E_INVALID_ARG', `verification key: IC has ${vk.IC.length} points, nPublic + 1 = ${vk.nPublic + 1}`);
  }
  return {
    protocol: 'groth16',
    curve: vk.curve,
    nPublic: vk.nPublic,
    vk_alpha_1: g1ToJson(vk.alpha1),
    vk_beta_2: g2ToJson(vk.beta2),
    vk_gamma_2: g2ToJson(vk.gamma2),
    vk_delta_2: g2ToJson(vk.delta2),
    vk_alphabeta_12: alphabeta12.map((f6) => f6.map((f2) => [f2[0].toString(), f2[1].toString()])),
    IC: vk.IC.map(g1ToJson),
  };
}

export function stringifyVkey(vk: VerificationKey, alphabeta12: Fp12): string {
  return JSON.stringify(vkeyToJson(vk, alphabeta12), null, 1);
}

/** Strict parse; `file` names it in messages (default "verification_key.json"). */
export function parseVkeyJson(input: unknown, opts: { readonly file?: string } = {}): VerificationKey {
  const file = opts.file ?? 'verification_key.json';
  const obj = asObject(parseJsonInput(input, file), file, 'top level');
  protocolField(obj, file);
  const curve = curveField(obj, file);
  const nPublic = obj.nPublic;
  if (typeof nPublic !== 'number' || !Number.isInteger(nPublic) || nPublic < 0 || nPublic > 0xffffffff) {
    throw fail(file, 'nPublic', `is ${JSON.stringify(nPublic)}, expected a non-negative integer`);
  }
  const ic = asArray(obj.IC, file, 'IC', nPublic + 1);
  const fq = (v: unknown, field: string) => decimal(v, file, field, curve.q, `the ${curve.label} base field prime q`);
  let alphabeta12: Fp12 | undefined;
  if (obj.vk_alphabeta_12 !== undefined) {
    const f12 = asArray(obj.vk_alphabeta_12, file, 'vk_alphabeta_12', 2);
    const f6 = (i: number): Fp6 => {
      const a = asArray(f12[i], file, `vk_alphabeta_12[${i}]`, 3);
      const f2 = (j: number): Fp2 => {
        const field = `vk_alphabeta_12[${i}][${j}]`;
        const b = asArray(a[j], file, field, 2);
        return [fq(b[0], `${field}[0]`), fq(b[1], `${field}[1]`)];
      };
      return [f2(0), f2(1), f2(2)];
    };
    alphabeta12 = [f6(0), f6(1)];
  }
  const vk: VerificationKey = {
    curve: curve.name,
    nPublic,
    alpha1: parseG1(obj.vk_alpha_1, file, 'vk_alpha_1', curve),
    beta2: parseG2(obj.vk_beta_2, file, 'vk_beta_2', curve),
    gamma2: parseG2(obj.vk_gamma_2, file, 'vk_gamma_2', curve),
    delta2: parseG2(obj.vk_delta_2, file, 'vk_delta_2', curve),
    IC: ic.map((p, i) => parseG1(p, file, `IC[${i}]`, curve)),
  };
  return alphabeta12 ? { ...vk, alphabeta12 } : vk;
}
