// devSetup end to end through snarkjs 0.7.6: export verificationkey, groth16 prove, groth16 verify → true;
// a corrupted witness or public signal → false, for dev circuits and for a real circom circuit (Poseidon). Section contents are checked against an independent
// recomputation (Lagrange by power sums, points by @noble/curves), and the native batchMul must give a
// byte-identical key to the noble multiplier for the same seed.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
// @ts-ignore -- snarkjs ships no type declarations
import * as snarkjs from 'snarkjs';
import { devCircuit } from '../../src/dev/dev-circuit.js';
import { DEV_SETUP_WARNING, devSetup, type ToxicWaste } from '../../src/dev/dev-setup.js';
import { inv, modPow, rootOfUnity, frParams } from '../../src/dev/field-bigint.js';
import { generatorBytes } from '../../src/dev/generators.js';
import { curveByName, type CurveName } from '../../src/formats/curves.js';
import { leToBigint } from '../../src/formats/lem.js';
import { r1csConstraintAt, readR1cs, type R1cs } from '../../src/formats/r1cs.js';
import { ZkeyFile } from '../../src/formats/zkey.js';
import { useTmpDir } from '../helpers/tmp.js';
import { nobleBatchMul } from './noble-batch-mul.js';

const sj = snarkjs as any;

/** Proves with snarkjs and verifies against the exported key. */
async function proveAndVerify(zkeyPath: string, wtnsPath: string, tamperPublic = false): Promise<boolean> {
  const vk = await sj.zKey.exportVerificationKey(zkeyPath);
  const { proof, publicSignals } = await sj.groth16.prove(zkeyPath, wtnsPath);
  if (tamperPublic) publicSignals[1] = (BigInt(publicSignals[1]) + 1n).toString();
  return sj.groth16.verify(vk, publicSignals, proof);
}

/** A copy of the witness with internal value `wire` changed (public signals untouched). */
function corruptWitness(wtnsPath: string, wire: number, out: string): void {
  const bytes = fs.readFileSync(wtnsPath);
  const nWitness = new DataView(bytes.buffer, bytes.byteOffset).getUint32(12 + 12 + 4 + 32, true);
  bytes[bytes.length - 32 * (nWitness - wire)] ^= 2;
  fs.writeFileSync(out, bytes);
}

/** A_j(τ), B_j(τ), C_j(τ) the slow way: L_i(τ) = (1/n)·Σ_k (τ·ω^-i)^k, plus snarkjs's public rows. */
function qapAt(r1cs: R1cs, curve: CurveName, tau: bigint, lgN: number): { a: bigint[]; b: bigint[]; c: bigint[] } {
  const { r } = frParams(curve);
  const n = 1 << lgN;
  const omegaInv = inv(rootOfUnity(frParams(curve), lgN), r);
  const nInv = inv(BigInt(n), r);
  const L = (i: number) => {
    const x = (tau * modPow(omegaInv, BigInt(i), r)) % r;
    let s = 0n;
    for (let k = 0, p = 1n; k < n; k++, p = (p * x) % r) s += p;
    return ((s % r) * nInv) % r;
  };
  const nWires = r1cs.header.nWires;
  const [a, b, c] = [0, 1, 2].map(() => new Array<bigint>(nWires).fill(0n));
  for (let i = 0; i < r1cs.header.nConstraints; i++) {
    const li = L(i);
    r1csConstraintAt(r1cs.constraints, i).forEach((lc, m) => lc.forEach(([w, k]) => ([a, b, c][m][w] = ([a, b, c][m][w] + k * li) % r)));
  }
  const nPublic = r1cs.header.nPubOut + r1cs.header.nPubIn;
  for (let s = 0; s <= nPublic; s++) a[s] = (a[s] + L(r1cs.header.nConstraints + s)) % r;
  return { a, b, c };
}

function pointOf(curve: CurveName, group: 1 | 2, k: bigint): Uint8Array {
  const info = curveByName(curve)!;
  const g = generatorBytes(info);
  const out = new Uint8Array((group === 1 ? 2 : 4) * info.n8q);
  const scalar = new Uint8Array(32);
  for (let i = 0, v = k; i < 32; i++, v >>= 8n) scalar[i] = Number(v & 0xffn);
  nobleBatchMul(curve, group, group === 1 ? g.g1 : g.g2, scalar, 1, out);
  return out;
}

function checkSections(zkeyPath: string, r1csPath: string, curve: CurveName, t: ToxicWaste): void {
  const { r } = frParams(curve);
  const z = ZkeyFile.open(zkeyPath);
  try {
    const h = z.header;
    const r1cs = readR1cs(r1csPath);
    const lgN = Math.log2(h.domainSize);
    const { a, b, c } = qapAt(r1cs, curve, t.tau, lgN);
    const sG1 = 2 * h.n8q;
    const sG2 = 4 * h.n8q;
    const at = (bytes: Uint8Array, i: number, size: number) => bytes.subarray(i * size, (i + 1) * size);
    assert.deepEqual(h.alpha1, pointOf(curve, 1, t.alpha));
    assert.deepEqual(h.gamma2, pointOf(curve, 2, t.gamma));
    assert.deepEqual(h.delta2, pointOf(curve, 2, t.delta));
    const k = (j: number) => (t.beta * a[j] + t.alpha * b[j] + c[j]) % r;
    const [A, B2, IC, C, H] = [z.read('A'), z.read('B2'), z.read('IC'), z.read('C'), z.read('H')];
    for (const j of [0, 1, 2, h.nVars - 1]) assert.deepEqual(at(A, j, sG1), pointOf(curve, 1, a[j]), `A[${j}]`);
    for (const j of [2, h.nVars - 2]) assert.deepEqual(at(B2, j, sG2), pointOf(curve, 2, b[j]), `B2[${j}]`);
    assert.deepEqual(at(IC, 1, sG1), pointOf(curve, 1, (k(1) * inv(t.gamma, r)) % r), 'IC[1]');
    const last = h.nVars - 1;
    assert.deepEqual(at(C, last - h.nPublic - 1, sG1), pointOf(curve, 1, (k(last) * inv(t.delta, r)) % r), 'C[last]');
    // H_j = L^(2n)_(2j+1)(τ)/δ = (τ^2n − 1)/(2n) · x/(τ − x)/δ with x = ω_2n^(2j+1).
    const j = 3;
    const x = modPow(rootOfUnity(frParams(curve), lgN + 1), BigInt(2 * j + 1), r);
    const h3 = ((((modPow(t.tau, BigInt(2 * h.domainSize), r) - 1n) * inv(BigInt(2 * h.domainSize), r)) % r) * x % r) *
      inv((t.tau - x + r) % r, r) % r * inv(t.delta, r) % r;
    assert.deepEqual(at(H, j, sG1), pointOf(curve, 1, h3), 'H[3]');
    // Coefficient records: A then B per constraint, value·R² mod r; then the public rows.
    const coefs = z.read('coefs');
    const v = new DataView(coefs.buffer, coefs.byteOffset);
    const r2 = (1n << 512n) % r;
    const [a0] = r1csConstraintAt(r1cs.constraints, 0);
    assert.deepEqual([v.getUint32(0, true), v.getUint32(4, true), v.getUint32(8, true)], [0, 0, a0[0][0]]);
    assert.equal(leToBigint(coefs, 12, 32), (a0[0][1] * r2) % r);
    const lastRec = coefs.length - 44;
    assert.deepEqual([v.getUint32(lastRec, true), v.getUint32(lastRec + 4, true), v.getUint32(lastRec + 8, true)],
      [0, r1cs.header.nConstraints + h.nPublic, h.nPublic]);
  } finally {
    z.close();
  }
}

for (const curve of ['bn128', 'bls12381'] as CurveName[]) {
  describe(`devSetup (${curve})`, () => {
    const dir = useTmpDir('cuzk-devsetup-');
    const f = (name: string) => path.join(dir(), name);
    after(async () => {
      await (await sj.curves.getCurveFromName(curve)).terminate();
    });

    it('makes a key snarkjs proves and verifies with, that rejects a bad witness (noble multiplier)', async () => {
      await devCircuit({ constraints: 64, curve, r1csPath: f('c.r1cs'), wtnsPath: f('c.wtns'), seed: 1 });
      const phases = new Set<string>();
      const res = await devSetup({
        r1csPath: f('c.r1cs'), zkeyPath: f('c.zkey'), seed: 'fixture', batchMul: nobleBatchMul, revealToxicWaste: true,
        onProgress: (phase) => phases.add(phase),
      });
      assert.deepEqual([res.nVars, res.nPublic, res.domainSize, res.nConstraints], [68, 2, 128, 64]);
      assert.equal(res.warning, DEV_SETUP_WARNING);
      assert.deepEqual([...phases].sort(), ['A', 'B1', 'B2', 'C', 'H', 'IC', 'constraints']);
      assert.equal(await proveAndVerify(f('c.zkey'), f('c.wtns')), true);
      assert.equal(await proveAndVerify(f('c.zkey'), f('c.wtns'), true), false);
      corruptWitness(f('c.wtns'), 40, f('bad.wtns'));
      assert.equal(await sj.wtns.check(f('c.r1cs'), f('bad.wtns'), { info() {}, warn() {}, debug() {}, error() {} }), false);
      assert.equal(await proveAndVerify(f('c.zkey'), f('bad.wtns')), false);
      checkSections(f('c.zkey'), f('c.r1cs'), curve, res.toxicWaste!);
      const z = fs.readFileSync(f('c.zkey'));
      assert.ok(z.includes(Buffer.from('INSECURE cuzk dev-setup key')), 'the key marks itself insecure');
    });

    it('native batchMul writes the same bytes as the noble multiplier, and proves at 2^8', async () => {
      await devCircuit({ constraints: 40, curve, r1csPath: f('c.r1cs'), wtnsPath: f('c.wtns'), seed: 2 });
      await devSetup({ r1csPath: f('c.r1cs'), zkeyPath: f('noble.zkey'), seed: 9, batchMul: nobleBatchMul });
      const res = await devSetup({ r1csPath: f('c.r1cs'), zkeyPath: f('native.zkey'), seed: 9 });
      assert.equal(res.toxicWaste, undefined);
      assert.deepEqual(fs.readFileSync(f('native.zkey')), fs.readFileSync(f('noble.zkey')));
      await devCircuit({ constraints: 253, curve, r1csPath: f('d.r1cs'), wtnsPath: f('d.wtns'), seed: 3 });
      const big = await devSetup({ r1csPath: f('d.r1cs'), zkeyPath: f('d.zkey') });
      assert.equal(big.domainSize, 256);
      assert.equal(await proveAndVerify(f('d.zkey'), f('d.wtns')), true);
      corruptWitness(f('d.wtns'), 200, f('bad.wtns'));
      assert.equal(await proveAndVerify(f('d.zkey'), f('bad.wtns')), false);
    });

    it('keys a real circom circuit (test/vectors poseidon): its witness verifies, its bad witness does not', async (t) => {
      const d = fileURLToPath(new URL(`../vectors/${curve}/poseidon/`, import.meta.url));
      if (!fs.existsSync(path.join(d, 'circuit.r1cs'))) return t.skip('no poseidon vector');
      const res = await devSetup({ r1csPath: path.join(d, 'circuit.r1cs'), zkeyPath: f('p.zkey'), seed: 1 });
      assert.equal(res.domainSize, 1024);
      assert.equal(await proveAndVerify(f('p.zkey'), path.join(d, 'witness.wtns')), true);
      assert.equal(await proveAndVerify(f('p.zkey'), path.join(d, 'witness_bad.wtns')), false);
    });
  });
}

describe('devSetup toxic waste', () => {
  const dir = useTmpDir('cuzk-devsetup-');
  it('is reproducible with a seed and fresh without one', async () => {
    const f = (name: string) => path.join(dir(), name);
    await devCircuit({ constraints: 8, curve: 'bn128', r1csPath: f('c.r1cs'), wtnsPath: f('c.wtns') });
    const run = (seed?: string) =>
      devSetup({ r1csPath: f('c.r1cs'), zkeyPath: f('k.zkey'), seed, batchMul: nobleBatchMul, revealToxicWaste: true }).then((x) => x.toxicWaste!);
    const [s1, s2, u1, u2] = [await run('s'), await run('s'), await run(), await run()];
    assert.deepEqual(s1, s2);
    assert.notEqual(u1.tau, u2.tau);
    assert.notEqual(s1.tau, u1.tau);
    assert.equal(new Set(Object.values(s1)).size, 5, 'τ, α, β, γ, δ distinct');
  });

  it('reports a missing r1cs as E_NOT_FOUND', async () => {
    await assert.rejects(devSetup({ r1csPath: path.join(dir(), 'none.r1cs'), zkeyPath: path.join(dir(), 'k.zkey') }), { code: 'E_NOT_FOUND' });
  });
});
