// snarkjs's proof.json and public.json (reference §1.4): exact shapes for output, strict parsers for input.
// Key order and G2 coordinate order [c0, c1] follow snarkjs groth16_prove.js; it writes with 1-space indent.
// Points are only range-checked here (coordinates < q); on-curve checks belong to the verifier.

import { InputError } from '../errors.js';
import { curveByName, type CurveInfo, type CurveName } from './curves.js';
import {
  asArray, asObject, curveField, decimal, fail, g1ToJson, g2ToJson, parseG1, parseG2, parseJsonInput, protocolField,
  type G1Json, type G2Json,
} from './json-fields.js';
import type { G1Affine, G2Affine } from './lem.js';

export { parseVkeyJson } from './vkey-json.js';

export interface Groth16Proof {
  readonly curve: CurveName;
  /** null = point at infinity. */
  readonly a: G1Affine | null;
  readonly b: G2Affine | null;
  readonly c: G1Affine | null;
}

export interface ProofJson {
  pi_a: G1Json;
  pi_b: G2Json;
  pi_c: G1Json;
  protocol: 'groth16';
  curve: CurveName;
}

export interface ParseOptions {
  /** Name used in error messages (default "proof.json" / "public.json"). */
  readonly file?: string;
  /** Expected curve; also stands in when the JSON has no "curve" field (rapidsnark omits it). */
  readonly curve?: CurveName;
}

export function proofToJson(p: Groth16Proof): ProofJson {
  return { pi_a: g1ToJson(p.a), pi_b: g2ToJson(p.b), pi_c: g1ToJson(p.c), protocol: 'groth16', curve: p.curve };
}

/** The text snarkjs's CLI writes (bfj, space 1). */
export function stringifyProof(p: Groth16Proof): string {
  return JSON.stringify(proofToJson(p), null, 1);
}

export function publicToJson(signals: readonly bigint[]): string[] {
  return signals.map((s, i) => {
    if (s < 0n) throw new InputError('E_INVALID_ARG', `public signal ${i} is negative`);
    return s.toString();
  });
}

export function stringifyPublic(signals: readonly bigint[]): string {
  return JSON.stringify(publicToJson(signals), null, 1);
}

/** `input`: JSON text, its bytes, or the parsed value. FormatError naming the file and field on any deviation. */
export function parseProofJson(input: unknown, opts: ParseOptions = {}): Groth16Proof {
  const file = opts.file ?? 'proof.json';
  const obj = asObject(parseJsonInput(input, file), file, 'top level');
  protocolField(obj, file);
  const curve = curveField(obj, file, opts.curve);
  return {
    curve: curve.name,
    a: parseG1(obj.pi_a, file, 'pi_a', curve),
    b: parseG2(obj.pi_b, file, 'pi_b', curve),
    c: parseG1(obj.pi_c, file, 'pi_c', curve),
  };
}

export interface PublicParseOptions {
  readonly file?: string;
  readonly curve: CurveName | CurveInfo;
  /** When given, the signal count must equal it (the key's nPublic). */
  readonly nPublic?: number;
}

/** Decimal strings, each < r, as snarkjs groth16 verify requires. */
export function parsePublicJson(input: unknown, opts: PublicParseOptions): bigint[] {
  const file = opts.file ?? 'public.json';
  const curve = typeof opts.curve === 'string' ? curveByName(opts.curve) : opts.curve;
  if (!curve) throw new InputError('E_INVALID_ARG', `${file}: unknown curve ${JSON.stringify(opts.curve)}`);
  const arr = asArray(parseJsonInput(input, file), file, 'top level');
  if (opts.nPublic !== undefined && arr.length !== opts.nPublic) {
    throw fail(file, 'top level', `has ${arr.length} public signals, the key expects ${opts.nPublic}`);
  }
  return arr.map((v, i) => decimal(v, file, `[${i}]`, curve.r, `the ${curve.label} scalar field prime r`));
}
