// A small GPU workload for compute-sanitizer (scripts/gpu-sanitize.sh runs it under memcheck): the
// bn128 multiplier and poseidon and the bls12381 poseidon proofs (synthesize + proveAb on GPU 0
// against the CPU core, then the one-shot prover on GPU 0), MSMs of both groups and curves with infinity and repeated points,
// and NTTs at sizes that take the small and the large kernels. Every result is compared with the
// CPU core; exit 0 when all agree, 1 on a mismatch, 2 without a GPU.
//   CUZK_BACKEND=cuda node --import tsx test/gpu/sanitize-workload.ts
import { proveWithKey } from '../../src/engine/prover.js';
import { ProvingKey } from '../../src/engine/proving-key.js';
import { loadCore } from '../../src/ffi/load.js';
import { NativeBuffer } from '../../src/ffi/native-buffer.js';
import { GROUP, NTT_COSET, NTT_INVERSE, gpuCount, msm, ntt } from '../../src/ffi/native.js';
import { WtnsFile } from '../../src/formats/wtns.js';
import type { CurveName } from '../helpers/ref-field.js';
import { createRng } from '../helpers/rng.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';
import { onDevice } from './gpu-gate.js';
import { pointBytes, randomPoints, randomScalars, type GroupName } from './random-inputs.js';

process.env.CUZK_BACKEND ??= 'cuda';
const rng = createRng();
let checks = 0;
let failures = 0;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

function expectSame(gpu: Uint8Array, cpu: Uint8Array, what: string): void {
  checks++;
  if (hex(gpu) === hex(cpu)) return;
  failures++;
  console.error(`MISMATCH ${what}: the GPU result differs from the CPU core's (CUZK_TEST_SEED=${rng.seed})`);
}

async function proofs(): Promise<void> {
  const wanted = ['bn128/multiplier', 'bn128/poseidon', 'bls12381/poseidon'];
  for (const set of vectorSets().filter((s) => wanted.includes(`${s.curve}/${s.circuit}`))) {
    const key = await ProvingKey.load(vectorFile(set, 'circuit.zkey'), { pinned: true });
    const w = WtnsFile.open(vectorFile(set, 'witness.wtns'));
    const ab = NativeBuffer.alloc(key.native.abBytes, { pinned: true });
    try {
      const witness = w.readWitness();
      const r = randomScalars(set.curve, 1, rng);
      const s = randomScalars(set.curve, 1, rng);
      const size = 2 * pointBytes(set.curve, 'g1') + pointBytes(set.curve, 'g2');
      const [cpu, gpu] = [new Uint8Array(size), new Uint8Array(size)];
      await key.native.synthesize(witness, ab.bytes);
      await key.native.proveAb(witness, ab.bytes, -1, r, s, cpu);
      await key.native.proveAb(witness, null, 0, r, s, gpu); // synthesis on the device
      expectSame(gpu, cpu, `${set.dir} proveAb(0)`);
      await proveWithKey(key, witness, { device: 0 }); // throws E_PROOF_INVALID if wrong
      checks++;
    } finally {
      ab.release();
      w.close();
      key.release();
    }
  }
}

function msms(): void {
  const cases: [CurveName, GroupName, number][] = [['bn128', 'g1', 1000], ['bn128', 'g2', 300], ['bls12381', 'g1', 1000], ['bls12381', 'g2', 100]];
  for (const [curve, group, n] of cases) {
    const pb = pointBytes(curve, group);
    const pts = randomPoints(curve, group, n, rng);
    for (let i = 0; i < n; i += 7) pts.fill(0, i * pb, (i + 1) * pb); // infinity
    for (let i = 3; i < n; i += 11) pts.copyWithin(i * pb, pb, 2 * pb); // a repeated point
    const sc = randomScalars(curve, n, rng);
    const [cpu, gpu] = [new Uint8Array(pb), new Uint8Array(pb)];
    onDevice('off', () => msm(curve, GROUP[group], pts, sc, n, cpu));
    onDevice('force', () => msm(curve, GROUP[group], pts, sc, n, gpu));
    expectSame(gpu, cpu, `msm ${curve} ${group} n = ${n}`);
  }
}

function ntts(): void {
  for (const curve of ['bn128', 'bls12381'] as CurveName[]) {
    for (const lg of [1, 5, 10, 16]) {
      const a = randomScalars(curve, 2 ** lg, rng);
      for (const flags of [0, NTT_INVERSE, NTT_COSET, NTT_INVERSE | NTT_COSET]) {
        const [cpu, gpu] = [a.slice(), a.slice()];
        onDevice('off', () => ntt(curve, cpu, lg, flags));
        onDevice('force', () => ntt(curve, gpu, lg, flags));
        expectSame(gpu, cpu, `ntt ${curve} 2^${lg} flags ${flags}`);
      }
    }
  }
}

let gpus = 0;
try {
  gpus = loadCore().backend === 'cuda' ? gpuCount() : 0;
} catch (e) {
  console.error(`sanitize workload: ${(e as Error).message}`);
}
if (gpus === 0) {
  console.error('sanitize workload: no GPU (needs the CUDA build, `CUZK_CUDA=1 npm run build:native`, and a device)');
  process.exit(2);
}
const t0 = performance.now();
await proofs();
msms();
ntts();
console.log(`sanitize workload: ${checks - failures}/${checks} GPU results equal the CPU core's, ${((performance.now() - t0) / 1000).toFixed(1)} s (CUZK_TEST_SEED=${rng.seed})`);
process.exit(failures ? 1 : 0);
