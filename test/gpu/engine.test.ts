// The engine on the GPU: jobs run their phase 2 on GPU 0 (key resident there) and every proof
// verifies with snarkjs; a key too large for the GPU memory budget is proved on the CPU core instead.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { gpuCount } from '../../src/ffi/native.js';
import { createEngine } from '../../src/index.js';
import { readJson, vectorFile, vectorSets } from '../helpers/vectors.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { DRY, gpuSkip } from './gpu-gate.js';

after(terminateSnarkjs);
const skip = gpuSkip() || (DRY ? 'dry run: the engine picks lanes from real GPUs' : false);

describe('engine on the GPU', () => {
  for (const set of vectorSets().filter((s) => s.circuit === 'poseidon')) {
    it(`${set.curve}: jobs run on every GPU with the key resident; snarkjs verifies every proof`, { skip }, async () => {
      const e = await createEngine({ backend: 'cuda' });
      try {
        const key = await e.loadKey(vectorFile(set, 'circuit.zkey'));
        assert.equal(key.residency, 'gpu');
        const w = [readFileSync(vectorFile(set, 'witness.wtns')), readFileSync(vectorFile(set, 'witness2.wtns'))].map((b) => new Uint8Array(b));
        const ids = Array.from({ length: 6 }, (_, i) => e.submit({ key: key.id, witnesses: [w[i % 2]!, w[(i + 1) % 2]!] }).id);
        const vk = readJson(set, 'vkey.json');
        const used = new Set<string>();
        for (const id of ids) {
          const info = await e.await(id);
          assert.equal(info.state, 'completed', info.error?.message);
          assert.match(info.device ?? '', /^gpu:\d+$/);
          used.add(info.device!);
          for (const p of info.proofs!) assert.equal(await snarkjsVerify(vk, p.publicSignals, p.proof), true);
          assert.ok((info.timings.h2d ?? 0) > 0);
          assert.ok((info.timings.synthesis ?? 0) > 0, 'the GPU lane reports its device synthesis');
        }
        assert.equal(e.status().pinnedPool.inUse, 0);
        // every GPU of the machine takes work (3 jobs in flight per lane, 6 jobs of 2 proofs)
        assert.equal(used.size, Math.min(gpuCount(), 6), `devices used: ${[...used].join(', ')}`);
      } finally {
        await e.close();
      }
    });
  }

  it('a key too large for the GPU budget is proved on the CPU core', { skip }, async () => {
    const set = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'bits')!;
    const e = await createEngine({ backend: 'cuda', memory: { gpu: 1 << 20 } });
    try {
      const info = await e.await(e.submit({ key: vectorFile(set, 'circuit.zkey'), witnesses: [new Uint8Array(readFileSync(vectorFile(set, 'witness.wtns')))] }).id);
      assert.equal(info.state, 'completed', info.error?.message);
      assert.equal(info.device, 'cpu');
      assert.equal(await snarkjsVerify(readJson(set, 'vkey.json'), info.proofs![0]!.publicSignals, info.proofs![0]!.proof), true);
    } finally {
      await e.close();
    }
  });
});
