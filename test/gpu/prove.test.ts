// Whole Groth16 proofs on the GPU, checked two ways: snarkjs accepts them, and they equal the CPU
// core's proof for the same r, s byte for byte. Every circom vector circuit (both curves) through
// proveAb(GPU 0) (synthesis on the device from the key's resident coefficients) and through the
// one-shot prover (proveWithKey, the same call) on GPU 0, against the CPU core's synthesize +
// proveAb(-1); dev-circuits of 2^16 and 2^20 (BN254) and 2^16 (BLS12-381) constraints with the key
// resident, as the engine runs them. Dev fixtures are cached under .cache/bench (the first 2^20 key
// costs about a minute of CPU). Skipped with a reason unless `npm run test:gpu` runs on a GPU.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { benchFixture } from '../../src/dev/bench-fixture.js';
import { CuzkError } from '../../src/errors.js';
import { pairingGt } from '../../src/engine/gt.js';
import { proveWithKey } from '../../src/engine/prover.js';
import { deviceScratchBytes } from '../../src/engine/pipeline.js';
import { ProvingKey } from '../../src/engine/proving-key.js';
import { keyGpuBytes } from '../../src/server/startup/preflight-files.js';
import { NativeBuffer } from '../../src/ffi/native-buffer.js';
import type { ProveStats } from '../../src/ffi/groth16-key.js';
import { decodeG1, decodeG2, g1Bytes, g2Bytes, leToBigint, scalarToLe } from '../../src/formats/lem.js';
import { proofToJson, publicToJson, type Groth16Proof } from '../../src/formats/proof-json.js';
import { vkeyToJson } from '../../src/formats/vkey-json.js';
import { WtnsFile } from '../../src/formats/wtns.js';
import { createRng } from '../helpers/rng.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { readJson, vectorFile, vectorSets } from '../helpers/vectors.js';
import { DEVICE, DRY, gpuSkip } from './gpu-gate.js';

const skip = gpuSkip();
const rng = createRng();
const seedNote = `(CUZK_TEST_SEED=${rng.seed})`;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

after(terminateSnarkjs);

interface Loaded {
  key: ProvingKey;
  witness: Uint8Array;
  r: Uint8Array;
  s: Uint8Array;
}

async function load(zkey: string, wtns: string): Promise<Loaded> {
  const key = await ProvingKey.load(zkey, { pinned: true });
  const w = WtnsFile.open(wtns);
  try {
    const witness = w.readWitness();
    const { r } = key.header;
    return { key, witness, r: scalarToLe(rng.below(r)), s: scalarToLe(rng.below(r)) };
  } catch (e) {
    key.release();
    throw e;
  } finally {
    w.close();
  }
}

function proofBytes(key: ProvingKey): Uint8Array {
  const c = key.curve;
  return new Uint8Array(2 * g1Bytes(c) + g2Bytes(c));
}

/** A proof on `device`: a GPU's one call (synthesis on the device), or on the CPU core (-1) phase 1
 * into the pinned A‖B, then phase 2. */
async function proveTwoPhase(l: Loaded, ab: NativeBuffer, device: number): Promise<{ proof: Uint8Array; stats: ProveStats }> {
  const out = proofBytes(l.key);
  if (device < 0) await l.key.native.synthesize(l.witness, ab.bytes);
  const stats = await l.key.native.proveAb(l.witness, device < 0 ? ab.bytes : null, device, l.r, l.s, out);
  return { proof: out, stats };
}

function decodeProof(key: ProvingKey, bytes: Uint8Array): Groth16Proof {
  const c = key.curve;
  return {
    curve: c.name,
    a: decodeG1(bytes, c, 0, 'proof A'),
    b: decodeG2(bytes, c, g1Bytes(c), 'proof B'),
    c: decodeG1(bytes, c, g1Bytes(c) + g2Bytes(c), 'proof C'),
  };
}

async function assertSnarkjsAccepts(l: Loaded, proof: Uint8Array, vkJson: unknown, what: string): Promise<void> {
  const h = l.key.header;
  const pub = Array.from({ length: h.nPublic }, (_, i) => leToBigint(l.witness, 32 * (i + 1), 32));
  const ok = await snarkjsVerify(vkJson, publicToJson(pub), proofToJson(decodeProof(l.key, proof)));
  assert.equal(ok, true, `snarkjs rejects the GPU proof: ${what} ${seedNote}`);
}

function assertSameProof(gpu: Uint8Array, cpu: Uint8Array, what: string): void {
  assert.equal(hex(gpu), hex(cpu), `${what}: the GPU proof (actual) differs from the CPU core's (expected) for the same r, s ${seedNote}`);
}

describe('GPU proofs of the circom vector circuits = CPU core, verified by snarkjs', () => {
  for (const set of vectorSets()) {
    const witnesses = ['witness.wtns', ...(set.hasInput2 ? ['witness2.wtns'] : [])];
    it(`${set.curve}/${set.circuit}`, { skip }, async () => {
      const vkJson = readJson(set, 'vkey.json');
      for (const w of witnesses) {
        const l = await load(vectorFile(set, 'circuit.zkey'), vectorFile(set, w));
        const ab = NativeBuffer.alloc(l.key.native.abBytes, { pinned: true });
        try {
          const what = `${set.curve}/${set.circuit} ${w}`;
          const cpu = await proveTwoPhase(l, ab, -1);
          const gpu = await proveTwoPhase(l, ab, DEVICE);
          assert.equal(gpu.stats.device, DEVICE);
          assertSameProof(gpu.proof, cpu.proof, `${what}, proveAb(${DEVICE})`);
          await assertSnarkjsAccepts(l, gpu.proof, vkJson, what);
          // the one-shot prover (cuzk prove's), with its own verify-before-return, on the GPU
          const res = await proveWithKey(l.key, l.witness, { device: DEVICE });
          assert.deepEqual(publicToJson(res.publicSignals), readJson(set, w === 'witness.wtns' ? 'public.json' : 'public2.json'));
        } finally {
          ab.release();
          l.key.release();
        }
      }
    });
  }

  it('a witness that violates a constraint gives E_PROOF_INVALID on the GPU path too', { skip }, async () => {
    const set = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'poseidon' && s.hasBadWitness)!;
    const l = await load(vectorFile(set, 'circuit.zkey'), vectorFile(set, 'witness_bad.wtns'));
    try {
      await assert.rejects(proveWithKey(l.key, l.witness, { device: DEVICE }), (e: unknown) => e instanceof CuzkError && e.code === 'E_PROOF_INVALID');
    } finally {
      l.key.release();
    }
  });
});

const DEV = ([['bn128', 16], ['bls12381', 16], ['bn128', 20]] as const).filter(([curve, lg]) => !DRY || (curve === 'bn128' && lg <= 16));

describe('GPU proofs of dev-circuits, key resident (proveAb, synthesis on the device) = CPU core, verified by snarkjs', () => {
  for (const [curve, lg] of DEV) {
    it(`${curve} 2^${lg} constraints`, { skip, timeout: 15 * 60_000 }, async (t: TestContext) => {
      const fx = await benchFixture(root, curve, lg, (m) => t.diagnostic(m));
      const l = await load(fx.zkey, fx.wtns);
      const ab = NativeBuffer.alloc(l.key.native.abBytes, { pinned: true });
      try {
        const vk = l.key.vk;
        const vkJson = vkeyToJson(vk, pairingGt(curve, vk.alpha1, vk.beta2));
        if (!DRY) await l.key.native.gpuUpload(DEVICE);
        const gpu = await proveTwoPhase(l, ab, DEVICE);
        const again = await proveTwoPhase(l, ab, DEVICE); // the resident key, reused
        const cpu = await proveTwoPhase(l, ab, -1);
        const st = again.stats;
        t.diagnostic(`GPU proof ${st.totalMs.toFixed(1)} ms (h2d ${st.h2dMs.toFixed(1)}, synthesis ${st.synthMs.toFixed(2)}, ntt ${st.nttMs.toFixed(1)}, msm ${st.msmMs.toFixed(1)}, d2h ${st.d2hMs.toFixed(1)}, kernels ${st.kernelMs.toFixed(1)}); CPU core phase 2 ${cpu.stats.totalMs.toFixed(0)} ms`);
        assert.equal(st.device, DEVICE);
        if (!DRY) {
          assert.ok(st.kernelMs > 0 && st.synthMs > 0, `GPU stats look empty: ${JSON.stringify(st)}`);
          assert.equal(st.h2dBytes, l.key.header.nVars * 32, 'a GPU proof uploads the witness alone');
          // what the engine's budget and `cuzk doctor` count is what the native core says it holds
          assert.equal(l.key.native.gpuBytes, keyGpuBytes(l.key.header) - deviceScratchBytes(l.key.header.domainSize, l.key.header.nVars));
        }
        assert.equal(cpu.stats.device, -1);
        assertSameProof(gpu.proof, cpu.proof, `${curve} 2^${lg}`);
        assertSameProof(again.proof, cpu.proof, `${curve} 2^${lg}, second proof with the resident key`);
        await assertSnarkjsAccepts(l, gpu.proof, vkJson, `${curve} 2^${lg}`);
      } finally {
        ab.release();
        l.key.release();
      }
    });
  }
});
