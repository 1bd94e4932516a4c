// `cuzk zkey export verificationkey <circuit.zkey> <verification_key.json>`: snarkjs's vkey export.
import { InputError } from '../errors.js';
import { stringifyVkey, verificationKeyFromZkey } from '../formats/vkey-json.js';
import { ZkeyFile } from '../formats/zkey.js';
import { pairingGt } from '../engine/gt.js';
import { checkOutputPaths, printResult, writeOutput, type CliContext } from './output.js';

export const ZKEY_HELP = `usage: cuzk zkey export verificationkey <circuit.zkey> <verification_key.json>

Writes the verification key of a Groth16 zkey in snarkjs's format.`;

export async function zkeyCommand(ctx: CliContext, args: string[]): Promise<number> {
  if (args[0] !== 'export' || args[1] !== 'verificationkey' || args.length !== 4) {
    throw new InputError('E_INVALID_ARG', `unknown zkey command: ${args.join(' ')}\n${ZKEY_HELP}`);
  }
  const [, , zkeyPath, vkPath] = args as [string, string, string, string];
  checkOutputPaths({ 'verification key': vkPath });
  const file = ZkeyFile.open(zkeyPath);
  try {
    const vk = verificationKeyFromZkey(file.header, file.read('IC'));
    writeOutput(vkPath, stringifyVkey(vk, pairingGt(vk.curve, vk.alpha1, vk.beta2)), 'verification key');
    printResult(ctx, { ok: true, vkey: vkPath, curve: vk.curve, nPublic: vk.nPublic }, `verification key written to ${vkPath}`);
  } finally {
    file.close();
  }
  return 0;
}
