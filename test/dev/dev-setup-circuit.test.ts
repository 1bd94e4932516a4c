// devSetupCircuit, dev-setup's one-step road: the key and witness of a dev circuit made as the key is, with no
// .r1cs. Its bytes must be the two-step road's (devCircuit then devSetup, same seed) at sizes of several
// segments, made on worker threads or on this thread alike; its key proves with ours and with snarkjs and
// verifies with snarkjs; a failure part-way leaves neither file; the CLI runs it with a progress bar.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
// @ts-ignore -- snarkjs ships no type declarations
import * as snarkjs from 'snarkjs';
import { devCircuit } from '../../src/dev/dev-circuit.js';
import { devSetup, devSetupCircuit } from '../../src/dev/dev-setup.js';
import { segmentCount } from '../../src/dev/gadgets.js';
import type { CurveName } from '../../src/formats/curves.js';
import { runCli } from '../helpers/capture.js';
import { useTmpDir } from '../helpers/tmp.js';

const sj = snarkjs as any;
const quiet = { info() {}, warn() {}, debug() {}, error() {} };
const SEGMENT = 97; // a prime: segments end inside gadgets' natural sizes and mid-window

for (const curve of ['bn128', 'bls12381'] as CurveName[]) {
  describe(`devSetupCircuit (${curve})`, () => {
    const dir = useTmpDir('cuzk-devsetup1-');
    const f = (name: string) => path.join(dir(), name);
    after(async () => {
      await (await sj.curves.getCurveFromName(curve)).terminate();
    });

    it('writes the bytes of dev-circuit + dev-setup (same seed), in worker threads or not; snarkjs and cuzk prove, snarkjs verifies', async () => {
      const constraints = 1021; // a 2^10 domain
      const circuit = { constraints, curve, seed: 'same', segmentConstraints: SEGMENT };
      assert.ok(segmentCount(circuit) > 10);
      const two = await devCircuit({ ...circuit, r1csPath: f('c.r1cs'), wtnsPath: f('two.wtns'), workers: 2 });
      await devSetup({ r1csPath: f('c.r1cs'), zkeyPath: f('two.zkey'), seed: 'same' });
      assert.equal(await sj.wtns.check(f('c.r1cs'), f('two.wtns'), quiet), true);
      const phases = new Map<string, number[]>();
      const one = await devSetupCircuit({
        ...circuit, zkeyPath: f('one.zkey'), wtnsPath: f('one.wtns'), workers: 2,
        onProgress: (phase, done) => phases.set(phase, [...(phases.get(phase) ?? []), done]),
      });
      assert.deepEqual(fs.readFileSync(f('one.zkey')), fs.readFileSync(f('two.zkey')), 'the keys are byte-identical');
      assert.deepEqual(fs.readFileSync(f('one.wtns')), fs.readFileSync(f('two.wtns')), 'the witnesses are byte-identical');
      assert.deepEqual(one.circuit, two);
      assert.deepEqual([one.domainSize, one.nVars, one.nConstraints], [1024, constraints + 4, constraints]);
      const made = phases.get('constraints')!;
      assert.equal(made.length, segmentCount(circuit));
      assert.deepEqual(made, [...made].sort((a, b) => a - b), 'constraint progress only grows');
      assert.equal(made.at(-1), constraints);
      assert.deepEqual([...phases.keys()].sort(), ['A', 'B1', 'B2', 'C', 'H', 'IC', 'constraints']);

      await devSetupCircuit({ ...circuit, zkeyPath: f('inline.zkey'), wtnsPath: f('inline.wtns'), workers: 0 });
      assert.deepEqual(fs.readFileSync(f('inline.zkey')), fs.readFileSync(f('one.zkey')), 'this thread makes the same key');
      assert.deepEqual(fs.readFileSync(f('inline.wtns')), fs.readFileSync(f('one.wtns')));

      // ours: `cuzk prove` verifies before it writes; then snarkjs verifies that proof, and its own
      const r = await runCli(['prove', f('one.zkey'), f('one.wtns'), f('proof.json'), f('public.json'), '--quiet']);
      assert.equal(r.code, 0, r.stderr);
      const vk = await sj.zKey.exportVerificationKey(f('one.zkey'));
      const readJson = (p: string) => JSON.parse(fs.readFileSync(p, 'utf8'));
      assert.deepEqual(readJson(f('public.json')), one.circuit.publicSignals);
      assert.equal(await sj.groth16.verify(vk, readJson(f('public.json')), readJson(f('proof.json'))), true);
      const { proof, publicSignals } = await sj.groth16.prove(f('one.zkey'), f('one.wtns'));
      assert.equal(await sj.groth16.verify(vk, publicSignals, proof), true);
      publicSignals[1] = (BigInt(publicSignals[1]) + 1n).toString();
      assert.equal(await sj.groth16.verify(vk, publicSignals, proof), false);
    });
  });
}

describe('devSetupCircuit failures', () => {
  const dir = useTmpDir('cuzk-devsetup1-');
  const f = (name: string) => path.join(dir(), name);

  it('a failure part-way (after the witness is written) leaves neither the key nor the witness', async () => {
    let calls = 0;
    const batchMul = () => {
      if (++calls > 3) throw new Error('injected batchMul failure');
    };
    await assert.rejects(
      devSetupCircuit({ constraints: 300, curve: 'bn128', zkeyPath: f('k.zkey'), wtnsPath: f('k.wtns'), seed: 1, batchMul, segmentConstraints: 64, workers: 1 }),
      /injected batchMul failure/,
    );
    assert.deepEqual(fs.readdirSync(dir()), []);
  });

  it('refuses bad sizes and curves before writing anything (E_INVALID_ARG)', async () => {
    for (const constraints of [0, 2.5, 2 ** 28 + 1]) {
      await assert.rejects(devSetupCircuit({ constraints, curve: 'bn128', zkeyPath: f('k.zkey'), wtnsPath: f('k.wtns') }), { code: 'E_INVALID_ARG' });
    }
    await assert.rejects(devSetupCircuit({ constraints: 8, curve: 'p256' as CurveName, zkeyPath: f('k.zkey'), wtnsPath: f('k.wtns') }),
      { code: 'E_INVALID_ARG', message: /unknown curve "p256"/ });
    // wires past one array (4 GiB of QAP sums): one line, before the circuit is made
    await assert.rejects(devSetupCircuit({ constraints: 2 ** 27, curve: 'bls12381', zkeyPath: f('k.zkey'), wtnsPath: f('k.wtns') }),
      { code: 'E_INVALID_ARG', message: /134217732 wires need 4294967424 bytes in one array/ });
    assert.deepEqual(fs.readdirSync(dir()), []);
  });
});

describe('cuzk dev-setup --constraints', () => {
  const dir = useTmpDir('cuzk-devsetup1-');
  const f = (name: string) => path.join(dir(), name);

  it('writes the key and witness of dev-circuit + dev-setup, with progress on a terminal', async () => {
    const r = await runCli(['dev-setup', '--constraints', '253', '--curve', 'bls12381', '--seed', 's', f('k.zkey'), f('k.wtns')], { tty: true });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^wrote .*k\.zkey \(INSECURE dev key, a 2\^8 domain\) and .*k\.wtns \(257 wires, \d+ values 0\/1\) for 253 constraints in [\d.]+ s \(constraints [\d.]+, IC [\d.]+, A [\d.]+, B1 [\d.]+, B2 [\d.]+, C [\d.]+, H [\d.]+ s\)$/m);
    assert.match(r.stderr, /INSECURE/);
    assert.match(r.stderr, /constraints +\[#{24}\] 100%/);
    assert.match(r.stderr, /B2 +\[#{24}\] 100%/);
    for (const args of [['dev-circuit', '--constraints', '253', '--curve', 'bls12381', '--seed', 's', f('c.r1cs'), f('c.wtns')], ['dev-setup', f('c.r1cs'), f('c.zkey'), '--seed', 's']]) {
      const s = await runCli([...args, '--quiet']);
      assert.equal(s.code, 0, s.stderr);
    }
    assert.deepEqual(fs.readFileSync(f('k.zkey')), fs.readFileSync(f('c.zkey')));
    assert.deepEqual(fs.readFileSync(f('k.wtns')), fs.readFileSync(f('c.wtns')));
    assert.deepEqual(fs.readdirSync(dir()).sort(), ['c.r1cs', 'c.wtns', 'c.zkey', 'k.wtns', 'k.zkey']);
  });

  it('bad arguments are one line each, exit 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['dev-setup', '--curve', 'bn128', f('c.r1cs'), f('k.zkey')], /--curve goes with --constraints/],
      [['dev-setup', '--constraints', '8', f('k.zkey')], /dev-setup needs <out\.zkey> <out\.wtns> with --constraints/],
      [['dev-setup', '--constraints', 'x', f('k.zkey'), f('k.wtns')], /--constraints must be an integer 1\.\.2\^28, got x/],
      [['dev-setup', '--constraints', '8', '--curve', 'bn256', f('k.zkey'), f('k.wtns')], /--curve must be bn128 or bls12381, got bn256/],
      [['dev-setup', '--constraints', '5', f('k.zkey'), path.join(dir(), 'none', 'k.wtns')], /witness/],
    ];
    for (const [args, want] of cases) {
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr.split('\n')[0]!, want);
    }
    assert.deepEqual(fs.readdirSync(dir()), []);
  });
});
