// `cuzk prove` and `cuzk fullprove`: snarkjs's argument order, snarkjs's output files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InputError } from '../errors.js';
import { stringifyProof, stringifyPublic } from '../formats/proof-json.js';
import { WtnsFile } from '../formats/wtns.js';
import { oneShotDevice, proveWithKey, type ProofResult } from '../engine/prover.js';
import { ProvingKey } from '../engine/proving-key.js';
import { computeWitness } from '../engine/witness.js';
import { generatorKind } from '../engine/generator-file.js';
import { backend } from '../ffi/native.js';
import { checkOutputPaths, note, PhaseLine, printResult, writeOutput, type CliContext } from './output.js';
import { readInputFile, witnessToFile } from './witness.js';

export const PROVE_HELP = `usage: cuzk prove <circuit.zkey> <witness.wtns> <proof.json> <public.json> [options]
       cuzk fullprove <input.json> <generator> <circuit.zkey> <proof.json> <public.json> [options]

Proves with a snarkjs Groth16 key (BN254 or BLS12-381), like \`snarkjs groth16 prove\` /
\`snarkjs groth16 fullprove\`, and verifies the proof before writing it. fullprove's <generator> is
circom's .wasm or a native generator (\`cuzk witness build\`).
Options: --threads N   CPU threads (default: all cores)
         --json        print a JSON summary (timings) on stdout
         --quiet       print nothing on success`;

async function proveFiles(ctx: CliContext, zkeyPath: string, wtnsPath: string, wtnsBytes: Uint8Array | undefined): Promise<{ res: ProofResult; loadMs: number; key: ProvingKey }> {
  const t0 = performance.now();
  const line = new PhaseLine(ctx);
  let wtns: WtnsFile | undefined;
  let key: ProvingKey | undefined;
  try {
    wtns = wtnsBytes ? WtnsFile.fromBytes(wtnsBytes, wtnsPath) : WtnsFile.open(wtnsPath);
    line.phase('load key');
    key = await ProvingKey.load(zkeyPath, { onProgress: line.progress });
    line.phase('read witness');
    const witness = await wtns.readWitnessAsync();
    const loadMs = performance.now() - t0;
    line.end();
    note(ctx, `proving ${zkeyPath} (${key.curve.label}, ${key.header.domainSize} domain, ${key.header.nVars} wires) on the ${oneShotDevice() >= 0 ? 'GPU' : 'CPU core'}...`);
    const res = await proveWithKey(key, witness, { onPhase: (p) => line.phase(p) }, wtns.header);
    return { res, loadMs, key };
  } catch (err) {
    key?.release();
    throw err;
  } finally {
    line.end();
    wtns?.close();
  }
}

function writeOutputs(proofPath: string, publicPath: string, res: ProofResult): void {
  writeOutput(proofPath, stringifyProof(res.proof), 'proof');
  writeOutput(publicPath, stringifyPublic(res.publicSignals), 'public signals');
}

function summary(ctx: CliContext, res: ProofResult, loadMs: number, key: ProvingKey, proofPath: string, publicPath: string, witnessMs?: number): void {
  const t = res.timings;
  printResult(
    ctx,
    { ok: true, curve: key.header.curve, domainSize: key.header.domainSize, backend: backend(), witnessMs, loadMs, proveMs: t.proveMs, verifyMs: t.verifyMs, proof: proofPath, public: publicPath },
    `proof written to ${proofPath} and ${publicPath} (verified; ${witnessMs !== undefined ? `witness ${witnessMs.toFixed(0)} ms, ` : ''}load ${loadMs.toFixed(0)} ms, prove ${t.proveMs.toFixed(0)} ms, verify ${t.verifyMs.toFixed(0)} ms)`,
  );
}

export async function proveCommand(ctx: CliContext, args: string[]): Promise<number> {
  if (args.length !== 4) throw new InputError('E_INVALID_ARG', `prove needs 4 arguments, got ${args.length}\n${PROVE_HELP}`);
  const [zkeyPath, wtnsPath, proofPath, publicPath] = args as [string, string, string, string];
  checkOutputPaths({ proof: proofPath, 'public signals': publicPath });
  const { res, loadMs, key } = await proveFiles(ctx, zkeyPath, wtnsPath, undefined);
  key.release();
  writeOutputs(proofPath, publicPath, res);
  summary(ctx, res, loadMs, key, proofPath, publicPath);
  return 0;
}

export async function fullproveCommand(ctx: CliContext, args: string[]): Promise<number> {
  if (args.length !== 5) throw new InputError('E_INVALID_ARG', `fullprove needs 5 arguments, got ${args.length}\n${PROVE_HELP}`);
  const [inputPath, genPath, zkeyPath, proofPath, publicPath] = args as [string, string, string, string, string];
  checkOutputPaths({ proof: proofPath, 'public signals': publicPath });
  const input = readInputFile(inputPath);
  const t0 = performance.now();
  let proved: Awaited<ReturnType<typeof proveFiles>>, witnessMs: number;
  if (generatorKind(genPath).kind === 'wasm') {
    const wtnsBytes = await computeWitness(genPath, input, inputPath);
    witnessMs = performance.now() - t0;
    proved = await proveFiles(ctx, zkeyPath, `witness of ${inputPath}`, wtnsBytes);
  } else {
    // the native generator writes the .wtns to a file, read from there as `cuzk prove` reads one
    const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-fullprove-'));
    try {
      const file = path.join(dir, 'witness.wtns');
      witnessMs = await witnessToFile(genPath, input, file, inputPath);
      proved = await proveFiles(ctx, zkeyPath, file, undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const { res, loadMs, key } = proved;
  key.release();
  writeOutputs(proofPath, publicPath, res);
  summary(ctx, res, loadMs, key, proofPath, publicPath, witnessMs);
  return 0;
}
