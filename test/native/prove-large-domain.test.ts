// Proofs over dev-circuit domains above 2^12, where the CPU core's ntt_to_coset runs its high stage
// groups (the inverse DIF on the negated forward table, the forward DIT) and its fused per-block
// pass over more than one block; the test vectors' domains (up to 2^10) fit in one block. A wrong H
// evaluation fails the pairing check, so snarkjs and cuzk accepting the proof checks the whole
// transform chain; a changed public input is refused. Thread counts change the stage grouping
// (more threads: smaller blocks, one more high group), so 2^13 runs under both.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
// @ts-ignore -- snarkjs ships no type declarations
import * as snarkjs from 'snarkjs';
import { devCircuit, maxConstraintsForDomain } from '../../src/dev/dev-circuit.js';
import { devSetup } from '../../src/dev/dev-setup.js';
import { proveWithKey } from '../../src/engine/prover.js';
import { ProvingKey } from '../../src/engine/proving-key.js';
import { verifyGroth16 } from '../../src/engine/verifier.js';
import { getThreads, setThreads } from '../../src/ffi/native.js';
import type { CurveName } from '../../src/formats/curves.js';
import { proofToJson, publicToJson } from '../../src/formats/proof-json.js';
import { WtnsFile } from '../../src/formats/wtns.js';
import { terminateSnarkjs } from '../helpers/snarkjs.js';
import { useTmpDir } from '../helpers/tmp.js';

const sj = snarkjs as any;
const threads0 = getThreads();
after(async () => {
  setThreads(threads0);
  await terminateSnarkjs();
});

const CASES: [CurveName, number, number[]][] = [
  ['bn128', 13, [2, 16]],
  ['bn128', 14, [2]],
  ['bls12381', 13, [2]],
];

describe('CPU proofs above one NTT block', () => {
  const dir = useTmpDir('cuzk-large-domain-');
  for (const [curve, lg, threadCounts] of CASES) {
    it(`${curve} 2^${lg} (threads ${threadCounts.join(', ')}): snarkjs and cuzk accept, a changed public input is refused`, async () => {
      const f = (name: string) => path.join(dir(), name);
      const circuit = await devCircuit({ constraints: maxConstraintsForDomain(lg), curve, r1csPath: f('c.r1cs'), wtnsPath: f('c.wtns'), seed: lg });
      assert.equal(circuit.lgDomain, lg);
      await devSetup({ r1csPath: f('c.r1cs'), zkeyPath: f('c.zkey'), seed: 'large-domain' });
      const vkJson = await sj.zKey.exportVerificationKey(f('c.zkey'));
      const key = await ProvingKey.load(f('c.zkey'));
      const wtns = WtnsFile.open(f('c.wtns'));
      const witness = wtns.readWitness();
      wtns.close();
      try {
        assert.equal(key.header.domainSize, 2 ** lg);
        for (const t of threadCounts) {
          setThreads(t);
          const res = await proveWithKey(key, witness, { device: -1, skipVerify: true });
          assert.equal(verifyGroth16(key.vk, res.publicSignals, res.proof), true, `cuzk accepts (threads ${t})`);
          assert.equal(await sj.groth16.verify(vkJson, publicToJson(res.publicSignals), proofToJson(res.proof)), true, `snarkjs accepts (threads ${t})`);
          const pub2 = [...res.publicSignals];
          pub2[0] = (pub2[0]! + 1n) % key.header.r;
          assert.equal(verifyGroth16(key.vk, pub2, res.proof), false);
        }
      } finally {
        key.release();
        setThreads(threads0);
      }
    });
  }
});
