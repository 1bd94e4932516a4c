// `cuzk witness build CIRCUIT_cpp/ OUT` (a native generator from circom's --c output) and
// `cuzk witness calc GEN input.json out.wtns` (one witness from a native generator or a .wasm,
// byte-identical to `snarkjs wtns calculate`).
import { readFileSync, writeFileSync } from 'node:fs';
import { errorMessage, InputError } from '../errors.js';
import { generatorKind } from '../engine/generator-file.js';
import { NativeGenerator } from '../engine/native-generator.js';
import { computeWitness } from '../engine/witness.js';
import { note, printResult, type CliContext } from './output.js';
import { buildGenerator } from './witness-build.js';

export const WITNESS_HELP = `usage: cuzk witness build <CIRCUIT_cpp/> <out-generator>
       cuzk witness calc <generator> <input.json> <out.wtns>

build: compiles circom's C++ witness generator (\`circom --c\`; add --sym for input names in
       errors) with cuzk's driver into one file that cuzk runs as a long-lived process (the .dat
       loaded once, many witnesses). Needs g++, nasm, libgmp-dev and nlohmann-json3-dev
       (Debian: apt-get install g++ nasm libgmp-dev nlohmann-json3-dev).
calc:  one witness from a generator built so, or from circom's .wasm (like snarkjs wtns calculate).`;

export function readInputFile(inputPath: string): unknown {
  let text: string;
  try {
    text = readFileSync(inputPath, 'utf8');
  } catch (cause) {
    throw new InputError('E_NOT_FOUND', `${inputPath}: cannot read the input (${(cause as NodeJS.ErrnoException).code ?? cause})`, { cause });
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new InputError('E_INVALID_ARG', `${inputPath}: not valid JSON (${errorMessage(cause)})`, { cause });
  }
}

/** Computes one witness of either kind into `outPath`; returns its wall time (ms). */
export async function witnessToFile(generator: string, input: unknown, outPath: string, name: string): Promise<number> {
  const t0 = performance.now();
  if (generatorKind(generator).kind === 'wasm') {
    writeFileSync(outPath, await computeWitness(generator, input, name));
    return performance.now() - t0;
  }
  const g = new NativeGenerator(generator, 0);
  try {
    await g.compute(input, outPath, 0, name);
  } finally {
    g.close();
  }
  return performance.now() - t0;
}

export async function witnessCommand(ctx: CliContext, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'build') {
    if (rest.length !== 2) throw new InputError('E_INVALID_ARG', `witness build needs 2 arguments, got ${rest.length}\n${WITNESS_HELP}`);
    const r = await buildGenerator(rest[0]!, rest[1]!, (l) => note(ctx, l));
    printResult(ctx, { generator: r.out, circuit: r.circuit, bytes: r.bytes, inputNames: r.names, buildMs: Math.round(r.ms) },
      `${r.out}: native witness generator of ${r.circuit} (${(r.bytes / 2 ** 20).toFixed(1)} MiB${r.names ? `, ${r.names} input names` : ', no .sym: inputs named by position'}) in ${(r.ms / 1000).toFixed(1)} s`);
    return 0;
  }
  if (sub === 'calc') {
    if (rest.length !== 3) throw new InputError('E_INVALID_ARG', `witness calc needs 3 arguments, got ${rest.length}\n${WITNESS_HELP}`);
    const [gen, inputPath, out] = rest as [string, string, string];
    const ms = await witnessToFile(gen, readInputFile(inputPath), out, inputPath);
    printResult(ctx, { witness: out, witnessMs: Math.round(ms) }, `${out}: witness in ${ms.toFixed(0)} ms`);
    return 0;
  }
  throw new InputError('E_INVALID_ARG', `unknown witness command "${sub ?? ''}"\n${WITNESS_HELP}`);
}
