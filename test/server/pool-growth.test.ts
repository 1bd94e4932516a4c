// A daemon's pinned pool grows after it is ready, and every face shows it: GetStatus over gRPC (the
// SDK) and Connect JSON, the Prometheus metrics, and `cuzk status`. Growth is let through one chunk
// at a time by the child's CUZK_TEST_POOL_GATE (test/helpers/cuzk-child.ts), so each step is seen by
// construction; the polls below only wait for a step the test has allowed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CuzkClient } from '../../src/client/index.js';
import { removeDataDir, runChild, startDaemon, type DaemonProcess } from '../helpers/daemon.js';

const MiB = 1 << 20;

describe('cuzk serve: the pinned pool grows in the background', () => {
  const gateDir = mkdtempSync(path.join(tmpdir(), 'cuzk-pool-gate-'));
  const allow = (i: number) => writeFileSync(path.join(gateDir, `chunk-${i}`), '');
  let d: DaemonProcess;
  let client: CuzkClient;
  before(async () => {
    allow(0); // the first chunk is in before the daemon is ready
    d = await startDaemon({ args: ['--pinned-pool-bytes', String(8 * MiB), '--pinned-chunk-bytes', String(2 * MiB)], env: { CUZK_TEST_POOL_GATE: gateDir } });
    client = new CuzkClient({ address: d.address });
  });
  after(async () => {
    client?.close();
    await d?.stop();
    if (d) removeDataDir(d.dataDir);
    rmSync(gateDir, { recursive: true, force: true });
  });

  const connectStatus = async () => {
    const r = await fetch(`${d.url}/cuzk.v1.ProvingService/GetStatus`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(r.status, 200);
    return ((await r.json()) as { pinnedPool: Record<string, unknown> }).pinnedPool;
  };
  const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  const untilBytes = async (bytes: number) => {
    while ((await client.status()).pinnedPool.bytes < bytes) await new Promise((r) => setTimeout(r, 10));
  };

  it('ready with the first chunk; allocated rises toward the target chunk by chunk; then full', async () => {
    let st = (await client.status()).pinnedPool;
    assert.deepEqual({ bytes: st.bytes, targetBytes: st.targetBytes, growState: st.growState, growing: st.growing, buffers: st.buffers },
      { bytes: 2 * MiB, targetBytes: 8 * MiB, growState: 'growing', growing: true, buffers: 1 }, 'chunk 1 waits at the gate');
    const json = await connectStatus();
    assert.equal(json.targetBytes, String(8 * MiB), 'Connect JSON: uint64 as a string');
    assert.equal(json.bytes, String(2 * MiB));
    assert.equal(json.growState, 'growing');
    assert.equal(json.growing, true);
    let text = await (await fetch(`${d.url}/metrics`)).text();
    assert.equal(metric(text, 'cuzk_pinned_pool_target_bytes'), 8 * MiB);
    assert.equal(metric(text, 'cuzk_pinned_pool_bytes'), 2 * MiB);
    assert.equal(metric(text, 'cuzk_pinned_pool_growing'), 1);
    const cli = await runChild(['status', '--remote', d.address]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /^pinned pool: 2\.0 MiB of 8\.0 MiB \(growing\), 0 buffers in use, 0 allocations on a proof's path$/m);

    const seen = [st.bytes];
    for (let i = 1; i < 4; i++) {
      allow(i);
      await untilBytes((i + 1) * 2 * MiB);
      seen.push((await client.status()).pinnedPool.bytes);
    }
    assert.deepEqual(seen, [2, 4, 6, 8].map((m) => m * MiB));
    while ((st = (await client.status()).pinnedPool).growState !== 'full') await new Promise((r) => setTimeout(r, 10));
    assert.equal(st.growing, false);
    assert.equal(st.pathAllocations, 0);
    text = await (await fetch(`${d.url}/metrics`)).text();
    assert.equal(metric(text, 'cuzk_pinned_pool_growing'), 0);
    assert.equal(metric(text, 'cuzk_pinned_pool_bytes'), 8 * MiB);
    const json2 = await connectStatus();
    assert.equal(json2.growState, 'full');
    assert.match(d.logs(), /"msg":"pinned pool at its target, 8\.0 MiB"/);
  });
});
