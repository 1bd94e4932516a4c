// The bytes around one native proof, shared by the one-shot prover and the engine's pipeline:
// fresh randomisers, the proof buffer the native core writes (A ‖ B ‖ C, LEM) and its decoding,
// and the public signals read from the witness.
import { randomBytes } from 'node:crypto';
import { decodeG1, decodeG2, g1Bytes, g2Bytes, leToBigint } from '../formats/lem.js';
import type { Groth16Proof } from '../formats/proof-json.js';
import type { ProvingKey } from './proving-key.js';

/** A uniform scalar mod r: 512 random bits reduced (bias below 2^-250). */
export function randomScalar(r: bigint): bigint {
  return leToBigint(randomBytes(64)) % r;
}

/** A buffer of the size the native prover writes for this key's curve. */
export function proofBuffer(key: ProvingKey): Uint8Array {
  return new Uint8Array(2 * g1Bytes(key.curve) + g2Bytes(key.curve));
}

export function decodeProof(key: ProvingKey, out: Uint8Array): Groth16Proof {
  const c = key.curve;
  return {
    curve: key.header.curve,
    a: decodeG1(out, c, 0, 'proof A'),
    b: decodeG2(out, c, g1Bytes(c), 'proof B'),
    c: decodeG1(out, c, g1Bytes(c) + g2Bytes(c), 'proof C'),
  };
}

/** Wires 1..nPublic of a standard-form witness. */
export function publicSignalsOf(witness: Uint8Array, nPublic: number): bigint[] {
  return Array.from({ length: nPublic }, (_, i) => leToBigint(witness, 32 * (i + 1), 32));
}
