// `cuzk witness build` / `cuzk witness calc` / `cuzk fullprove` with a native generator, on a real
// circomlib circuit (a Poseidon(2) chain compiled with circom2 at test time): the native witness is
// byte-identical to `snarkjs wtns calculate`'s, fullprove's proof verifies with snarkjs, and bad
// generators and toolchains are one-line errors naming the file or the package.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/capture.js';
import { poseidonChain, type PoseidonChain } from '../helpers/poseidon-chain.js';
import { sj, snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';

interface SnarkjsWtns { wtns: { calculate(input: unknown, wasm: string, out: string): Promise<void> } }

describe('cuzk witness', { timeout: 600_000 }, () => {
  let c: PoseidonChain;
  let dir: string;
  before(async () => {
    c = await poseidonChain();
    dir = mkdtempSync(path.join(tmpdir(), 'cuzk-witness-cli-'));
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await terminateSnarkjs();
  });

  it('calc: byte-identical to snarkjs wtns calculate with the circuit wasm, for every spelling of a value', async () => {
    const inputs = [c.input, { in: [0, 5] }, { in: ['-1', '0x1f'] }, { in: ['21888242871839275222246405745257275088548364400416034343698204186575808495616', '0b101'] }];
    for (const [k, input] of inputs.entries()) {
      const inPath = path.join(dir, `in${k}.json`);
      writeFileSync(inPath, JSON.stringify(input));
      const ref = path.join(dir, `ref${k}.wtns`), out = path.join(dir, `native${k}.wtns`), viaWasm = path.join(dir, `wasm${k}.wtns`);
      await (sj as unknown as SnarkjsWtns).wtns.calculate(input, c.wasm, ref);
      const r = await runCli(['witness', 'calc', c.generator, inPath, out]);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(readFileSync(out).equals(readFileSync(ref)), `input ${k}: native .wtns differs from snarkjs's`);
      assert.equal((await runCli(['witness', 'calc', c.wasm, inPath, viaWasm])).code, 0);
      assert.ok(readFileSync(viaWasm).equals(readFileSync(ref)), `input ${k}: wasm .wtns differs from snarkjs's`);
    }
  });

  it('fullprove takes a native generator or the wasm; both proofs verify with snarkjs', async () => {
    const vk = JSON.parse(readFileSync(c.vkey, 'utf8')) as unknown;
    const inPath = path.join(dir, 'input.json');
    writeFileSync(inPath, JSON.stringify(c.input));
    const times: Record<string, number> = {};
    for (const gen of [c.generator, c.wasm]) {
      const proof = path.join(dir, 'proof.json'), pub = path.join(dir, 'public.json');
      const r = await runCli(['fullprove', inPath, gen, c.zkey, proof, pub, '--json']);
      assert.equal(r.code, 0, r.stderr);
      times[gen] = (JSON.parse(r.stdout) as { witnessMs: number }).witnessMs;
      assert.ok(await snarkjsVerify(vk, JSON.parse(readFileSync(pub, 'utf8')), JSON.parse(readFileSync(proof, 'utf8'))), `${gen}: proof does not verify`);
    }
    console.log(`fullprove witness, ${c.n} hashes: native ${times[c.generator]!.toFixed(0)} ms, wasm ${times[c.wasm]!.toFixed(0)} ms`);
  });

  it('bad inputs and bad generators: one line naming the signal or the file, exit 2, no output left', async () => {
    const cases: [unknown, RegExp][] = [
      [{ in: ['1'] }, /input signal "in" takes 2 values, got 1/],
      [{ in: ['1', '2'], extra: 3 }, /input signal "extra": the circuit has no such input/],
      [{}, /input signal "in" is missing/],
      [{ in: ['1', 'abc'] }, /input signal "in\[1\]": "abc" is not an integer/],
      [{ in: ['21888242871839275222246405745257275088548364400416034343698204186575808495617', '1'] }, /input signal "in\[0\]": .* is not below the field modulus/],
      [{ in: ['1', '7'] }, /fails a circuit assertion: Failed assert in template\/function Chain/],
    ];
    for (const [input, re] of cases) {
      const inPath = path.join(dir, 'bad.json'), out = path.join(dir, 'bad.wtns');
      writeFileSync(inPath, JSON.stringify(input));
      const r = await runCli(['witness', 'calc', c.generator, inPath, out]);
      assert.equal(r.code, 2, `${JSON.stringify(input)}: ${r.stderr}`);
      assert.match(r.stderr, re);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.throws(() => readFileSync(out), /ENOENT/);
    }
    const inPath = path.join(dir, 'good.json');
    writeFileSync(inPath, JSON.stringify(c.input));
    const truncated = path.join(dir, 'truncated.gen');
    copyFileSync(c.generator, truncated);
    truncateSync(truncated, 100_000);
    let r = await runCli(['witness', 'calc', truncated, inPath, path.join(dir, 't.wtns')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /truncated\.gen: a native witness generator without its circuit trailer \(truncated/);
    writeFileSync(truncated, 'not a generator');
    r = await runCli(['witness', 'calc', truncated, inPath, path.join(dir, 't.wtns')]);
    assert.match(r.stderr, /truncated\.gen: not a witness generator/);
    r = await runCli(['witness', 'build', path.join(dir, 'no-such_cpp'), path.join(dir, 'x.gen')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no-such_cpp: no such folder/);
  });

  it('build names the Debian package of a missing tool', async () => {
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent';
    let r;
    try {
      r = await runCli(['witness', 'build', c.cppDir, path.join(dir, 'x.gen')]);
    } finally {
      process.env.PATH = saved;
    }
    assert.equal(r.code, 2);
    assert.match(r.stderr, /needs g\+\+ \(g\+\+\), nasm \(nasm\): install with `apt-get install g\+\+ nasm`/);
  });
});
