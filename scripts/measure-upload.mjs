#!/usr/bin/env node
// The SDK's cost of uploading one big witness (UploadWitness over gRPC, POST /v1/witnesses over
// Connect) to a real `cuzk serve` child on loopback: the client process's CPU time (process.cpuUsage,
// all its threads) and its event loop's busy time (performance.eventLoopUtilization: the main
// thread) per upload, and the wall time. The witness is the 2^K dev fixture (made and cached by
// `cuzk bench --size K`); uploads are unclaimed and expire after a second.
// Usage: node --import tsx scripts/measure-upload.mjs [--size 20] [--runs 20] [--protocol grpc,connect]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: a } = parseArgs({ options: { size: { type: 'string', default: '20' }, runs: { type: 'string', default: '20' }, protocol: { type: 'string', default: 'grpc,connect' } } });
const { CuzkClient } = await import(path.join(root, 'src/client/index.ts'));
const { benchFixture } = await import(path.join(root, 'src/dev/bench-fixture.ts'));
const { startDaemon, removeDataDir } = await import(path.join(root, 'test/helpers/daemon.ts'));

const runs = Number(a.runs);
const fixture = await benchFixture(root, 'bn128', Number(a.size), (s) => console.error(s));
const wtns = new Uint8Array(readFileSync(fixture.wtns));
const d = await startDaemon({ args: ['--backend', 'cpu', '--key-dirs', path.dirname(fixture.zkey), '--upload-ttl-s', '1'] });
try {
  const setup = new CuzkClient({ address: d.address });
  await setup.loadKey({ path: fixture.zkey });
  await setup.pauseQueue();
  console.log(`witness ${(wtns.length / 2 ** 20).toFixed(1)} MiB (2^${a.size} fixture), ${runs} uploads one after another, per upload:`);
  for (const protocol of a.protocol.split(',')) {
    const c = new CuzkClient({ address: d.address, protocol });
    await c.uploadWitness(fixture.zkey, wtns); // warm: connection, JIT
    const cpu0 = process.cpuUsage();
    const elu0 = performance.eventLoopUtilization();
    const t0 = performance.now();
    for (let i = 0; i < runs; i++) await c.uploadWitness(fixture.zkey, wtns);
    const wallMs = (performance.now() - t0) / runs;
    const cpu = process.cpuUsage(cpu0);
    const elu = performance.eventLoopUtilization(elu0);
    const cpuMs = (cpu.user + cpu.system) / 1000 / runs;
    console.log(`  ${protocol.padEnd(8)} client CPU ${cpuMs.toFixed(1).padStart(6)} ms   event loop busy ${(elu.active / runs).toFixed(1).padStart(6)} ms (${(elu.utilization * 100).toFixed(0)}%)   wall ${wallMs.toFixed(0).padStart(5)} ms`);
    c.close();
  }
} finally {
  await d.stop();
  removeDataDir(d.dataDir);
}
