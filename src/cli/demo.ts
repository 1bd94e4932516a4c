// `cuzk demo` (what `npm start` runs): proves the bundled example circuits from their inputs
// (circom wasm → witness → proof), verifies each proof with cuzk's verifier and with snarkjs's.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringifyProof, stringifyPublic, proofToJson, publicToJson } from '../formats/proof-json.js';
import { parseVkeyJson } from '../formats/vkey-json.js';
import { WtnsFile } from '../formats/wtns.js';
import { proveWithKey } from '../engine/prover.js';
import { ProvingKey } from '../engine/proving-key.js';
import { verifyGroth16 } from '../engine/verifier.js';
import { computeWitness } from '../engine/witness.js';
import { backend } from '../ffi/native.js';
import { findProjectRoot } from './root.js';
import { note, printResult, type CliContext } from './output.js';

const EXAMPLES = ['bn128/poseidon', 'bls12381/multiplier'];

interface SnarkjsVerify {
  groth16: { verify(vk: unknown, pub: unknown, proof: unknown, logger?: unknown): Promise<boolean> };
}

async function snarkjsVerify(vkJson: unknown, pub: unknown, proof: unknown): Promise<boolean | 'unavailable'> {
  let snarkjs: SnarkjsVerify;
  try {
    snarkjs = (await import('snarkjs' as string)) as SnarkjsVerify;
  } catch {
    return 'unavailable';
  }
  return snarkjs.groth16.verify(vkJson, pub, proof);
}

export async function demoCommand(ctx: CliContext): Promise<number> {
  const root = findProjectRoot();
  const outDir = path.join(tmpdir(), 'cuzk-demo');
  mkdirSync(outDir, { recursive: true });
  note(ctx, `cuzk demo: proving the bundled example circuits on the ${backend() === 'cuda' ? 'GPU' : 'CPU core'}`);
  const results: Record<string, unknown>[] = [];
  for (const ex of EXAMPLES) {
    const dir = path.join(root, 'test', 'vectors', ex);
    const t0 = performance.now();
    const wtns = WtnsFile.fromBytes(await computeWitness(path.join(dir, 'circuit.wasm'), JSON.parse(readFileSync(path.join(dir, 'input.json'), 'utf8'))), `${ex} witness`);
    const t1 = performance.now();
    const key = await ProvingKey.load(path.join(dir, 'circuit.zkey'));
    let res;
    try {
      res = await proveWithKey(key, wtns.readWitness(), {}, wtns.header);
    } finally {
      key.release();
    }
    const vkText = readFileSync(path.join(dir, 'vkey.json'), 'utf8');
    const ours = verifyGroth16(parseVkeyJson(vkText, { file: 'vkey.json' }), res.publicSignals, res.proof);
    const theirs = await snarkjsVerify(JSON.parse(vkText), publicToJson(res.publicSignals), proofToJson(res.proof));
    const proofPath = path.join(outDir, `${ex.replace('/', '-')}-proof.json`);
    const publicPath = path.join(outDir, `${ex.replace('/', '-')}-public.json`);
    writeFileSync(proofPath, stringifyProof(res.proof));
    writeFileSync(publicPath, stringifyPublic(res.publicSignals));
    const r = { circuit: ex, witnessMs: t1 - t0, proveMs: res.timings.proveMs, cuzkVerify: ours, snarkjsVerify: theirs, proof: proofPath };
    results.push(r);
    note(ctx, `  ${ex.padEnd(22)} witness ${(t1 - t0).toFixed(0).padStart(5)} ms  prove ${res.timings.proveMs.toFixed(0).padStart(5)} ms  cuzk verify: ${ours ? 'OK' : 'INVALID'}  snarkjs verify: ${theirs === true ? 'OK' : theirs === false ? 'INVALID' : theirs}`);
    if (!ours || theirs === false) {
      printResult(ctx, { ok: false, results }, 'demo FAILED: a proof did not verify');
      return 1;
    }
  }
  printResult(ctx, { ok: true, results }, `demo OK: proofs in ${outDir}; next: \`npm test\`, or \`cuzk --help\``);
  // snarkjs's verifier leaves ffjavascript worker threads running; the CLI exits explicitly.
  return 0;
}
