// The native core's one proving road, synthesize then prove_ab (the engine's and the one-shot
// prover's): its proof verifies with snarkjs and with ours and a changed public input is refused by
// both; its A and B are the witness sums randomised by r and s as snarkjs computes them (checked on
// @noble/curves, independent of the native MSM); the same r, s give the same bytes; its stats are
// filled; wrong arguments are refused before any pointer crosses (size, alignment, device);
// cancellation stops it at a phase boundary.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { decodeProof, publicSignalsOf } from '../../src/engine/proof-bytes.js';
import { ProvingKey } from '../../src/engine/proving-key.js';
import { verifyGroth16 } from '../../src/engine/verifier.js';
import { NativeBuffer } from '../../src/ffi/native-buffer.js';
import { gpuCount } from '../../src/ffi/native.js';
import { leToBigint } from '../../src/formats/lem.js';
import { proofToJson, publicToJson } from '../../src/formats/proof-json.js';
import { WtnsFile } from '../../src/formats/wtns.js';
import { refGroup, type RefGroup, type RefPoint } from '../helpers/ref-curve.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { readJson, vectorFile, vectorSets } from '../helpers/vectors.js';

after(terminateSnarkjs);

/** base + sum w_i·points_i + k·extra over LEM point images, on the reference group. */
function randomisedSum(g: RefGroup, base: RefPoint, points: Uint8Array, witness: Uint8Array, n: number, k: bigint, extra: RefPoint): RefPoint {
  let acc = g.add(base, g.mul(extra, k));
  for (let i = 0; i < n; i++) acc = g.add(acc, g.mul(g.fromLem(points, i * g.bytes), leToBigint(witness, 32 * i, 32)));
  return acc;
}

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

    it('proves: snarkjs and cuzk accept, A and B are randomised by r and s, the same r, s give the same bytes', async () => {
      const z = key.native;
      const outSize = 2 * (set.curve === 'bn128' ? 64 : 96) + (set.curve === 'bn128' ? 128 : 192);
      const ab = NativeBuffer.alloc(z.abBytes, { pinned: true });
      const proofs: Uint8Array[] = [];
      try {
        for (let run = 0; run < 2; run++) {
          ab.bytes.fill(0xa5); // poison: phase 1 must overwrite every element
          const st1 = await z.synthesize(witness, ab.bytes);
          assert.ok(st1.synthMs >= 0);
          const out = new Uint8Array(outSize);
          const st2 = await z.proveAb(witness, ab.bytes, -1, r, s, out);
          assert.equal(st2.device, -1);
          assert.equal(st2.kernelMs, 0);
          assert.ok(st2.totalMs >= st2.nttMs && st2.msmMs > 0);
          proofs.push(out);
        }
      } finally {
        ab.release();
      }
      assert.deepEqual(proofs[1], proofs[0], 'the same witness, r and s gave two different proofs');
      const proof = decodeProof(key, proofs[0]!);
      const pub = publicSignalsOf(witness, key.header.nPublic);
      const vkJson = readJson(set, 'vkey.json');
      assert.equal(await snarkjsVerify(vkJson, publicToJson(pub), proofToJson(proof)), true, 'snarkjs rejects the proof');
      assert.equal(verifyGroth16(key.vk, pub, proof), true);
      const other = [(pub[0]! + 1n) % key.header.r, ...pub.slice(1)];
      assert.equal(await snarkjsVerify(vkJson, publicToJson(other), proofToJson(proof)), false, 'snarkjs accepts another public input');
      assert.equal(verifyGroth16(key.vk, other, proof), false);
      // pi_a = alpha1 + sum w_i·A_i + r·delta1, pi_b = beta2 + sum w_i·B2_i + s·delta2 (snarkjs groth16_prove.js)
      const g1 = refGroup(set.curve, 'g1'), g2 = refGroup(set.curve, 'g2');
      const { header: hb, pointsA, pointsB2 } = z.parts;
      const head = hb.bytes;
      const nVars = key.header.nVars;
      const wantA = randomisedSum(g1, g1.fromLem(head, 0), pointsA.bytes, witness, nVars, leToBigint(r), g1.fromLem(head, 2 * g1.bytes + g2.bytes));
      assert.ok(g1.eq(g1.fromLem(proofs[0]!, 0), wantA), 'pi_a is not alpha1 + A·w + r·delta1');
      const wantB = randomisedSum(g2, g2.fromLem(head, 2 * g1.bytes), pointsB2.bytes, witness, nVars, leToBigint(s), g2.fromLem(head, 3 * g1.bytes + g2.bytes));
      assert.ok(g2.eq(g2.fromLem(proofs[0]!, g1.bytes), wantB), 'pi_b is not beta2 + B2·w + s·delta2');
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
        // a GPU synthesizes on the device: it takes no A‖B; the CPU core needs phase 1's
        await assert.rejects(z.proveAb(witness, ab.bytes, 0, r, s, out), (e: CuzkError) => e.code === 'E_INVALID_ARG' && /pass no A‖B buffer/.test(e.message));
        await assert.rejects(z.proveAb(witness, null, -1, r, s, out), (e: CuzkError) => e.code === 'E_INVALID_ARG' && /needs the A‖B buffer/.test(e.message));
        await assert.rejects(z.proveAb(witness.subarray(32), null, 0, r, s, out), /witness has/);
        if (gpuCount() === 0) await assert.rejects(z.proveAb(witness, null, 0, r, s, out), (e: CuzkError) => e.code === 'E_NO_DEVICE');
        await assert.rejects(z.proveAb(witness, null, gpuCount(), r, s, out), (e: CuzkError) => e.code === 'E_NO_DEVICE');
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
