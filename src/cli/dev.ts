// `cuzk dev-circuit` and `cuzk dev-setup`: fixtures of any size for tests and benchmarks.
import { InputError } from '../errors.js';
import { curveByName, type CurveName } from '../formats/curves.js';
import { devCircuit, lgDomainFor, maxConstraintsForDomain, publicRows } from '../dev/dev-circuit.js';
import { devSetup } from '../dev/dev-setup.js';
import { checkOutputPaths, note, printResult, progress, type CliContext } from './output.js';

export const DEV_HELP = `usage: cuzk dev-circuit --constraints N --curve bn128|bls12381 <out.r1cs> <out.wtns> [--seed S]
       cuzk dev-setup <circuit.r1cs> <out.zkey> [--seed S]

dev-circuit writes a synthetic satisfiable circuit with N constraints (about half the wires 0/1,
the rest full-width) and its witness. Its key's domain holds N + 3 rows (snarkjs adds one per
public signal and one for wire 0): for a 2^k domain use N = 2^k - 3. dev-setup writes a snarkjs-format Groth16 key from a KNOWN
random tau: INSECURE, for tests and benchmarks only (snarkjs verifies its proofs).`;

type Flags = Map<string, string | true>;

function seedOf(flags: Flags): string | undefined {
  const s = flags.get('seed');
  return typeof s === 'string' ? s : undefined;
}

export async function devCircuitCommand(ctx: CliContext, args: string[], flags: Flags): Promise<number> {
  if (args.length !== 2) throw new InputError('E_INVALID_ARG', `dev-circuit needs <out.r1cs> <out.wtns>\n${DEV_HELP}`);
  const n = Number(flags.get('constraints'));
  if (!Number.isInteger(n) || n < 1 || n > 2 ** 28) throw new InputError('E_INVALID_ARG', `--constraints must be an integer 1..2^28, got ${String(flags.get('constraints'))}`);
  const curveArg = String(flags.get('curve') ?? 'bn128');
  const curve = curveByName(curveArg);
  if (!curve) throw new InputError('E_INVALID_ARG', `--curve must be bn128 or bls12381, got ${curveArg}`);
  const [r1csPath, wtnsPath] = args as [string, string];
  checkOutputPaths({ circuit: r1csPath, witness: wtnsPath });
  const lg = lgDomainFor(n);
  // 2^k constraints (the natural thing to ask for) do not fit a 2^k domain: the key would be twice the size
  if (n <= 2 ** (lg - 1)) note(ctx, `note: a 2^${lg} domain: ${n} constraints + ${publicRows()} public rows (wire 0 and the public signals) exceed 2^${lg - 1}; --constraints ${maxConstraintsForDomain(lg - 1)} fits a 2^${lg - 1} domain`);
  const t0 = performance.now();
  const res = await devCircuit({ constraints: n, curve: curve.name as CurveName, r1csPath, wtnsPath, seed: seedOf(flags), onProgress: progress(ctx) });
  const ms = performance.now() - t0;
  printResult(ctx, { ok: true, ...res, ms }, `wrote ${r1csPath} (${res.nConstraints} constraints, a 2^${res.lgDomain} domain, ${res.nWires} wires, ${res.nBinaryValues} witness values 0/1) and ${wtnsPath} in ${(ms / 1000).toFixed(1)} s`);
  return 0;
}

export async function devSetupCommand(ctx: CliContext, args: string[], flags: Flags): Promise<number> {
  if (args.length !== 2) throw new InputError('E_INVALID_ARG', `dev-setup needs <circuit.r1cs> <out.zkey>\n${DEV_HELP}`);
  const [r1csPath, zkeyPath] = args as [string, string];
  checkOutputPaths({ key: zkeyPath });
  note(ctx, 'WARNING: dev-setup makes an INSECURE key (its toxic waste is known): for tests and benchmarks only');
  const t0 = performance.now();
  const res = await devSetup({ r1csPath, zkeyPath, seed: seedOf(flags), onProgress: progress(ctx) });
  const ms = performance.now() - t0;
  printResult(ctx, { ok: true, insecure: true, zkey: zkeyPath, ms, ...res }, `wrote ${zkeyPath} (INSECURE dev key) in ${(ms / 1000).toFixed(1)} s`);
  return 0;
}
