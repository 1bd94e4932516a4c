// A spawned daemon fed circuit inputs with a native witness generator (SDK `generator`): proofs
// verify with snarkjs; a bad input fails its job with one line naming the signal while the daemon
// keeps proving; a generator outside files.key_dirs / files.input_dirs is refused.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CuzkClient } from '../../src/client/index.js';
import { startDaemon, type DaemonProcess } from '../helpers/daemon.js';
import { poseidonChain, type PoseidonChain } from '../helpers/poseidon-chain.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';

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
});
