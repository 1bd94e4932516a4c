// The one-shot road (one-shot.ts, `cuzk prove`) on GPU 0: the context made on a worker thread
// (cuzk_gpu_warm) while the key is read and pinned and the witness read into a buffer pinned beside
// it, the key uploaded, then the proof, which snarkjs accepts; the breakdown says the context and the
// upload happened; under a GPU budget below the key and its scratch it is placed as the engine places it. Skipped with a reason unless `npm run test:gpu` runs on a GPU (or a dry run).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { keyShape, placeKey } from '../../src/engine/key-placement.js';
import { proveFromFiles } from '../../src/engine/one-shot.js';
import { gpuWarmAsync } from '../../src/ffi/native.js';
import { proofToJson, publicToJson } from '../../src/formats/proof-json.js';
import { WtnsFile } from '../../src/formats/wtns.js';
import { ZkeyFile } from '../../src/formats/zkey.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';
import { DRY, gpuSkip } from './gpu-gate.js';

const skip = gpuSkip();
after(terminateSnarkjs);

describe('one-shot prove on the GPU', () => {
  for (const set of vectorSets().filter((s) => s.circuit === 'poseidon')) {
    it(`${set.curve}/${set.circuit}: context, key and witness beside each other, then upload and proof; snarkjs verifies`, { skip }, async () => {
      const wtns = WtnsFile.open(vectorFile(set, 'witness.wtns'));
      const phases: string[] = [];
      try {
        const { key, res, timings: t } = await proveFromFiles(vectorFile(set, 'circuit.zkey'), wtns, { onPhase: (p) => phases.push(p) });
        key.release();
        const vk = JSON.parse(readFileSync(vectorFile(set, 'vkey.json'), 'utf8'));
        assert.equal(await snarkjsVerify(vk, publicToJson(res.publicSignals), proofToJson(res.proof)), true);
        if (DRY) return;
        assert.deepEqual(phases, ['load key', 'upload key', 'prove', 'verify']);
        assert.ok(t.warmAt >= 0 && t.warmAt <= t.totalMs, `the GPU context was ready at ${t.warmAt} ms`);
        assert.ok(t.uploadMs > 0, 'the key was uploaded before the proof');
      } finally {
        wtns.close();
      }
    });
  }

  // a GPU budget below the key beside a proof's unchunked scratch: the one-shot places the key as the
  // engine does, its MSMs in chunks (before: every set uploaded and the MSMs run whole, so a key larger
  // than the GPU's memory beside that scratch ran out of it in the proof: BLS12-381 2^26 on an H100)
  for (const set of vectorSets().filter((s) => s.circuit === 'poseidon')) {
    it(`${set.curve}/${set.circuit}: under a budget below the key and its whole scratch, placed as the engine places it; snarkjs verifies`, { skip }, async () => {
      const zkey = vectorFile(set, 'circuit.zkey');
      const file = ZkeyFile.open(zkey);
      const shape = keyShape(file.header);
      file.close();
      const whole = placeKey(shape, Number.MAX_SAFE_INTEGER)!;
      const budget = whole.deviceBytes + whole.scratchBytes - 1;
      const want = placeKey(shape, budget);
      assert.ok(want && want.chunkPoints > 0, `the budget leaves the MSMs chunked: ${JSON.stringify(want)}`);
      const wtns = WtnsFile.open(vectorFile(set, 'witness.wtns'));
      try {
        const { key, res, timings: t } = await proveFromFiles(zkey, wtns, { gpuBudgetBytes: budget });
        key.release();
        const vk = JSON.parse(readFileSync(vectorFile(set, 'vkey.json'), 'utf8'));
        assert.equal(await snarkjsVerify(vk, publicToJson(res.publicSignals), proofToJson(res.proof)), true);
        if (DRY) return;
        assert.deepEqual(t.placement, { mode: want.mode, streamed: want.streamed, chunkPoints: want.chunkPoints });
      } finally {
        wtns.close();
      }
    });
  }

  it('cuzk_gpu_warm: idempotent on GPU 0; a GPU that does not exist is E_NO_DEVICE', { skip: skip || (DRY ? 'dry run: no GPU' : false) }, async () => {
    await gpuWarmAsync(0);
    await gpuWarmAsync(0);
    await assert.rejects(gpuWarmAsync(4096), (e: unknown) => (e as { code?: string }).code === 'E_NO_DEVICE');
  });
});
