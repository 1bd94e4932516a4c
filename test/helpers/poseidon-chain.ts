// A real circomlib circuit for the witness tests: a chain of `n` Poseidon(2) hashes compiled at test
// time with circom2 (--r1cs --wasm --c --sym), its native generator (`cuzk witness build`) and an
// INSECURE dev-setup key. Cached under .cache/witness-chain/ (gitignored): the circuit keyed by its
// source, the generator by the circuit and cuzk's driver sources, so a repeated run costs nothing
// and a driver change rebuilds only the generator (~30 s of g++ on a CI core).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGenerator } from '../../src/cli/witness-build.js';
import { runCli } from './capture.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface PoseidonChain {
  dir: string;
  n: number;
  wasm: string;
  r1cs: string;
  cppDir: string;
  generator: string;
  zkey: string;
  vkey: string;
  /** A valid input: {in: ["1", "2"]}. */
  input: { in: string[] };
}

export function chainSource(n: number): string {
  return `pragma circom 2.0.0;
include "poseidon.circom";
template Chain(n) {
  signal input in[2];
  signal output out;
  component h[n];
  assert(in[1] != 7); // an input that fails a circuit assertion, for the bad-input tests
  for (var i = 0; i < n; i++) {
    h[i] = Poseidon(2);
    if (i == 0) h[i].inputs[0] <== in[0];
    else h[i].inputs[0] <== h[i - 1].out;
    h[i].inputs[1] <== in[1];
  }
  out <== h[n - 1].out;
}
component main = Chain(${n});
`;
}

function run(cmd: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd, maxBuffer: 64 << 20 }, (err, stdout, stderr) => (err ? reject(new Error(`${cmd} ${args.join(' ')}: ${stderr || stdout}`)) : resolve()));
  });
}

const hash = (...parts: (string | Buffer)[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest('hex').slice(0, 16);
};

async function once(dir: string, make: (tmp: string) => Promise<void>): Promise<void> {
  if (existsSync(dir)) return;
  const tmp = `${dir}.${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  await make(tmp);
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // another test file made it first
  }
}

/** The chain of `n` hashes, built (or found in the cache). */
export async function poseidonChain(n = 200): Promise<PoseidonChain> {
  const lib = path.join(root, 'node_modules', 'circomlib', 'circuits');
  const libFiles = ['poseidon.circom', 'poseidon_constants.circom'];
  const src = chainSource(n);
  const dir = path.join(root, '.cache', 'witness-chain', `c${n}-${hash(src, ...libFiles.map((f) => readFileSync(path.join(lib, f))))}`);
  await once(dir, async (tmp) => {
    writeFileSync(path.join(tmp, 'chain.circom'), src);
    for (const f of libFiles) copyFileSync(path.join(lib, f), path.join(tmp, f));
    // circom2 is WASI: it sees the cwd and its parents, by relative paths
    await run(process.execPath, [path.join(root, 'node_modules', 'circom2', 'cli.js'), 'chain.circom', '--r1cs', '--wasm', '--c', '--sym', '-o', '.'], tmp);
    for (const args of [['dev-setup', 'chain.r1cs', 'chain.zkey', '--quiet'], ['zkey', 'export', 'verificationkey', 'chain.zkey', 'vkey.json', '--quiet']]) {
      const r = await runCli(args.map((a) => (a.includes('.') ? path.join(tmp, a) : a)));
      if (r.code !== 0) throw new Error(`cuzk ${args.join(' ')}: ${r.stderr}`);
    }
  });
  const driver = path.join(root, 'native', 'witness');
  const genHash = hash(dir, readFileSync(path.join(root, 'src', 'cli', 'witness-build.ts')), ...readdirSync(driver).sort().map((f) => readFileSync(path.join(driver, f))));
  const genDir = path.join(dir, `gen-${genHash}`);
  await once(genDir, async (tmp) => {
    await buildGenerator(path.join(dir, 'chain_cpp'), path.join(tmp, 'chain.gen'));
  });
  return {
    dir, n,
    wasm: path.join(dir, 'chain_js', 'chain.wasm'),
    r1cs: path.join(dir, 'chain.r1cs'),
    cppDir: path.join(dir, 'chain_cpp'),
    generator: path.join(genDir, 'chain.gen'),
    zkey: path.join(dir, 'chain.zkey'),
    vkey: path.join(dir, 'vkey.json'),
    input: { in: ['1', '2'] },
  };
}
