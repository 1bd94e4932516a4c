// The CLI as a user meets it: snarkjs's argument order and files, exit statuses 0/1/2, and one-line
// errors that name the file and the problem for bad input.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { runCli } from '../helpers/capture.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { vectorFile, vectorSets, type VectorSet } from '../helpers/vectors.js';

after(terminateSnarkjs);

const sets = vectorSets();
const bnPoseidon = sets.find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
const bnMult = sets.find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const blsMult = sets.find((s) => s.curve === 'bls12381' && s.circuit === 'multiplier')!;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'cuzk-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const f = (set: VectorSet, name: string) => vectorFile(set, name);
const out = (name: string) => path.join(dir, name);

describe('cuzk prove / fullprove / verify', () => {
  for (const set of [bnPoseidon, blsMult]) {
    it(`prove writes snarkjs-valid files (${set.curve}/${set.circuit}), verify says 0`, async () => {
      const r = await runCli(['prove', f(set, 'circuit.zkey'), f(set, 'witness.wtns'), out('proof.json'), out('public.json'), '--json']);
      assert.equal(r.code, 0, r.stderr);
      const summary = JSON.parse(r.stdout) as { ok: boolean; proveMs: number };
      assert.equal(summary.ok, true);
      const proof = JSON.parse(readFileSync(out('proof.json'), 'utf8'));
      const pub = JSON.parse(readFileSync(out('public.json'), 'utf8'));
      assert.deepEqual(pub, JSON.parse(readFileSync(f(set, 'public.json'), 'utf8')));
      assert.equal(proof.curve, set.curve);
      assert.equal(await snarkjsVerify(JSON.parse(readFileSync(f(set, 'vkey.json'), 'utf8')), pub, proof), true);
      const v = await runCli(['verify', f(set, 'vkey.json'), out('public.json'), out('proof.json')]);
      assert.equal(v.code, 0, v.stderr);
      assert.match(v.stdout, /OK/);
    });
  }

  it('fullprove computes the witness from input.json and the circuit wasm', async () => {
    const r = await runCli(['groth16', 'fullprove', f(bnMult, 'input2.json'), f(bnMult, 'circuit.wasm'), f(bnMult, 'circuit.zkey'), out('p.json'), out('pub.json')]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(readFileSync(out('pub.json'), 'utf8')), JSON.parse(readFileSync(f(bnMult, 'public2.json'), 'utf8')));
  });

  it('verify exits 1 for a proof checked against other public signals', async () => {
    const r = await runCli(['verify', f(bnMult, 'vkey.json'), f(bnMult, 'public2.json'), f(bnMult, 'proof.json')]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /INVALID/);
  });

  it('zkey export verificationkey matches snarkjs, alphabeta included', async () => {
    for (const set of [bnMult, blsMult]) {
      const r = await runCli(['zkey', 'export', 'verificationkey', f(set, 'circuit.zkey'), out('vk.json')]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(readFileSync(out('vk.json'), 'utf8')), JSON.parse(readFileSync(f(set, 'vkey.json'), 'utf8')));
    }
  });
});

describe('bad input: one line naming the file, exit 2, no crash', () => {
  const expectBad = async (args: string[], fileHint: string, re: RegExp) => {
    const r = await runCli(args);
    assert.equal(r.code, 2, `exit ${r.code}: ${r.stderr}`);
    const lines = r.stderr.trim().split('\n').filter((l) => l.startsWith('cuzk:'));
    assert.equal(lines.length, 1, r.stderr);
    assert.ok(lines[0]!.includes(fileHint), lines[0]);
    assert.match(lines[0]!, re);
  };

  it('truncated zkey', async () => {
    const bytes = readFileSync(f(bnPoseidon, 'circuit.zkey'));
    writeFileSync(out('t.zkey'), bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    await expectBad(['prove', out('t.zkey'), f(bnPoseidon, 'witness.wtns'), out('p'), out('q')], 't.zkey', /E_FORMAT/);
  });

  it('corrupt magic', async () => {
    const bytes = Buffer.from(readFileSync(f(bnMult, 'circuit.zkey')));
    bytes.write('zkez', 0);
    writeFileSync(out('m.zkey'), bytes);
    await expectBad(['prove', out('m.zkey'), f(bnMult, 'witness.wtns'), out('p'), out('q')], 'm.zkey', /E_FORMAT/);
  });

  it('witness of another circuit', async () => {
    await expectBad(['prove', f(bnPoseidon, 'circuit.zkey'), f(bnMult, 'witness.wtns'), out('p'), out('q')], 'witness.wtns', /another circuit/);
  });

  it('witness of another curve', async () => {
    await expectBad(['prove', f(bnMult, 'circuit.zkey'), f(blsMult, 'witness.wtns'), out('p'), out('q')], 'witness.wtns', /BLS12-381/);
  });

  it('a --memory-gpu-bytes that is not a byte count: one line naming the flag, exit 2; a valid one proves', async () => {
    for (const v of ['12GiB', '0', '-5']) {
      await expectBad(['prove', f(bnMult, 'circuit.zkey'), f(bnMult, 'witness.wtns'), out('p'), out('q'), '--memory-gpu-bytes', v], '--memory-gpu-bytes', /must be an integer/);
    }
    const r = await runCli(['prove', f(bnMult, 'circuit.zkey'), f(bnMult, 'witness.wtns'), out('pg.json'), out('qg.json'), '--memory-gpu-bytes', String(2 ** 30)]);
    assert.equal(r.code, 0, r.stderr);
  });

  it('missing file', async () => {
    await expectBad(['prove', out('nope.zkey'), f(bnMult, 'witness.wtns'), out('p'), out('q')], 'nope.zkey', /E_/);
  });

  it('malformed proof.json for verify', async () => {
    copyFileSync(f(bnMult, 'proof.json'), out('proof.json'));
    const p = JSON.parse(readFileSync(out('proof.json'), 'utf8'));
    p.pi_b[1][0] = 'abc';
    writeFileSync(out('proof.json'), JSON.stringify(p));
    await expectBad(['verify', f(bnMult, 'vkey.json'), f(bnMult, 'public.json'), out('proof.json')], 'proof.json', /pi_b/);
  });

  it('an unwritable output path: one line naming it, exit 2, before any proving', async () => {
    const zk = f(bnMult, 'circuit.zkey');
    const w = f(bnMult, 'witness.wtns');
    for (const args of [
      ['prove', zk, w, '/nonexistent/d/p.json', out('pub.json')],
      ['prove', zk, w, out('p.json'), path.join(dir, 'no', 'pub.json')],
      ['prove', zk, w, dir, out('pub.json')],
      ['fullprove', f(bnMult, 'input.json'), f(bnMult, 'circuit.wasm'), zk, '/nonexistent/d/p.json', out('pub.json')],
      ['zkey', 'export', 'verificationkey', zk, '/nonexistent/vk.json'],
    ]) {
      const bad = args.find((a) => a.startsWith('/nonexistent') || a.includes(`${path.sep}no${path.sep}`) || a === dir)!;
      const r = await runCli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.ok(r.stderr.startsWith(`cuzk: E_INVALID_ARG: ${bad}: cannot write the `), r.stderr);
      assert.doesNotMatch(r.stderr, /proving|E_INTERNAL/);
    }
    assert.throws(() => readFileSync(out('pub.json')), 'nothing written');
  });

  it('wrong argument count and unknown command', async () => {
    await expectBad(['prove', 'a'], 'prove', /E_INVALID_ARG/);
    await expectBad(['frobnicate'], 'frobnicate', /unknown command/);
  });
});

describe('a witness that violates the circuit', () => {
  it('exits 1 with E_PROOF_INVALID and writes no proof', async () => {
    const r = await runCli(['prove', f(bnPoseidon, 'circuit.zkey'), f(bnPoseidon, 'witness_bad.wtns'), out('p.json'), out('q.json')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /E_PROOF_INVALID/);
    assert.throws(() => readFileSync(out('p.json')));
  });
});
