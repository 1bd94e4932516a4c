// Witness computation from circom's wasm witness generator, producing a .wtns file image. Circom 2
// generators are driven here directly through their exported ABI (inputs hashed with 64-bit FNV-1a
// and written limb by limb through the shared read/write memory, witness read back the same way), so
// this runs in worker threads too: circom_runtime pulls in web-worker, which takes over any worker
// thread it is imported in. Circom 1 generators (legacy) go through circom_runtime on the caller's
// thread. Input errors and constraint failures become InputErrors naming the files.
import { readFileSync } from 'node:fs';
import { errorMessage, InputError } from '../errors.js';
import { encodeWtns } from '../formats/wtns.js';

interface Circom2Exports {
  getVersion(): number;
  getFieldNumLen32(): number;
  getRawPrime(): void;
  readSharedRWMemory(i: number): number;
  writeSharedRWMemory(i: number, v: number): void;
  init(sanityCheck: number): void;
  getInputSignalSize?(hMSB: number, hLSB: number): number;
  setInputSignal(hMSB: number, hLSB: number, pos: number): void;
  getInputSize(): number;
  getWitnessSize(): number;
  getWitness(i: number): void;
  getMessageChar(): number;
}

const EXCEPTIONS: Record<number, string> = {
  1: 'signal not found',
  2: 'too many signals set',
  3: 'signal already set',
  4: 'assert failed',
  5: 'not enough memory',
  6: 'input signal array access exceeds the size',
};

const modules = new Map<string, WebAssembly.Module>();

function fnv1a64(name: string): [number, number] {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < name.length; i++) {
    h ^= BigInt(name.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return [Number(h >> 32n), Number(h & 0xffffffffn)];
}

function flatten(v: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(v)) for (const x of v) flatten(x, out);
  else out.push(v);
  return out;
}

function toField(v: unknown, p: bigint, where: string): bigint {
  let n: bigint;
  try {
    n = BigInt(v as string | number | bigint);
  } catch {
    throw new Error(`${where}: ${JSON.stringify(v)} is not an integer`);
  }
  n %= p;
  return n < 0n ? n + p : n;
}

async function circom2Witness(module: WebAssembly.Module, input: Record<string, unknown>): Promise<Uint8Array> {
  let messages = '';
  let ex!: Circom2Exports;
  const readMessage = () => {
    let s = '';
    for (let c = ex.getMessageChar(); c !== 0; c = ex.getMessageChar()) s += String.fromCharCode(c);
    return s;
  };
  const instance = await WebAssembly.instantiate(module, {
    runtime: {
      exceptionHandler: (code: number) => {
        throw new Error(`${EXCEPTIONS[code] ?? `error ${code}`}${messages ? `: ${messages.trim().replace(/\n/g, '; ')}` : ''}`);
      },
      printErrorMessage: () => { messages += `${readMessage()}\n`; },
      writeBufferMessage: () => { readMessage(); },
      showSharedRWMemory: () => undefined,
    },
  });
  ex = instance.exports as unknown as Circom2Exports;
  const n32 = ex.getFieldNumLen32();
  const readLimbs = () => {
    let v = 0n;
    for (let j = n32 - 1; j >= 0; j--) v = (v << 32n) | BigInt(ex.readSharedRWMemory(j) >>> 0);
    return v;
  };
  ex.getRawPrime();
  const prime = readLimbs();
  ex.init(1);
  let set = 0;
  for (const [name, value] of Object.entries(input)) {
    const [hi, lo] = fnv1a64(name);
    const values = flatten(value);
    const size = ex.getInputSignalSize?.(hi, lo);
    if (size !== undefined) {
      if (size < 0) throw new Error(`the circuit has no input signal "${name}"`);
      if (values.length !== size) throw new Error(`input signal "${name}" takes ${size} values, got ${values.length}`);
    }
    values.forEach((v, i) => {
      let x = toField(v, prime, `input signal "${name}"`);
      for (let j = 0; j < n32; j++, x >>= 32n) ex.writeSharedRWMemory(j, Number(x & 0xffffffffn));
      ex.setInputSignal(hi, lo, i);
      set++;
    });
  }
  if (set < ex.getInputSize()) throw new Error(`only ${set} of the circuit's ${ex.getInputSize()} input values were given`);
  const n = ex.getWitnessSize();
  const values = new Array<bigint>(n);
  for (let i = 0; i < n; i++) {
    ex.getWitness(i);
    values[i] = readLimbs();
  }
  return encodeWtns(prime, values);
}

interface LegacyCalculator {
  calculateWTNSBin(input: unknown, sanityCheck: boolean): Promise<Uint8Array>;
}
type Builder = (code: Uint8Array, options?: { memorySize?: number }) => Promise<LegacyCalculator>;

export async function computeWitness(wasmPath: string, input: unknown, inputName = 'input'): Promise<Uint8Array> {
  let module = modules.get(wasmPath);
  let code: Uint8Array<ArrayBuffer> | undefined;
  if (!module) {
    try {
      code = new Uint8Array(readFileSync(wasmPath));
    } catch (cause) {
      throw new InputError('E_INVALID_ARG', `${wasmPath}: cannot read the circuit wasm (${(cause as NodeJS.ErrnoException).code ?? cause})`, { cause });
    }
    try {
      module = await WebAssembly.compile(code);
    } catch (cause) {
      throw new InputError('E_INVALID_ARG', `${wasmPath}: not a circom witness generator (${errorMessage(cause)})`, { cause });
    }
    modules.set(wasmPath, module);
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InputError('E_INVALID_ARG', `${inputName}: circuit inputs must be a JSON object of signal names`);
  }
  const circom2 = WebAssembly.Module.exports(module).some((e) => e.name === 'getFieldNumLen32');
  try {
    if (circom2) return await circom2Witness(module, input as Record<string, unknown>);
    const mod = (await import('circom_runtime' as string)) as { WitnessCalculatorBuilder: Builder };
    const calc = await mod.WitnessCalculatorBuilder(code ?? readFileSync(wasmPath), { memorySize: 2048 });
    return await calc.calculateWTNSBin(input, true);
  } catch (cause) {
    const msg = errorMessage(cause).split('\n')[0];
    throw new InputError('E_INVALID_ARG', `${inputName}: the circuit ${wasmPath} rejected the input: ${msg}`, { cause });
  }
}
