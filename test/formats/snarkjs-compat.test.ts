// Cross-checks against snarkjs 0.7.6 itself: a tiny circuit goes through our r1cs/wtns writers, a real
// (contributed) ptau and zkey from snarkjs, and a snarkjs proof; our readers must agree with snarkjs on every
// value, and snarkjs must accept what our writers produce. ~5 s per curve. Real files in test/vectors/, when
// present, are opened with our readers too.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
// @ts-ignore -- snarkjs ships no type declarations
import * as snarkjs from 'snarkjs';
import { BinFile } from '../../src/formats/binfile.js';
import { BN128, curveByName, type CurveName } from '../../src/formats/curves.js';
import { decodeG2 } from '../../src/formats/lem.js';
import { parseProofJson, parsePublicJson, proofToJson } from '../../src/formats/proof-json.js';
import { readR1cs, writeR1cs, type R1csInput } from '../../src/formats/r1cs.js';
import { parseVkeyJson, verificationKeyFromZkey, vkeyToJson, type Fp12 } from '../../src/formats/vkey-json.js';
import { WtnsFile, checkWitnessMatchesKey, writeWtns } from '../../src/formats/wtns.js';
import { ZKEY_BIG_SECTIONS, ZkeyFile } from '../../src/formats/zkey.js';
import { coefRecords, encodeZkey, writeZkey, type CoefRecord, type ZkeyInput } from '../../src/formats/zkey-write.js';

const sj = snarkjs as any;

// out = (x·y + 1)·x; wires 0 = 1, 1 = out, 2 = x (public input), 3 = y (private), 4 = t = x·y.
function circuit(prime: bigint): R1csInput {
  return {
    prime, nWires: 5, nPubOut: 1, nPubIn: 1, nPrvIn: 1,
    constraints: [
      [[[2, 1n]], [[3, 1n]], [[4, 1n]]],
      [[[4, 1n], [0, 1n]], [[2, 1n]], [[1, 1n]]],
    ],
  };
}
const WITNESS = [1n, 48n, 3n, 5n, 15n];

for (const curve of ['bn128', 'bls12381'] as CurveName[]) {
  describe(`snarkjs compatibility (${curve})`, () => {
    const info = curveByName(curve)!;
    let dir = '';
    const f = (name: string) => path.join(dir, name);
    let vk: any;
    let proof: any;
    let publicSignals: string[];

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), `cuzk-snarkjs-${curve}-`));
      writeR1cs(f('c.r1cs'), circuit(info.r));
      writeWtns(f('w.wtns'), info.r, WITNESS);
      await sj.powersOfTau.newAccumulator(await sj.curves.getCurveFromName(curve), 3, f('p0.ptau'));
      await sj.powersOfTau.contribute(f('p0.ptau'), f('p1.ptau'), 'one', 'entropy one');
      await sj.powersOfTau.preparePhase2(f('p1.ptau'), f('pf.ptau'));
      await sj.zKey.newZKey(f('c.r1cs'), f('pf.ptau'), f('c0.zkey'));
      await sj.zKey.contribute(f('c0.zkey'), f('c1.zkey'), 'two', 'entropy two');
      vk = await sj.zKey.exportVerificationKey(f('c1.zkey'));
      ({ proof, publicSignals } = await sj.groth16.prove(f('c1.zkey'), f('w.wtns')));
    });

    after(async () => {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
      await (await sj.curves.getCurveFromName(curve)).terminate();
    });

    it('snarkjs reads our r1cs and wtns, and finds the witness satisfies the r1cs', async () => {
      assert.equal(await sj.wtns.check(f('c.r1cs'), f('w.wtns')), true);
      assert.deepEqual(await sj.wtns.exportJson(f('w.wtns')), WITNESS);
      const j = await sj.r1cs.exportJson(f('c.r1cs'));
      assert.deepEqual([j.prime, j.nVars, j.nOutputs, j.nPubInputs, j.nPrvInputs, j.nLabels], [info.r.toString(), 5, 1, 1, 1, 5]);
      const asObjects = circuit(info.r).constraints.map((c) => c.map((lc) => Object.fromEntries(lc.map(([w, v]) => [w, v.toString()]))));
      assert.deepEqual(j.constraints, asObjects);
      assert.equal(readR1cs(f('c.r1cs')).header.nConstraints, 2);
    });

    it('reads snarkjs zkeys in both section orders, with the header snarkjs reports', () => {
      for (const name of ['c0.zkey', 'c1.zkey']) {
        const z = ZkeyFile.open(f(name));
        try {
          const h = z.header;
          assert.deepEqual([h.curve, h.nVars, h.nPublic, h.domainSize, h.n8q], [curve, 5, 2, 8, info.n8q]);
          for (const s of ZKEY_BIG_SECTIONS) assert.equal(z.read(s).length, z.sectionBytes(s));
          const w = WtnsFile.open(f('w.wtns'));
          checkWitnessMatchesKey(w.header, h);
          w.close();
        } finally {
          z.close();
        }
      }
    });

    it('decodes LEM points exactly as snarkjs: our verification_key.json equals snarkjs export', () => {
      const z = ZkeyFile.open(f('c1.zkey'));
      try {
        const ours = verificationKeyFromZkey(z.header, z.read('IC'));
        const ab = parseVkeyJson(vk).alphabeta12 as Fp12;
        assert.deepEqual(vkeyToJson(ours, ab), JSON.parse(JSON.stringify(vk)));
        if (curve === 'bn128') {
          // gamma is never randomised: it is the G2 generator (reference §2.6).
          assert.deepEqual(decodeG2(z.header.gamma2, BN128), {
            x: [10857046999023057135944570762232829481370756359578518086990519993285655852781n, 11559732032986387107991004021392285783925812861821192530917403151452391805634n],
            y: [8495653923123431417604973247489272438418190587263600148770280649306958101930n, 4082367875863433681332203403145435568316851327593401208105741076214120093531n],
          });
        }
      } finally {
        z.close();
      }
    });

    it('coefficient records are the r1cs A/B entries plus public rows, stored as v·R² mod r', () => {
      const z = ZkeyFile.open(f('c0.zkey'));
      const records = z.read('coefs');
      z.close();
      const expected: CoefRecord[] = [];
      circuit(info.r).constraints.forEach(([a, b], i) => {
        for (const [signal, value] of a) expected.push({ matrix: 0, constraint: i, signal, value });
        for (const [signal, value] of b) expected.push({ matrix: 1, constraint: i, signal, value });
      });
      for (let s = 0; s <= 2; s++) expected.push({ matrix: 0, constraint: 2 + s, signal: s, value: 1n });
      const split = (b: Uint8Array) => Array.from({ length: b.length / 44 }, (_, i) => Buffer.from(b.subarray(i * 44, i * 44 + 44)).toString('hex')).sort();
      assert.deepEqual(split(records), split(coefRecords(curve, expected)));
    });

    it('parses snarkjs proof.json and public.json and writes them back identically', async () => {
      const parsed = parseProofJson(JSON.stringify(proof));
      assert.deepEqual(proofToJson(parsed), JSON.parse(JSON.stringify(proof)));
      assert.deepEqual(parsePublicJson(publicSignals, { curve, nPublic: 2 }), [48n, 3n]);
      assert.equal(await sj.groth16.verify(vk, publicSignals, proofToJson(parsed)), true);
    });

    it('our zkey writer reproduces snarkjs bytes, and snarkjs proves with a key we wrote', async () => {
      const z = ZkeyFile.open(f('c1.zkey'));
      const bin = BinFile.open(f('c1.zkey'), { magic: 'zkey', versions: [1] });
      const h = z.header;
      const input: ZkeyInput = {
        curve, nVars: h.nVars, nPublic: h.nPublic, domainSize: h.domainSize,
        alpha1: h.alpha1, beta1: h.beta1, beta2: h.beta2, gamma2: h.gamma2, delta1: h.delta1, delta2: h.delta2,
        IC: z.read('IC'), coefs: z.read('coefs'), A: z.read('A'), B1: z.read('B1'), B2: z.read('B2'), C: z.read('C'), H: z.read('H'),
        contributions: bin.readSection(10),
      };
      bin.close();
      z.close();
      assert.deepEqual(encodeZkey({ ...input, order: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }), new Uint8Array(fs.readFileSync(f('c1.zkey'))));
      writeZkey(f('ours.zkey'), input);
      const { proof: p2, publicSignals: s2 } = await sj.groth16.prove(f('ours.zkey'), f('w.wtns'));
      assert.equal(await sj.groth16.verify(vk, s2, p2), true);
    });
  });
}

describe('test/vectors', () => {
  const dir = path.resolve('test/vectors');
  const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((n) => /\.(zkey|wtns|r1cs)$/.test(n));
  it('opens every committed zkey, wtns and r1cs with our readers', () => {
    assert.ok(files.length >= 18, `expected the committed vectors, found ${files.length} files`);
    for (const name of files) {
      const p = path.join(dir, name);
      if (name.endsWith('.zkey')) {
        const z = ZkeyFile.open(p);
        z.read('coefs');
        z.close();
      } else if (name.endsWith('.wtns')) {
        const w = WtnsFile.open(p);
        w.readWitness();
        w.close();
      } else {
        readR1cs(p);
      }
    }
  });
});
