// devCircuit: snarkjs 0.7.6's own witness checker accepts the generated pair and rejects a corrupted
// witness; our readers parse both files; output is deterministic per seed, sized exactly, and about half 0/1.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
// @ts-ignore -- snarkjs ships no type declarations
import * as snarkjs from 'snarkjs';
import { devCircuit, maxConstraintsForDomain } from '../../src/dev/dev-circuit.js';
import { curveByName, type CurveName } from '../../src/formats/curves.js';
import { leToBigint } from '../../src/formats/lem.js';
import { r1csConstraintAt, readR1cs } from '../../src/formats/r1cs.js';
import { WtnsFile } from '../../src/formats/wtns.js';
import { useTmpDir } from '../helpers/tmp.js';

const sj = snarkjs as any;
// wtns check calls logger.warn unconditionally on failure, so it needs a logger.
const quiet = { info() {}, warn() {}, debug() {}, error() {} };

function readWitness(p: string): bigint[] {
  const f = WtnsFile.open(p);
  try {
    const bytes = f.readWitness();
    return Array.from({ length: f.header.nWitness }, (_, i) => leToBigint(bytes, 32 * i, 32));
  } finally {
    f.close();
  }
}

for (const curve of ['bn128', 'bls12381'] as CurveName[]) {
  describe(`devCircuit (${curve})`, () => {
    const dir = useTmpDir('cuzk-devcircuit-');
    const r = curveByName(curve)!.r;
    after(async () => {
      await (await sj.curves.getCurveFromName(curve)).terminate();
    });

    it('writes a pair snarkjs wtns check accepts, and a corrupted witness it rejects', async () => {
      const r1csPath = path.join(dir(), 'c.r1cs');
      const wtnsPath = path.join(dir(), 'c.wtns');
      const res = await devCircuit({ constraints: 500, curve, r1csPath, wtnsPath, seed: 11 });
      assert.equal(await sj.wtns.check(r1csPath, wtnsPath, quiet), true);

      const w = readWitness(wtnsPath);
      // Flip a value in the middle (an internal wire); every internal wire is pinned by some constraint.
      const bytes = fs.readFileSync(wtnsPath);
      const at = bytes.length - 32 * (res.nWires - 300);
      bytes[at] ^= 1;
      const badPath = path.join(dir(), 'bad.wtns');
      fs.writeFileSync(badPath, bytes);
      assert.notEqual(readWitness(badPath)[300], w[300]);
      assert.equal(await sj.wtns.check(r1csPath, badPath, quiet), false);
    });

    it('has the declared shape, public signals, and a realistic value mix', async () => {
      const r1csPath = path.join(dir(), 'c.r1cs');
      const wtnsPath = path.join(dir(), 'c.wtns');
      const n = 2000;
      const res = await devCircuit({ constraints: n, curve, r1csPath, wtnsPath, seed: 'shape' });
      const r1cs = readR1cs(r1csPath);
      assert.deepEqual(
        [r1cs.header.curve, r1cs.header.nConstraints, r1cs.header.nWires, r1cs.header.nPubOut, r1cs.header.nPubIn],
        [curve, n, res.nWires, 1, 1],
      );
      const w = readWitness(wtnsPath);
      assert.equal(w.length, res.nWires);
      assert.equal(w[0], 1n);
      assert.deepEqual(res.publicSignals, [w[1].toString(), w[2].toString()]);
      const binary = w.filter((v) => v === 0n || v === 1n).length;
      assert.equal(binary, res.nBinaryValues);
      assert.ok(binary > 0.35 * w.length && binary < 0.65 * w.length, `${binary} of ${w.length} values are 0/1`);
      const wide = w.filter((v) => v > 1n << 200n).length;
      assert.ok(wide > 0.25 * w.length, `only ${wide} full-width values`);
      // Every constraint holds over the integers mod r (independent of snarkjs), and the mix has multi-term LCs.
      const dot = (lc: ReadonlyArray<readonly [number, bigint]>) => lc.reduce((s, [wire, k]) => (s + k * w[wire]) % r, 0n);
      let multiTerm = 0;
      for (let i = 0; i < n; i++) {
        const [a, b, c] = r1csConstraintAt(r1cs.constraints, i);
        assert.equal((dot(a) * dot(b)) % r, dot(c), `constraint ${i}`);
        if (a.length >= 3) multiTerm++;
      }
      assert.ok(multiTerm > n / 10, `${multiTerm} constraints with ≥ 3 A terms`);
    });

    it('is deterministic per seed and exact in size', async () => {
      const p = (name: string) => path.join(dir(), name);
      await devCircuit({ constraints: 16, curve, r1csPath: p('a.r1cs'), wtnsPath: p('a.wtns'), seed: 5 });
      await devCircuit({ constraints: 16, curve, r1csPath: p('b.r1cs'), wtnsPath: p('b.wtns'), seed: 5 });
      await devCircuit({ constraints: 16, curve, r1csPath: p('c.r1cs'), wtnsPath: p('c.wtns'), seed: 6 });
      assert.deepEqual(fs.readFileSync(p('a.r1cs')), fs.readFileSync(p('b.r1cs')));
      assert.deepEqual(fs.readFileSync(p('a.wtns')), fs.readFileSync(p('b.wtns')));
      assert.notDeepEqual(fs.readFileSync(p('a.wtns')), fs.readFileSync(p('c.wtns')));
      const one = await devCircuit({ constraints: 1, curve, r1csPath: p('d.r1cs'), wtnsPath: p('d.wtns') });
      assert.equal(one.nConstraints, 1);
      assert.equal(await sj.wtns.check(p('d.r1cs'), p('d.wtns'), quiet), true);
    });
  });
}

describe('devCircuit arguments', () => {
  const dir = useTmpDir('cuzk-devcircuit-');

  it('rejects bad sizes and curves with E_INVALID_ARG', async () => {
    const base = { curve: 'bn128' as const, r1csPath: '/nonexistent/x.r1cs', wtnsPath: '/nonexistent/x.wtns' };
    for (const constraints of [0, 1.5, -3, 2 ** 29, NaN]) {
      await assert.rejects(devCircuit({ ...base, constraints }), { code: 'E_INVALID_ARG' });
    }
    await assert.rejects(devCircuit({ ...base, constraints: 4, curve: 'secp256k1' as CurveName }), { code: 'E_INVALID_ARG' });
  });

  it('maxConstraintsForDomain leaves room for the public rows', () => {
    assert.equal(maxConstraintsForDomain(10), 1021);
  });
});
