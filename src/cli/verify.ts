// `cuzk verify <vkey.json> <public.json> <proof.json>`: exit 0 valid, 1 invalid, 2 bad input.
import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';
import { parseProofJson, parsePublicJson, parseVkeyJson } from '../formats/proof-json.js';
import { verifyGroth16 } from '../engine/verifier.js';
import { printResult, type CliContext } from './output.js';

export const VERIFY_HELP = `usage: cuzk verify <verification_key.json> <public.json> <proof.json> [--json]

Checks a Groth16 proof like \`snarkjs groth16 verify\`, with a native pairing.
Exit status: 0 valid, 1 invalid, 2 bad input (unreadable or malformed files).`;

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (cause) {
    throw new InputError('E_INVALID_ARG', `${path}: cannot read (${(cause as NodeJS.ErrnoException).code ?? cause})`, { cause });
  }
}

export async function verifyCommand(ctx: CliContext, args: string[]): Promise<number> {
  if (args.length !== 3) throw new InputError('E_INVALID_ARG', `verify needs 3 arguments, got ${args.length}\n${VERIFY_HELP}`);
  const [vkPath, publicPath, proofPath] = args as [string, string, string];
  const vk = parseVkeyJson(readText(vkPath), { file: vkPath });
  const proof = parseProofJson(readText(proofPath), { file: proofPath, curve: vk.curve });
  const signals = parsePublicJson(readText(publicPath), { file: publicPath, curve: vk.curve });
  if (signals.length !== vk.nPublic) {
    throw new InputError('E_INVALID_ARG', `${publicPath}: has ${signals.length} public signals, ${vkPath} expects ${vk.nPublic}`);
  }
  if (proof.curve !== vk.curve) throw new InputError('E_INVALID_ARG', `${proofPath}: proof is on ${proof.curve}, ${vkPath} is on ${vk.curve}`);
  const t0 = performance.now();
  const valid = verifyGroth16(vk, signals, proof);
  const ms = performance.now() - t0;
  printResult(ctx, { valid, curve: vk.curve, ms }, valid ? `OK: the proof is valid (${ms.toFixed(1)} ms)` : 'INVALID: the proof does not verify');
  return valid ? 0 : 1;
}
