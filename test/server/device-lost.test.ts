// A daemon whose only device is lost: a `cuzk serve` child on the CPU core with the native hook
// armed (CUZK_TEST_FAIL_NEXT, test/helpers/cuzk-child.ts) so its first proof fails with
// E_DEVICE_LOST. The job fails with that code, GetStatus and `cuzk status` show the lane unhealthy
// with the reason, /metrics says cuzk_device_healthy 0, /readyz answers 503, and a new job is refused
// with E_NO_DEVICE (503 on Connect) in one line; the daemon stays up and stops cleanly.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { CuzkClient } from '../../src/client/index.js';
import { removeDataDir, runChild, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { rejects } from '../helpers/rejects.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const mult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const request = () => ({ key: vectorFile(mult, 'circuit.zkey'), witnesses: [new Uint8Array(readFileSync(vectorFile(mult, 'witness.wtns')))] });

let d: DaemonProcess;
let sdk: CuzkClient;
before(async () => {
  d = await startDaemon({ args: vectorDirArgs(), env: { CUZK_TEST_FAIL_NEXT: 'E_DEVICE_LOST' } });
  sdk = new CuzkClient({ address: d.address });
});
after(async () => {
  assert.equal(await d.stop('SIGTERM'), 0, d.logs());
  removeDataDir(d.dataDir);
});

describe('cuzk serve: the only device lost', { timeout: 120_000 }, () => {
  it('the job fails with E_DEVICE_LOST; status, metrics and /readyz say the device is unhealthy; new jobs are refused', async () => {
    assert.equal((await fetch(`${d.url}/readyz`)).status, 200);
    const job = await sdk.prove(request());
    assert.equal(job.state, 'failed');
    assert.equal(job.error?.code, 'E_DEVICE_LOST');
    assert.match(job.error!.message, /injected by cuzk_debug_fail_next/);

    const st = await sdk.status();
    assert.deepEqual(st.devices.map((x) => [x.id, x.healthy]), [['cpu', false]]);
    assert.match(st.devices[0]!.unhealthyReason!, /CUZK_E_DEVICE_LOST injected/);
    const cli = await runChild(['status', '--remote', d.address]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /device cpu: .*, unhealthy: cuzk_groth16_prove_ab: CUZK_E_DEVICE_LOST injected/);

    assert.match(await (await fetch(`${d.url}/metrics`)).text(), /cuzk_device_healthy\{device="cpu"\} 0/);
    const ready = await fetch(`${d.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.match(((await ready.json()) as { reason: string }).reason, /^no healthy device: cpu: .*injected/);

    const refused = await rejects(sdk.submit(request()), 'E_NO_DEVICE');
    assert.match(refused.message, /no healthy device lane is left \(cpu: .*\): this engine runs no more proofs/);
    const connect = await fetch(`${d.url}/cuzk.v1.ProvingService/SubmitProof`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: vectorFile(mult, 'circuit.zkey'), witnessFiles: [vectorFile(mult, 'witness.wtns')] }),
    });
    assert.equal(connect.status, 503);
    assert.equal(connect.headers.get('cuzk-error-code'), 'E_NO_DEVICE');
    assert.equal(d.logs().split('\n').filter((l) => /marked unhealthy/.test(l)).length, 1, 'one line when the lane is marked');
  });
});
