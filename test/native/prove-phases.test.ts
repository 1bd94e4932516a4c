// The two-phase prover (cuzk_groth16_synthesize, then cuzk_groth16_prove_ab) gives exactly the proof
// of the one-call cuzk_groth16_prove for the same r, s; its stats are filled; wrong arguments are
// refused before any pointer crosses (size, alignment, device); cancellation stops phase 2.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { ProvingKey } from '../../src/engine/proving-key.js';
import { NativeBuffer } from '../../src/ffi/native-buffer.js';
import { gpuCount } from '../../src/ffi/native.js';
import { WtnsFile } from '../../src/formats/wtns.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

for (const set of vectorSets().filter((s) => s.circuit === 'poseidon')) {
  describe(`two-phase prove ${set.curve}`, () => {
    let key: ProvingKey;
    let witness: Uint8Array;
    const r = new Uint8Array(32), s = new Uint8Array(32);
    before(async () => {
      key = await ProvingKey.load(vectorFile(set, 'circuit.zkey'));
      const w = WtnsFile.open(vectorFile(set, 'witness.wtns'));
      witness = w.readWitness();
      w.close();
      r.set(randomBytes(31));
      s.set(randomBytes(31));
    });
    after(() => key.release());

    it('equals the one-call proof for the same r, s', async () => {
      const z = key.native;
      const outSize = 2 * (set.curve === 'bn128' ? 64 : 96) + (set.curve === 'bn128' ? 128 : 192);
      const one = new Uint8Array(outSize);
      await z.prove(witness, r, s, one);
      const ab = NativeBuffer.alloc(z.abBytes, { pinned: true });
      try {
        ab.bytes.fill(0xa5); // poison: phase 1 must overwrite every element
        const st1 = await z.synthesize(witness, ab.bytes);
        assert.ok(st1.synthMs >= 0);
        const two = new Uint8Array(outSize);
        const st2 = await z.proveAb(witness, ab.bytes, -1, r, s, two);
        assert.deepEqual(two, one);
        assert.equal(st2.device, -1);
        assert.equal(st2.kernelMs, 0);
        assert.ok(st2.totalMs >= st2.nttMs && st2.msmMs > 0);
      } finally {
        ab.release();
      }
    });

    it('refuses bad buffers and devices before the call', async () => {
      const z = key.native;
      const ab = NativeBuffer.alloc(z.abBytes + 8);
      try {
        const out = new Uint8Array(512);
        await assert.rejects(z.synthesize(witness.subarray(32), ab.bytes), /witness has/);
        await assert.rejects(z.synthesize(witness, ab.bytes.subarray(0, z.abBytes - 32)), /A‖B buffer holds/);
        await assert.rejects(z.synthesize(witness, ab.bytes.subarray(4, 4 + z.abBytes)), /not 8-byte aligned/);
        await assert.rejects(z.proveAb(witness, ab.bytes, -2, r, s, out), /bad device/);
        if (gpuCount() === 0) await assert.rejects(z.proveAb(witness, ab.bytes, 0, r, s, out), (e: CuzkError) => e.code === 'E_NO_DEVICE');
        await assert.rejects(z.proveAb(witness, ab.bytes, gpuCount(), r, s, out), (e: CuzkError) => e.code === 'E_NO_DEVICE');
      } finally {
        ab.release();
      }
    });

    it('stops at a phase boundary when cancelled', async () => {
      const z = key.native;
      const ab = NativeBuffer.alloc(z.abBytes);
      try {
        await z.synthesize(witness, ab.bytes);
        await assert.rejects(z.proveAb(witness, ab.bytes, -1, r, s, new Uint8Array(512), Int32Array.of(1)), (e: CuzkError) => e.code === 'E_CANCELLED');
        await assert.rejects(z.synthesize(witness, ab.bytes, Int32Array.of(1)), (e: CuzkError) => e.code === 'E_CANCELLED');
      } finally {
        ab.release();
      }
    });
  });
}
