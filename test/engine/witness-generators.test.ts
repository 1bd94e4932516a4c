// The engine's witness stage with both kinds of generator on a real circomlib circuit (a Poseidon(2)
// chain built with circom2 at test time): proofs from inputs verify with snarkjs; every bad input is
// a failed job with one line naming the signal or the file while the other jobs complete; a
// generator killed mid-witness, a time limit and an address-space limit fail only their own job.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createEngine, type Engine } from '../../src/index.js';
import { poseidonChain, type PoseidonChain } from '../helpers/poseidon-chain.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const childrenOf = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

describe('engine witness generators', { timeout: 600_000 }, () => {
  let c: PoseidonChain;
  let e: Engine;
  let vk: unknown;
  let dir: string;
  before(async () => {
    c = await poseidonChain();
    vk = JSON.parse(readFileSync(c.vkey, 'utf8'));
    dir = mkdtempSync(path.join(tmpdir(), 'cuzk-witness-engine-'));
    process.env.CUZK_TEST_SECRET = 'not for generators';
    e = await createEngine({ backend: 'cpu', threads: 2, witness: { slots: 2, dir } });
  });
  after(async () => {
    await e.close();
    rmSync(dir, { recursive: true, force: true });
    await terminateSnarkjs();
  });

  const leftInSpool = () => readdirSync(dir).filter((f) => f.endsWith('.wtns'));

  it('proves from inputs with a native generator or the wasm (`generator`, `wasm` alias); proofs verify with snarkjs', async () => {
    const jobs = [
      e.submit({ key: c.zkey, inputs: [c.input], generator: c.generator }),
      e.submit({ key: c.zkey, inputs: [{ in: ['3', '4'] }, { in: ['5', '6'] }], generator: c.generator }),
      e.submit({ key: c.zkey, inputs: [c.input], wasm: c.wasm }),
    ];
    for (const j of jobs) {
      const info = await e.await(j.id);
      assert.equal(info.state, 'completed', info.error?.message);
      for (const p of info.proofs!) assert.ok(await snarkjsVerify(vk, p.publicSignals, p.proof));
      assert.ok((info.timings.witness ?? 0) > 0);
    }
    const w = e.status().witness!;
    assert.equal(w.slots, 2);
    assert.ok(w.done >= 4 && w.busy === 0 && w.queued === 0, JSON.stringify(w));
    assert.match(await e.metricsText(), /cuzk_witness_mean_seconds [0-9.]+/);
    assert.deepEqual(leftInSpool(), []);
  });

  it('bad inputs fail their job with one line naming the signal or the file; the other jobs complete', async () => {
    const other = vectorSets().find((s) => s.curve === 'bn128')!;
    const truncated = path.join(dir, 'truncated.gen');
    copyFileSync(c.generator, truncated);
    truncateSync(truncated, 200_000);
    const bad: [Parameters<Engine['submit']>[0], RegExp][] = [
      [{ key: c.zkey, inputs: [{ in: ['1'] }], generator: c.generator }, /input signal "in" takes 2 values, got 1/],
      [{ key: c.zkey, inputs: [{ in: ['1', '2'], x: ['1'] }], generator: c.generator }, /input signal "x": the circuit has no such input/],
      [{ key: c.zkey, inputs: [{}], generator: c.generator }, /input signal "in" is missing/],
      [{ key: c.zkey, inputs: [{ in: ['1', 'one'] }], generator: c.generator }, /input signal "in\[1\]": "one" is not an integer/],
      [{ key: c.zkey, inputs: [{ in: ['1', '21888242871839275222246405745257275088548364400416034343698204186575808495617'] }], generator: c.generator }, /input signal "in\[1\]": .* not below the field modulus/],
      [{ key: c.zkey, inputs: [{ in: ['1', '7'] }], generator: c.generator }, /fails a circuit assertion: Failed assert/],
      [{ key: vectorFile(other, 'circuit.zkey'), inputs: [c.input], generator: c.generator }, /chain\.gen: a witness generator of another circuit: it writes \d+ wires, the proving key has \d+/],
    ];
    const good = e.submit({ key: c.zkey, inputs: [c.input], generator: c.generator });
    const ids = bad.map(([req]) => e.submit(req).id);
    for (const [k, id] of ids.entries()) {
      const info = await e.await(id);
      assert.equal(info.state, 'failed', `case ${k}`);
      assert.equal(info.error!.code, 'E_INVALID_ARG', `case ${k}: ${info.error!.message}`);
      assert.match(info.error!.message, bad[k]![1]);
      assert.ok(!info.error!.message.includes('\n'), info.error!.message);
    }
    assert.throws(() => e.submit({ key: c.zkey, inputs: [c.input], generator: truncated }), /truncated\.gen: a native witness generator without its circuit trailer/);
    assert.equal((await e.await(good.id)).state, 'completed');
    assert.deepEqual(leftInSpool(), []);
  });

  it('a generator killed mid-witness fails only its job; the next job gets a fresh process', async () => {
    const job = e.submit({ key: c.zkey, inputs: [c.input, c.input, c.input, c.input], generator: c.generator });
    // mid-witness by construction: a generator process with a forked child is computing one
    let killed: number | undefined;
    let env: string[] = [];
    for (let t = 0; t < 2000 && killed === undefined; t++) {
      for (const pid of e.witnessPids()) if (childrenOf(pid).length > 0) { env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean); process.kill(pid, 'SIGKILL'); killed = pid; break; }
      if (killed === undefined) await new Promise((r) => setTimeout(r, 2));
    }
    assert.ok(killed, 'never saw a generator mid-witness');
    // a generator runs with a bare environment: none of this process's (a daemon's token) reaches it
    assert.ok(!env.some((v) => v.startsWith('CUZK_TEST_SECRET=')), env.join(' '));
    assert.ok(env.includes('GLIBC_TUNABLES=glibc.malloc.hugetlb=1'), env.join(' '));
    const info = await e.await(job.id);
    assert.equal(info.state, 'failed');
    assert.match(info.error!.message, /the witness generator was killed \(SIGKILL\)/);
    const next = await e.await(e.submit({ key: c.zkey, inputs: [c.input], generator: c.generator }).id);
    assert.equal(next.state, 'completed', next.error?.message);
    assert.ok(!e.witnessPids().includes(killed));
    assert.deepEqual(leftInSpool(), []);
  });

  it('time and address-space limits fail the job, not the engine', async () => {
    const tight = await createEngine({ backend: 'cpu', threads: 2, witness: { slots: 1, timeoutMs: 1, dir } });
    try {
      const info = await tight.await(tight.submit({ key: c.zkey, inputs: [c.input], generator: c.generator }).id);
      assert.equal(info.state, 'failed');
      assert.equal(info.error!.code, 'E_TIMEOUT', info.error!.message);
      assert.match(info.error!.message, /took longer than its limit of 1 ms/);
    } finally {
      await tight.close();
    }
    // a wasm witness past the limit: its worker is terminated, the next witness gets a fresh one
    const wasmTight = await createEngine({ backend: 'cpu', threads: 2, witness: { slots: 1, timeoutMs: 5, dir } });
    try {
      for (const k of [1, 2]) {
        const info = await wasmTight.await(wasmTight.submit({ key: c.zkey, inputs: [c.input], generator: c.wasm }).id);
        assert.equal(info.state, 'failed', `wasm job ${k}`);
        assert.equal(info.error!.code, 'E_TIMEOUT', info.error!.message);
        assert.match(info.error!.message, /took longer than its limit of 5 ms/);
      }
    } finally {
      await wasmTight.close();
    }
    const small = await createEngine({ backend: 'cpu', threads: 2, witness: { slots: 1, maxAddressSpaceBytes: 14 << 20, dir } });
    try {
      const info = await small.await(small.submit({ key: c.zkey, inputs: [c.input], generator: c.generator }).id);
      assert.equal(info.state, 'failed');
      assert.equal(info.error!.code, 'E_HOST_OOM', info.error!.message);
      assert.match(info.error!.message, /ran out of memory \(its address-space limit\)/);
    } finally {
      await small.close();
    }
    assert.deepEqual(leftInSpool(), []);
  });
});
