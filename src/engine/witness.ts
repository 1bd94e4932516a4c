// Witness computation from circom's wasm witness generator (circom_runtime), producing a .wtns file
// image. Input JSON errors and constraint failures inside the wasm become InputErrors naming the files.
import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';

interface WitnessCalculator {
  calculateWTNSBin(input: unknown, sanityCheck: boolean): Promise<Uint8Array>;
}

// circom_runtime has no type declarations; this is the one function used.
type Builder = (code: Uint8Array, options?: { memorySize?: number }) => Promise<WitnessCalculator>;

export async function computeWitness(wasmPath: string, input: unknown, inputName = 'input'): Promise<Uint8Array> {
  let code: Uint8Array;
  try {
    code = readFileSync(wasmPath);
  } catch (cause) {
    throw new InputError('E_INVALID_ARG', `${wasmPath}: cannot read the circuit wasm (${(cause as NodeJS.ErrnoException).code ?? cause})`, { cause });
  }
  const mod = (await import('circom_runtime' as string)) as { WitnessCalculatorBuilder: Builder };
  let calc: WitnessCalculator;
  try {
    // 2^11 pages = 128 MiB to start; circom grows memory as needed (circom_runtime#110)
    calc = await mod.WitnessCalculatorBuilder(code, { memorySize: 2048 });
  } catch (cause) {
    throw new InputError('E_INVALID_ARG', `${wasmPath}: not a circom witness generator (${(cause as Error).message})`, { cause });
  }
  try {
    return await calc.calculateWTNSBin(input, true);
  } catch (cause) {
    const msg = String((cause as Error).message ?? cause).split('\n')[0];
    throw new InputError('E_INVALID_ARG', `${inputName}: the circuit ${wasmPath} rejected the input: ${msg}`, { cause });
  }
}
