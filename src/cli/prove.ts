// `cuzk prove` and `cuzk fullprove`: snarkjs's argument order, snarkjs's output files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { InputError } from '../errors.js';
import { stringifyProof, stringifyPublic } from '../formats/proof-json.js';
import { WtnsFile } from '../formats/wtns.js';
import { proveFromFiles, type OneShotPhase, type OneShotTimings } from '../engine/one-shot.js';
import { oneShotDevice, type ProofResult } from '../engine/prover.js';
import { ProvingKey } from '../engine/proving-key.js';
import { allowQuickExit, quickExitPlanned } from '../ffi/core-state.js';
import { backend } from '../ffi/native.js';
import { intFlag, type Flags } from './flags.js';
import { checkOutputPaths, note, PhaseLine, printResult, writeOutput, type CliContext } from './output.js';

export const PROVE_HELP = `usage: cuzk prove <circuit.zkey> <witness.wtns> <proof.json> <public.json> [options]
       cuzk fullprove <input.json> <generator> <circuit.zkey> <proof.json> <public.json> [options]

Proves with a snarkjs Groth16 key (BN254 or BLS12-381), like \`snarkjs groth16 prove\` /
\`snarkjs groth16 fullprove\`, and verifies the proof before writing it. fullprove's <generator> is
circom's .wasm or a native generator (\`cuzk witness build\`).
Options: --threads N   CPU threads (default: all cores)
         --memory-gpu-bytes N  the GPU's memory budget (default 90% of its memory): a key that does
                       not fit it with a proof's scratch runs its MSMs in chunks, or streams sets
                       from pinned host memory, as \`cuzk serve\` places it
         --json        print a JSON summary (timings) on stdout
         --quiet       print nothing on success`;

async function proveFiles(ctx: CliContext, flags: Flags, zkeyPath: string, wtnsPath: string, wtnsBytes: Uint8Array | undefined): Promise<{ res: ProofResult; timings: OneShotTimings; key: ProvingKey }> {
  const gpuBudgetBytes = intFlag(flags, 'memory-gpu-bytes', undefined, 1, Number.MAX_SAFE_INTEGER);
  const line = new PhaseLine(ctx);
  let wtns: WtnsFile | undefined;
  try {
    wtns = wtnsBytes ? WtnsFile.fromBytes(wtnsBytes, wtnsPath) : WtnsFile.open(wtnsPath);
    let said = false;
    const onPhase = (p: OneShotPhase) => {
      if (p !== 'load key' && !said) {
        said = true;
        line.end();
        note(ctx, `proving ${zkeyPath} (${wtns!.header.nWitness} wires) on the ${oneShotDevice() >= 0 ? 'GPU' : 'CPU core'}...`);
      }
      line.phase(p);
    };
    const { key, res, timings } = await proveFromFiles(zkeyPath, wtns, { onPhase, onProgress: line.progress, gpuBudgetBytes });
    return { res, timings, key };
  } finally {
    line.end();
    wtns?.close();
  }
}

function writeOutputs(proofPath: string, publicPath: string, res: ProofResult): void {
  writeOutput(proofPath, stringifyProof(res.proof), 'proof');
  writeOutput(publicPath, stringifyPublic(res.publicSignals), 'public signals');
}

/** After the proof: the output files' writes and the key's release, ms (--json's `after`). */
interface AfterTimings {
  writeMs: number;
  /** 0 where the process ends by cuzk_exit_now (quickExitPlanned): the key is left to the kernel. */
  releaseMs: number;
}

function writeAndRelease(key: ProvingKey, proofPath: string, publicPath: string, res: ProofResult): AfterTimings {
  const t0 = performance.now();
  writeOutputs(proofPath, publicPath, res);
  const t1 = performance.now();
  if (!quickExitPlanned()) key.release(); // unpinning and freeing a 2^24 key took 162-630 ms
  return { writeMs: t1 - t0, releaseMs: performance.now() - t1 };
}

function summary(ctx: CliContext, res: ProofResult, t: OneShotTimings, after: AfterTimings, key: ProvingKey, proofPath: string, publicPath: string, witnessMs?: number): void {
  // load: from the call until the key, the witness and (on a GPU) its context were all in
  const loadMs = t.totalMs - t.uploadMs - t.proveMs - t.verifyMs;
  printResult(
    ctx,
    // endAt: ms from the process's start when this was printed (what follows is the process's exit)
    { ok: true, curve: key.header.curve, domainSize: key.header.domainSize, backend: backend(), witnessMs, loadMs, uploadMs: t.uploadMs, proveMs: t.proveMs, verifyMs: t.verifyMs, timings: t, after: { ...after, endAt: performance.now() }, proof: proofPath, public: publicPath },
    `proof written to ${proofPath} and ${publicPath} (verified; ${witnessMs !== undefined ? `witness ${witnessMs.toFixed(0)} ms, ` : ''}load ${loadMs.toFixed(0)} ms, ${t.uploadMs > 0 ? `key upload ${t.uploadMs.toFixed(0)} ms, ` : ''}prove ${t.proveMs.toFixed(0)} ms, verify ${t.verifyMs.toFixed(0)} ms)`,
  );
}

export async function proveCommand(ctx: CliContext, args: string[], flags: Flags = new Map()): Promise<number> {
  if (args.length !== 4) throw new InputError('E_INVALID_ARG', `prove needs 4 arguments, got ${args.length}\n${PROVE_HELP}`);
  const [zkeyPath, wtnsPath, proofPath, publicPath] = args as [string, string, string, string];
  checkOutputPaths({ proof: proofPath, 'public signals': publicPath });
  const { res, timings, key } = await proveFiles(ctx, flags, zkeyPath, wtnsPath, undefined);
  const after = writeAndRelease(key, proofPath, publicPath, res);
  summary(ctx, res, timings, after, key, proofPath, publicPath);
  allowQuickExit();
  return 0;
}

export async function fullproveCommand(ctx: CliContext, args: string[], flags: Flags = new Map()): Promise<number> {
  if (args.length !== 5) throw new InputError('E_INVALID_ARG', `fullprove needs 5 arguments, got ${args.length}\n${PROVE_HELP}`);
  const [inputPath, genPath, zkeyPath, proofPath, publicPath] = args as [string, string, string, string, string];
  checkOutputPaths({ proof: proofPath, 'public signals': publicPath });
  // the witness generators' modules (wasm driver, native generator, their CLI) are fullprove's only:
  // `cuzk prove` does not load them (~15-25 ms of a process, test/cli/imports.test.ts)
  const [{ computeWitness }, { generatorKind }, { readInputFile, witnessToFile }] = await Promise.all([
    import('../engine/witness.js'), import('../engine/generator-file.js'), import('./witness.js'),
  ]);
  const input = readInputFile(inputPath);
  const t0 = performance.now();
  let proved: Awaited<ReturnType<typeof proveFiles>>, witnessMs: number;
  if (generatorKind(genPath).kind === 'wasm') {
    const wtnsBytes = await computeWitness(genPath, input, inputPath);
    witnessMs = performance.now() - t0;
    proved = await proveFiles(ctx, flags, zkeyPath, `witness of ${inputPath}`, wtnsBytes);
  } else {
    // the native generator writes the .wtns to a file, read from there as `cuzk prove` reads one
    const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-fullprove-'));
    try {
      const file = path.join(dir, 'witness.wtns');
      witnessMs = await witnessToFile(genPath, input, file, inputPath);
      proved = await proveFiles(ctx, flags, zkeyPath, file, undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const { res, timings, key } = proved;
  const after = writeAndRelease(key, proofPath, publicPath, res);
  summary(ctx, res, timings, after, key, proofPath, publicPath, witnessMs);
  allowQuickExit();
  return 0;
}
