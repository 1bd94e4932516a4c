// A spawned daemon fed circuit inputs with a native witness generator (SDK `generator`): proofs
// verify with snarkjs; a bad input fails its job with one line naming the signal while the daemon
// keeps proving; a generator outside files.key_dirs / files.input_dirs is refused.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CuzkClient } from '../../src/client/index.js';
import { startDaemon, type DaemonProcess } from '../helpers/daemon.js';
import { poseidonChain, type PoseidonChain } from '../helpers/poseidon-chain.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';

const childrenOf = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
};
const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};

describe('daemon witness generators', { timeout: 600_000 }, () => {
  let ch: PoseidonChain;
  let d: DaemonProcess;
  let c: CuzkClient;
  before(async () => {
    ch = await poseidonChain();
    d = await startDaemon({ args: ['--key-dirs', ch.dir, '--input-dirs', path.dirname(ch.generator)] });
    c = new CuzkClient({ address: d.address });
  });
  after(async () => {
    c?.close();
    if (d && d.proc.exitCode === null) assert.equal(await d.stop(), 0, d.logs());
    await terminateSnarkjs();
  });

  it('inputs + a native generator prove through the SDK; a bad input fails only its job', async () => {
    const vk = JSON.parse(readFileSync(ch.vkey, 'utf8')) as unknown;
    const bad = c.prove({ key: ch.zkey, inputs: [{ in: ['1'] }], generator: ch.generator });
    const good = await Promise.all([1, 2, 3].map((k) => c.prove({ key: ch.zkey, inputs: [{ in: [String(k), '2'] }], generator: ch.generator })));
    for (const j of good) {
      assert.equal(j.state, 'completed', j.error?.message);
      assert.ok(await snarkjsVerify(vk, j.proofs![0]!.publicSignals, j.proofs![0]!.proof));
    }
    const b = await bad;
    assert.equal(b.state, 'failed');
    assert.match(b.error!.message, /input signal "in" takes 2 values, got 1/);
    const st = await c.status();
    assert.equal(st.backend, 'cpu');
    // the witness stage in GetStatus: 3 computed, the bad one failed, nothing computing now
    assert.ok(st.witness, 'GetStatus has the witness stage');
    assert.deepEqual({ done: st.witness.done, failed: st.witness.failed, busy: st.witness.busy }, { done: 3, failed: 1, busy: 0 });
    assert.ok(st.witness.totalMs > 0 && st.witness.slots >= 1);
  });

  it('a generator killed mid-witness fails only its job; the daemon proves the next; its witness folder is left empty', async () => {
    const vk = JSON.parse(readFileSync(ch.vkey, 'utf8')) as unknown;
    const generators = () => childrenOf(d.proc.pid!).filter((p) => cmdline(p).includes(path.basename(ch.generator)));
    const { job } = await c.submit({ key: ch.zkey, inputs: [ch.input, ch.input, ch.input, ch.input], generator: ch.generator });
    // mid-witness by construction: a generator process with a forked child is computing one
    let killed: number | undefined;
    for (let t = 0; t < 3000 && killed === undefined; t++) {
      for (const pid of generators()) if (childrenOf(pid).length > 0) { process.kill(pid, 'SIGKILL'); killed = pid; break; }
      if (killed === undefined) await new Promise((r) => setTimeout(r, 2));
    }
    assert.ok(killed, 'never saw a generator mid-witness');
    let info = job;
    while (info.state === 'queued' || info.state === 'running') info = await c.await(info.id);
    assert.equal(info.state, 'failed');
    assert.match(info.error!.message, /the witness generator was killed \(SIGKILL\)/);
    assert.ok(!info.error!.message.includes('\n'), info.error!.message);
    const next = await c.prove({ key: ch.zkey, inputs: [{ in: ['5', '6'] }], generator: ch.generator });
    assert.equal(next.state, 'completed', next.error?.message);
    assert.ok(await snarkjsVerify(vk, next.proofs![0]!.publicSignals, next.proofs![0]!.proof));
    assert.ok(!generators().includes(killed), 'the killed generator was replaced');
    const dir = path.join(d.dataDir, 'witness-gen');
    assert.ok(existsSync(dir), 'native generators write into <data_dir>/witness-gen');
    assert.deepEqual(readdirSync(dir), [], 'no witness is kept after its job');
  });
});
