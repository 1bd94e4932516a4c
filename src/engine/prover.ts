// One Groth16 proof with a loaded ProvingKey: checks the witness against the key, draws r and s
// from a CSPRNG, runs the native prover off the event loop with the engine's calls (on a GPU one
// prove_ab that synthesizes on the device; on the CPU core synthesize on the CPU threads, then
// prove_ab: the one proving road of the native core), decodes the points and verifies the proof
// before returning it (a wrong proof is never returned).
import { ProofError } from '../errors.js';
import { NativeBuffer } from '../ffi/native-buffer.js';
import { gpuCount } from '../ffi/native.js';
import { scalarToLe } from '../formats/lem.js';
import type { Groth16Proof } from '../formats/proof-json.js';
import { checkWitnessMatchesKey, validateWitness, type WtnsHeader } from '../formats/wtns.js';
import { decodeProof, proofBuffer, publicSignalsOf, randomScalar } from './proof-bytes.js';
import type { ProvingKey } from './proving-key.js';
import { verifyGroth16 } from './verifier.js';

export interface ProofResult {
  proof: Groth16Proof;
  publicSignals: bigint[];
  timings: { proveMs: number; verifyMs: number };
}

export interface ProveOptions {
  /** Test-only: fixed randomisers instead of fresh CSPRNG ones (the proof is then not zero-knowledge). */
  randomness?: { r: bigint; s: bigint };
  /** Skip the verify-before-return (default: verify). */
  skipVerify?: boolean;
  cancel?: Int32Array;
  /** Where phase 2 runs: -1 the CPU core, N GPU N. Default oneShotDevice(). */
  device?: number;
  /** Told as each phase starts ('prove': the native proof, 'verify'), for a caller's progress display. */
  onPhase?: (phase: 'prove' | 'verify') => void;
}

/** The one-shot prover's device: GPU 0 when the loaded core has a usable GPU, else the CPU core (-1). */
export function oneShotDevice(): number {
  return gpuCount() > 0 ? 0 : -1;
}

/**
 * `witness`: nVars × 32-byte standard scalars (a .wtns section 2), already range-checked when it
 * came through WtnsFile; `wtnsHeader` (when given) is checked against the key.
 */
export async function proveWithKey(key: ProvingKey, witness: Uint8Array, opts: ProveOptions = {}, wtnsHeader?: WtnsHeader): Promise<ProofResult> {
  key.assertLive();
  const h = key.header;
  if (wtnsHeader) checkWitnessMatchesKey(wtnsHeader, h);
  else validateWitness({ path: 'witness', curve: h.curve, n8: 32, prime: h.r, nWitness: h.nVars }, witness);
  const r = opts.randomness?.r ?? randomScalar(h.r);
  const s = opts.randomness?.s ?? randomScalar(h.r);
  const out = proofBuffer(key);
  const device = opts.device ?? oneShotDevice();
  // The CPU core's A ‖ B in plain native memory (a GPU needs none: it synthesizes on the device).
  const ab = device < 0 ? NativeBuffer.alloc(key.native.abBytes) : undefined;
  const t0 = performance.now();
  try {
    opts.onPhase?.('prove');
    if (ab) await key.native.synthesize(witness, ab, opts.cancel);
    await key.native.proveAb(witness, ab ?? null, device, scalarToLe(r % h.r), scalarToLe(s % h.r), out, opts.cancel);
  } finally {
    ab?.release();
  }
  const t1 = performance.now();
  const proof = decodeProof(key, out);
  const publicSignals = publicSignalsOf(witness, h.nPublic);
  if (!opts.skipVerify) opts.onPhase?.('verify');
  if (!opts.skipVerify && !verifyGroth16(key.vk, publicSignals, proof, key.vkBytes)) {
    throw new ProofError('E_PROOF_INVALID', `the proof for ${h.path} does not verify: the witness does not satisfy the circuit (check it with \`snarkjs wtns check\`)`);
  }
  return { proof, publicSignals, timings: { proveMs: t1 - t0, verifyMs: performance.now() - t1 } };
}
