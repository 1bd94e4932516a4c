// cuzk's public API: re-exports only.
export { CuzkError, InputError, FormatError, ResourceError, DeviceError, ProofError, InternalError, ERROR_CODES, type ErrorCode } from './errors.js';
export { ProvingKey } from './engine/proving-key.js';
export { proveWithKey, type ProofResult, type ProveOptions } from './engine/prover.js';
export { verifyGroth16 } from './engine/verifier.js';
export { computeWitness } from './engine/witness.js';
export { ZkeyFile, type ZkeyHeader } from './formats/zkey.js';
export { WtnsFile, type WtnsHeader } from './formats/wtns.js';
export { parseProofJson, parsePublicJson, proofToJson, publicToJson, stringifyProof, stringifyPublic, type Groth16Proof } from './formats/proof-json.js';
export { parseVkeyJson, type VerificationKey } from './formats/vkey-json.js';
export { createEngine, resolveConfig } from './engine/create.js';
export type { Engine } from './engine/engine.js';
export * from './engine/api.js';
export { requestDigest } from './engine/scheduler.js';
