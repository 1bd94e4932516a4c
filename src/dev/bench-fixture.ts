// Benchmark fixtures: a dev-circuit and its dev-setup key per (curve, size), cached under
// <root>/.cache/bench/<curve>-2_<lg> so repeated runs skip the setup. Used by `npm run bench` and
// `cuzk bench --size K`. INSECURE keys (dev-setup): for benchmarks only.
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import type { CurveName } from '../formats/curves.js';
import { devCircuit, maxConstraintsForDomain } from './dev-circuit.js';
import { devSetup } from './dev-setup.js';

export interface Fixture {
  curve: CurveName;
  lgDomain: number;
  constraints: number;
  zkey: string;
  wtns: string;
}

export async function benchFixture(root: string, curve: CurveName, lgDomain: number, log: (s: string) => void): Promise<Fixture> {
  const dir = path.join(root, '.cache', 'bench', `${curve}-2_${lgDomain}`);
  const r1cs = path.join(dir, 'circuit.r1cs');
  const wtns = path.join(dir, 'witness.wtns');
  const zkey = path.join(dir, 'circuit.zkey');
  const constraints = maxConstraintsForDomain(lgDomain);
  if (!existsSync(zkey)) {
    mkdirSync(dir, { recursive: true });
    const t0 = performance.now();
    await devCircuit({ constraints, curve, r1csPath: r1cs, wtnsPath: wtns, seed: lgDomain });
    // written under a temporary name and renamed: a run killed mid-setup leaves no truncated key
    await devSetup({ r1csPath: r1cs, zkeyPath: `${zkey}.partial`, seed: lgDomain });
    renameSync(`${zkey}.partial`, zkey);
    log(`fixture ${curve} 2^${lgDomain}: ${constraints} constraints, made in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return { curve, lgDomain, constraints, zkey, wtns };
}
