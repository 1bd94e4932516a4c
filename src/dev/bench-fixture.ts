// Benchmark fixtures: a dev circuit's witness and its dev-setup key per (curve, size), made in one step (no
// .r1cs on disk) and cached under <root>/.cache/bench/<curve>-2_<lg> so repeated runs skip the setup. Used by
// `npm run bench` and `cuzk bench --size K`. INSECURE keys (dev-setup): for benchmarks only.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { CurveName } from '../formats/curves.js';
import { maxConstraintsForDomain } from './dev-circuit.js';
import { devSetupCircuit } from './dev-setup.js';

export interface Fixture {
  curve: CurveName;
  lgDomain: number;
  constraints: number;
  zkey: string;
  wtns: string;
}

export async function benchFixture(root: string, curve: CurveName, lgDomain: number, log: (s: string) => void): Promise<Fixture> {
  const dir = path.join(root, '.cache', 'bench', `${curve}-2_${lgDomain}`);
  const wtns = path.join(dir, 'witness.wtns');
  const zkey = path.join(dir, 'circuit.zkey');
  const constraints = maxConstraintsForDomain(lgDomain);
  if (!existsSync(zkey)) {
    mkdirSync(dir, { recursive: true });
    const t0 = performance.now();
    // the key written under a temporary name and renamed: a run killed mid-setup leaves no truncated key
    await devSetupCircuit({ constraints, curve, wtnsPath: wtns, zkeyPath: `${zkey}.partial`, seed: lgDomain });
    renameSync(`${zkey}.partial`, zkey);
    // a cache made by the two-step road kept its .r1cs: of no use now, and as big as the key
    rmSync(path.join(dir, 'circuit.r1cs'), { force: true });
    log(`fixture ${curve} 2^${lgDomain}: ${constraints} constraints, made in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return { curve, lgDomain, constraints, zkey, wtns };
}
