// Streamed keys on the GPU (key-placement.ts; native key_gpu.cuh, chunk_ring_gpu.cuh,
// msm_stream_gpu.cuh, synth_gpu.cuh): a key placed with its sets streamed from page-locked host
// memory, in small chunks so that every set takes several (and each ring's two slots are reused; the
// witness side's ring carries B2 and B1 together, then A, then C; the main chain's the coefficients,
// then H: chunks of different sizes through the same slots),
// gives the same proof bytes as the key resident for the same r and s, and the proofs verify
// (snarkjs for the vector circuits; the engine verifies every proof itself). Both curves; also a
// budget just below the key's size, which makes 'auto' stream part of it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { benchFixture } from '../../src/dev/bench-fixture.js';
import { proofScratchBytes } from '../../src/engine/key-placement.js';
import { createEngine, type EngineConfig } from '../../src/index.js';
import type { CurveName } from '../../src/formats/curves.js';
import { readJson, vectorFile, vectorSets } from '../helpers/vectors.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { DRY, gpuSkip } from './gpu-gate.js';

after(terminateSnarkjs);
const skip = gpuSkip() || (DRY ? 'dry run: the engine places keys on real GPUs' : false);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const testRandomness = { r: 0x1234567890abcdefn, s: 0xfedcba0987654321n };

interface Run {
  proofs: unknown[];
  publics: string[][];
  residency: string;
  streamed: string[];
  keyBytes: number;
  nVars: number;
  device: string;
  metrics: string;
}

async function proveWith(config: EngineConfig, zkey: string, witnesses: Uint8Array[]): Promise<Run> {
  const e = await createEngine({ backend: 'cuda', testRandomness, ...config });
  try {
    const key = await e.loadKey(zkey);
    const info = await e.await(e.submit({ key: key.id, witnesses }).id);
    assert.equal(info.state, 'completed', info.error?.message);
    const k = e.status().keys.find((x) => x.id === key.id)!;
    const place = k.placements?.find((p) => p.device === 'gpu:0');
    assert.ok(place, `key placed on gpu:0 (${JSON.stringify(k)})`);
    return {
      proofs: info.proofs!.map((p) => p.proof), publics: info.proofs!.map((p) => p.publicSignals), residency: k.residency,
      streamed: place.streamed, keyBytes: place.keyBytes, nVars: k.nVars, device: info.device ?? '', metrics: await e.metricsText(),
    };
  } finally {
    await e.close();
  }
}

// chunk lengths for several chunks per set: about a fifth of the key's wires, records likewise
function streamedConfig(nVars: number, nCoefs: number): EngineConfig {
  return { gpu: { keyResidency: 'streamed', streamChunkPoints: Math.max(16, Math.floor(nVars / 5)), streamChunkRecords: Math.max(64, Math.floor(nCoefs / 7)) } };
}

function checkSame(resident: Run, streamed: Run): void {
  assert.equal(resident.residency, 'gpu');
  assert.equal(streamed.residency, 'gpu-streamed');
  assert.equal(streamed.device, 'gpu:0');
  assert.deepEqual(streamed.proofs, resident.proofs, 'the streamed proof is the resident one, byte for byte');
  assert.deepEqual(streamed.publics, resident.publics);
  assert.match(streamed.metrics, /cuzk_keys_loaded\{residency="gpu-streamed"\} 1/);
}

describe('streamed keys on the GPU: the same proof bytes as resident', () => {
  for (const set of vectorSets().filter((s) => s.circuit === 'poseidon')) {
    it(`${set.curve} poseidon: every set streamed in chunks; snarkjs verifies`, { skip }, async () => {
      const zkey = vectorFile(set, 'circuit.zkey');
      const w = [readFileSync(vectorFile(set, 'witness.wtns')), readFileSync(vectorFile(set, 'witness2.wtns'))].map((b) => new Uint8Array(b));
      const resident = await proveWith({}, zkey, w);
      const streamed = await proveWith(streamedConfig(set.nVars, set.domainSize * 3), zkey, w);
      assert.deepEqual([...streamed.streamed].sort(), ['a', 'b1', 'b2', 'c', 'coefs', 'h']);
      checkSame(resident, streamed);
      const vk = readJson(set, 'vkey.json');
      for (let i = 0; i < w.length; i++) assert.equal(await snarkjsVerify(vk, streamed.publics[i]!, streamed.proofs[i]), true);
    });
  }

  for (const curve of ['bn128', 'bls12381'] as CurveName[]) {
    it(`${curve} dev circuit 2^16: every set streamed, then 'auto' under a budget just below the key`, { skip, timeout: 10 * 60_000 }, async (t: TestContext) => {
      const fx = await benchFixture(root, curve, 16, (m) => t.diagnostic(m));
      const w = [new Uint8Array(readFileSync(fx.wtns))];
      const resident = await proveWith({}, fx.zkey, w);
      const n = 2 ** 16;
      const streamed = await proveWith(streamedConfig(n, fx.constraints * 3), fx.zkey, w);
      checkSame(resident, streamed);
      // the budget of the key less one byte beside a streamed proof's scratch (its MSMs in chunks of
      // n/4): 'auto' streams what does not fit, through rings that carry sets of different sizes
      const n8q = curve === 'bn128' ? 32 : 48;
      const shape = { g1Bytes: 2 * n8q, g2Bytes: 4 * n8q, nVars: resident.nVars, nPublic: 0, domainSize: n, nCoefs: 0 };
      const budget = resident.keyBytes + proofScratchBytes(shape, new Set(['h']), n / 4) - 1;
      const auto = await proveWith({ memory: { gpu: budget }, gpu: { streamChunkPoints: n / 4, streamChunkRecords: n } }, fx.zkey, w);
      assert.ok(auto.streamed.length > 0 && auto.streamed.length < 6, `auto streams part of the key: ${auto.streamed.join()}`);
      checkSame(resident, auto);
    });
  }
});
