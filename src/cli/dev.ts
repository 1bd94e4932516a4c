// `cuzk dev-circuit` and `cuzk dev-setup`: fixtures of any size for tests and benchmarks.
import { InputError } from '../errors.js';
import { curveByName, type CurveName } from '../formats/curves.js';
import { devCircuit, lgDomainFor, maxConstraintsForDomain, publicRows } from '../dev/dev-circuit.js';
import { devSetup, devSetupCircuit } from '../dev/dev-setup.js';
import { checkOutputPaths, note, printResult, progress, type CliContext } from './output.js';

export const DEV_HELP = `usage: cuzk dev-circuit --constraints N --curve bn128|bls12381 <out.r1cs> <out.wtns> [--seed S]
       cuzk dev-setup <circuit.r1cs> <out.zkey> [--seed S]
       cuzk dev-setup --constraints N --curve bn128|bls12381 <out.zkey> <out.wtns> [--seed S]

dev-circuit writes a synthetic satisfiable circuit with N constraints (about half the wires 0/1,
the rest full-width) and its witness. Its key's domain holds N + 3 rows (snarkjs adds one per
public signal and one for wire 0): for a 2^k domain use N = 2^k - 3. dev-setup writes a snarkjs-format Groth16 key from a KNOWN
random tau: INSECURE, for tests and benchmarks only (snarkjs verifies its proofs). With --constraints it
makes the dev circuit as it goes and writes its key and witness, never the .r1cs (tens of GB at 2^26):
the same bytes as dev-circuit then dev-setup with the same --seed; disk = the key + the witness, memory
~96 bytes a wire + 1.5 GiB.`;

type Flags = Map<string, string | true>;

function seedOf(flags: Flags): string | undefined {
  const s = flags.get('seed');
  return typeof s === 'string' ? s : undefined;
}

/** --constraints and --curve, checked; the domain notice when N + the public rows overflow a power of two. */
function circuitFlags(ctx: CliContext, flags: Flags): { constraints: number; curve: CurveName; lg: number } {
  const n = Number(flags.get('constraints'));
  if (!Number.isInteger(n) || n < 1 || n > 2 ** 28) throw new InputError('E_INVALID_ARG', `--constraints must be an integer 1..2^28, got ${String(flags.get('constraints'))}`);
  const curveArg = String(flags.get('curve') ?? 'bn128');
  const curve = curveByName(curveArg);
  if (!curve) throw new InputError('E_INVALID_ARG', `--curve must be bn128 or bls12381, got ${curveArg}`);
  const lg = lgDomainFor(n);
  // 2^k constraints (the natural thing to ask for) do not fit a 2^k domain: the key would be twice the size
  if (n <= 2 ** (lg - 1)) note(ctx, `note: a 2^${lg} domain: ${n} constraints + ${publicRows()} public rows (wire 0 and the public signals) exceed 2^${lg - 1}; --constraints ${maxConstraintsForDomain(lg - 1)} fits a 2^${lg - 1} domain`);
  return { constraints: n, curve: curve.name as CurveName, lg };
}

export async function devCircuitCommand(ctx: CliContext, args: string[], flags: Flags): Promise<number> {
  if (args.length !== 2) throw new InputError('E_INVALID_ARG', `dev-circuit needs <out.r1cs> <out.wtns>\n${DEV_HELP}`);
  const [r1csPath, wtnsPath] = args as [string, string];
  const { constraints, curve } = circuitFlags(ctx, flags);
  checkOutputPaths({ circuit: r1csPath, witness: wtnsPath });
  const t0 = performance.now();
  const res = await devCircuit({ constraints, curve, r1csPath, wtnsPath, seed: seedOf(flags), onProgress: progress(ctx) });
  const ms = performance.now() - t0;
  printResult(ctx, { ok: true, ...res, ms }, `wrote ${r1csPath} (${res.nConstraints} constraints, a 2^${res.lgDomain} domain, ${res.nWires} wires, ${res.nBinaryValues} witness values 0/1) and ${wtnsPath} in ${(ms / 1000).toFixed(1)} s`);
  return 0;
}

/** The progress bar, and each phase's wall time (its last report since the phase before ended): where a setup's time went. */
function timedProgress(ctx: CliContext, t0: number): { onProgress: (phase: string, done: number, total: number) => void; phasesMs: () => Record<string, number>; line: () => string } {
  const draw = progress(ctx);
  const ends = new Map<string, number>();
  const onProgress = (phase: string, done: number, total: number) => {
    ends.delete(phase); // re-inserted: Map order is the order phases ended
    ends.set(phase, performance.now());
    draw(phase, done, total);
  };
  const phasesMs = () => {
    const out: Record<string, number> = {};
    let last = t0;
    for (const [phase, end] of ends) [out[phase], last] = [Math.round(end - last), end];
    return out;
  };
  const line = () => Object.entries(phasesMs()).map(([phase, ms]) => `${phase} ${(ms / 1000).toFixed(1)}`).join(', ');
  return { onProgress, phasesMs, line };
}

export async function devSetupCommand(ctx: CliContext, args: string[], flags: Flags): Promise<number> {
  const oneStep = flags.has('constraints');
  if (!oneStep && flags.has('curve')) throw new InputError('E_INVALID_ARG', 'dev-setup: --curve goes with --constraints (an .r1cs names its own curve)');
  if (args.length !== 2) throw new InputError('E_INVALID_ARG', `dev-setup needs ${oneStep ? '<out.zkey> <out.wtns> with --constraints' : '<circuit.r1cs> <out.zkey>'}\n${DEV_HELP}`);
  const circuit = oneStep ? circuitFlags(ctx, flags) : undefined;
  const [first, second] = args as [string, string];
  checkOutputPaths(oneStep ? { key: first, witness: second } : { key: second });
  note(ctx, 'WARNING: dev-setup makes an INSECURE key (its toxic waste is known): for tests and benchmarks only');
  const t0 = performance.now();
  const seed = seedOf(flags);
  const { onProgress, phasesMs, line } = timedProgress(ctx, t0);
  if (circuit) {
    const res = await devSetupCircuit({ ...circuit, zkeyPath: first, wtnsPath: second, seed, onProgress });
    const ms = performance.now() - t0;
    const c = res.circuit;
    printResult(ctx, { ok: true, insecure: true, zkey: first, wtns: second, ms, phasesMs: phasesMs(), ...res },
      `wrote ${first} (INSECURE dev key, a 2^${circuit.lg} domain) and ${second} (${c.nWires} wires, ${c.nBinaryValues} values 0/1) for ${c.nConstraints} constraints in ${(ms / 1000).toFixed(1)} s (${line()} s)`);
    return 0;
  }
  const res = await devSetup({ r1csPath: first, zkeyPath: second, seed, onProgress });
  const ms = performance.now() - t0;
  printResult(ctx, { ok: true, insecure: true, zkey: second, ms, phasesMs: phasesMs(), ...res }, `wrote ${second} (INSECURE dev key) in ${(ms / 1000).toFixed(1)} s (${line()} s)`);
  return 0;
}
