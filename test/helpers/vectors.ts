// The committed snarkjs test vectors (test/vectors/index.json; how they were made: test/vectors/README.md).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface VectorSet {
  curve: 'bn128' | 'bls12381';
  circuit: string;
  dir: string;
  nPublic: number;
  nVars: number;
  domainSize: number;
  hasBadWitness: boolean;
  hasInput2: boolean;
}

export const VECTORS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'vectors');

export function vectorSets(): VectorSet[] {
  return JSON.parse(readFileSync(path.join(VECTORS_DIR, 'index.json'), 'utf8')) as VectorSet[];
}

export function vectorFile(set: VectorSet, name: string): string {
  return path.join(VECTORS_DIR, set.dir, name);
}

export function readJson(set: VectorSet, name: string): unknown {
  return JSON.parse(readFileSync(vectorFile(set, name), 'utf8'));
}
