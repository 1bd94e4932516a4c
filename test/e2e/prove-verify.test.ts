// End to end on real circom circuits with snarkjs-made keys (both curves): cuzk's proofs verify
// with snarkjs and with cuzk; snarkjs's proofs verify with cuzk; tampered proofs and wrong public
// inputs are rejected by both; a witness that violates a constraint never yields a proof.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { parseProofJson, parsePublicJson, proofToJson, publicToJson } from '../../src/formats/proof-json.js';
import { parseVkeyJson } from '../../src/formats/vkey-json.js';
import { WtnsFile } from '../../src/formats/wtns.js';
import { proveWithKey } from '../../src/engine/prover.js';
import { ProvingKey } from '../../src/engine/proving-key.js';
import { verifyGroth16 } from '../../src/engine/verifier.js';
import { readJson, vectorFile, vectorSets } from '../helpers/vectors.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';

after(terminateSnarkjs);

for (const set of vectorSets()) {
  describe(`${set.curve}/${set.circuit}`, () => {
    const vkJson = readJson(set, 'vkey.json');
    const vk = parseVkeyJson(vkJson);

    it('proves with cuzk; snarkjs and cuzk both accept the proof', async () => {
      const key = await ProvingKey.load(vectorFile(set, 'circuit.zkey'));
      try {
        for (const w of ['witness.wtns', ...(set.hasInput2 ? ['witness2.wtns'] : [])]) {
          const wtns = WtnsFile.open(vectorFile(set, w));
          const res = await proveWithKey(key, wtns.readWitness(), {}, wtns.header);
          wtns.close();
          const expectedPublic = readJson(set, w === 'witness.wtns' ? 'public.json' : 'public2.json');
          assert.deepEqual(publicToJson(res.publicSignals), expectedPublic);
          assert.equal(await snarkjsVerify(vkJson, publicToJson(res.publicSignals), proofToJson(res.proof)), true, 'snarkjs rejects our proof');
          assert.equal(verifyGroth16(vk, res.publicSignals, res.proof), true);
          // tampering: another public input, a negated A, swapped A and C
          const pub2 = [...res.publicSignals];
          pub2[0] = (pub2[0]! + 1n) % (set.curve === 'bn128' ? 21888242871839275222246405745257275088548364400416034343698204186575808495617n : 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n);
          assert.equal(verifyGroth16(vk, pub2, res.proof), false);
          assert.equal(await snarkjsVerify(vkJson, publicToJson(pub2), proofToJson(res.proof)), false);
          const q = set.curve === 'bn128' ? 21888242871839275222246405745257275088696311157297823662689037894645226208583n : 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn;
          const negA = { ...res.proof, a: { x: res.proof.a!.x, y: q - res.proof.a!.y } };
          assert.equal(verifyGroth16(vk, res.publicSignals, negA), false);
          assert.equal(await snarkjsVerify(vkJson, publicToJson(res.publicSignals), proofToJson(negA)), false);
          const swapped = { ...res.proof, a: res.proof.c, c: res.proof.a };
          assert.equal(verifyGroth16(vk, res.publicSignals, swapped), false);
        }
      } finally {
        key.release();
      }
    });

    it("accepts snarkjs's own proof and rejects it with the other input's public signals", () => {
      const proof = parseProofJson(readJson(set, 'proof.json'));
      const pub = parsePublicJson(readJson(set, 'public.json'), { curve: set.curve });
      assert.equal(verifyGroth16(vk, pub, proof), true);
      if (set.hasInput2) {
        const pub2 = parsePublicJson(readJson(set, 'public2.json'), { curve: set.curve });
        assert.notDeepEqual(pub2, pub);
        assert.equal(verifyGroth16(vk, pub2, proof), false);
      }
    });

    it('refuses to return a proof for a witness that violates a constraint', { skip: !set.hasBadWitness && 'no bad witness in this set' }, async () => {
      const key = await ProvingKey.load(vectorFile(set, 'circuit.zkey'));
      const wtns = WtnsFile.open(vectorFile(set, 'witness_bad.wtns'));
      try {
        await assert.rejects(proveWithKey(key, wtns.readWitness(), {}, wtns.header), (e: unknown) => e instanceof CuzkError && e.code === 'E_PROOF_INVALID');
        // without our verify-before-return the proof comes out, and snarkjs rejects it too
        const res = await proveWithKey(key, wtns.readWitness(), { skipVerify: true }, wtns.header);
        assert.equal(await snarkjsVerify(vkJson, publicToJson(res.publicSignals), proofToJson(res.proof)), false);
      } finally {
        wtns.close();
        key.release();
      }
    });
  });
}
