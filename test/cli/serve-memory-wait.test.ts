// `cuzk serve`'s memory-aware start (src/server/startup/memory-wait.ts) in a real daemon process: a host budget
// far above RAM exits 2 with one line (policy exit) or starts lowered and proves (policy start); and,
// on a fake /proc/meminfo (CUZK_TEST_MEMINFO, test/helpers/cuzk-child.ts), a daemon that waits while
// MemAvailable is short and starts with its budget once the test raises it.
import assert from 'node:assert/strict';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { CuzkClient } from '../../src/client/index.js';
import { startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { scratch } from '../helpers/scratch-fs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const GiB = 1024 ** 3;
const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const zkey = vectorFile(bnMult, 'circuit.zkey');
const witness = new Uint8Array(readFileSync(vectorFile(bnMult, 'witness.wtns')));
const vkey = JSON.parse(readFileSync(vectorFile(bnMult, 'vkey.json'), 'utf8'));
after(async () => {
  await terminateSnarkjs();
});


type Line = { msg: string; memory?: { host: number }; startingBytes?: number; [k: string]: unknown };
const lines = (d: DaemonProcess): Line[] => d.logs().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);

async function proveOne(d: DaemonProcess): Promise<void> {
  const c = new CuzkClient({ address: d.address });
  const job = await c.prove({ key: zkey, witnesses: [witness] });
  assert.equal(job.state, 'completed', JSON.stringify(job.error));
  const p = job.proofs![0]!;
  assert.equal(await snarkjsVerify(vkey, p.publicSignals, p.proof), true, 'the proof verifies');
}

describe('cuzk serve: memory-aware start', { timeout: 120_000 }, () => {
  it('policy exit: a host budget far above RAM exits 2 with one line naming the budget, what the machine has and what to do', async () => {
    // startDaemon, not runChild: a daemon that listened instead of exiting fails the test, not hangs it
    const started = await startDaemon({ dataDir: scratch(), args: ['--memory-host-bytes', String(2 ** 52), '--memory-wait-s', '1', '--memory-wait-policy', 'exit'], env: { CUZK_LOG: 'warn' } }).then(
      async (d) => (await d.stop(), assert.fail(`listened instead of exiting:\n${d.logs()}`)),
      (err: Error) => err.message,
    );
    const m = /^daemon exited \((\d+)\) before listening:\n([^]*)$/.exec(started);
    assert.ok(m, started);
    assert.equal(m[1], '2', started);
    const out = m[2]!.trim().split('\n');
    assert.equal(out.length, 1, m[2]);
    assert.match(out[0]!, /^cuzk: E_INVALID_ARG: engine\.memory_host_bytes \(--memory-host-bytes\) is \d+\.\d GiB \(4503599627370496 bytes\) but more than this machine has \([\d.]+ GiB\): lower it to at most \d+, .*memory_wait_policy = "start"$/);
  });

  it('policy start: a host budget far above RAM is lowered to what is available, logged, and the daemon proves', async () => {
    const d = await startDaemon({ dataDir: scratch(), args: [...vectorDirArgs(), '--memory-host-bytes', String(2 ** 52), '--memory-wait-s', '1'] });
    try {
      const lowered = lines(d).find((l) => /^engine\.memory_host_bytes lowered from .* to fit: more than this machine has/.test(l.msg));
      assert.ok(lowered, d.logs());
      assert.ok(lowered.startingBytes! > 0 && lowered.startingBytes! < 2 ** 52);
      const started = lines(d).find((l) => l.msg === 'engine started')!;
      assert.equal(started.memory!.host, lowered.startingBytes, 'the engine runs on the lowered budget');
      await proveOne(d);
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
    }
  });

  it('waits while MemAvailable is short, logging it, and starts with the configured budget once it rises', async () => {
    const dir = scratch();
    const meminfo = path.join(dir, 'meminfo');
    const write = (available: number) => {
      writeFileSync(`${meminfo}.tmp`, `MemTotal:       ${(64 * GiB) / 1024} kB\nMemFree:        ${available / 1024} kB\nMemAvailable:   ${available / 1024} kB\n`);
      renameSync(`${meminfo}.tmp`, meminfo); // whole, never half-written, at the daemon's next poll
    };
    write(1 * GiB);
    let raised = false;
    const d = await startDaemon({
      dataDir: dir,
      args: [...vectorDirArgs(), '--memory-host-bytes', String(4 * GiB), '--memory-wait-s', '120', '--memory-wait-policy', 'exit'],
      env: { CUZK_TEST_MEMINFO: meminfo },
      // raised only once the daemon says it waits: it cannot have started before
      onStderr: (soFar) => {
        if (!raised && soFar.includes('"msg":"waiting for memory: 4.00 GiB budgeted, 1.00 GiB available (memory_wait_s 120)"')) {
          raised = true;
          write(5 * GiB);
        }
      },
    });
    try {
      assert.ok(raised, d.logs());
      const msgs = lines(d).map((l) => l.msg);
      const waiting = msgs.findIndex((m) => m.startsWith('waiting for memory'));
      const ready = msgs.indexOf('memory available: starting');
      const started = msgs.indexOf('engine started');
      assert.ok(waiting >= 0 && waiting < ready && ready < started, msgs.join('\n'));
      assert.equal(lines(d)[started]!.memory!.host, 4 * GiB, 'the configured budget, not lowered');
      await proveOne(d);
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
    }
  });
});
