// One prover measured in its own process, so peak RSS belongs to it alone:
//   node --import tsx bench/prove-child.ts <cuzk|snarkjs> <zkey> <wtns> <proofs>
// Prints one JSON line: {loadMs, proveMs: [...], maxRssMiB}. cuzk loads the key once and proves
// `proofs` times (a resident key); snarkjs's groth16.prove reads the zkey on every call, as its CLI does.
import { WtnsFile } from '../src/formats/wtns.js';
import { proveWithKey } from '../src/engine/prover.js';
import { ProvingKey } from '../src/engine/proving-key.js';

const [who, zkeyPath, wtnsPath, countArg] = process.argv.slice(2) as [string, string, string, string];
const count = Number(countArg ?? 1);

async function cuzk(): Promise<{ loadMs: number; proveMs: number[] }> {
  const t0 = performance.now();
  const key = await ProvingKey.load(zkeyPath);
  const wtns = WtnsFile.open(wtnsPath);
  const witness = wtns.readWitness();
  const loadMs = performance.now() - t0;
  const proveMs: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await proveWithKey(key, witness, {}, wtns.header);
    proveMs.push(performance.now() - t);
  }
  key.release();
  return { loadMs, proveMs };
}

async function snarkjs(): Promise<{ loadMs: number; proveMs: number[] }> {
  const sj = (await import('snarkjs' as string)) as { groth16: { prove(z: string, w: string): Promise<unknown> } };
  const proveMs: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await sj.groth16.prove(zkeyPath, wtnsPath);
    proveMs.push(performance.now() - t);
  }
  return { loadMs: 0, proveMs };
}

const res = who === 'cuzk' ? await cuzk() : await snarkjs();
const maxRssMiB = process.resourceUsage().maxRSS / 1024;
process.stdout.write(JSON.stringify({ ...res, maxRssMiB }) + '\n');
process.exit(0);
