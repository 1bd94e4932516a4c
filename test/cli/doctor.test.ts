// `cuzk doctor` and `cuzk serve --check`: each failing condition is its FAIL line and exit status 1
// (port taken, data dir read-only or a file, journal empty or corrupt, budget larger than memory,
// another daemon on the data dir, naming its pid), warnings do not fail, --json carries the same
// checks; the budget and key-size rules are checked directly with a made-up GPU (this machine may
// have none). A read-only data dir is a read-only tmpfs as root (chmod does not stop root), chmod otherwise.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ZkeyFile } from '../../src/formats/zkey.js';
import { deviceCoefBytes, deviceScratchBytes } from '../../src/engine/pipeline.js';
import { gib, memoryChecks, type Check, type GpuSeen } from '../../src/server/startup/preflight.js';
import { keyFitCheck } from '../../src/server/startup/preflight-files.js';
import { gpuCheck } from '../../src/cli/doctor-device.js';
import { runCli } from '../helpers/capture.js';
import { startDaemon } from '../helpers/daemon.js';
import { scratch, tmpfs } from '../helpers/scratch-fs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';


const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const keyDir = path.dirname(vectorFile(bnMult, 'circuit.zkey'));

/** `cuzk doctor` on a fresh data dir and a free port unless `args` say otherwise. */
async function doctor(args: string[], cmd = ['doctor']) {
  const all = [...cmd, ...(args.includes('--data-dir') ? [] : ['--data-dir', path.join(scratch(), 'data')]), ...(args.includes('--listen') ? [] : ['--listen', '127.0.0.1:0']), ...args];
  const run = await runCli(all);
  const json = await runCli([...all, '--json']);
  assert.equal(json.code, run.code, 'the same status with --json');
  const report = JSON.parse(json.stdout) as { ok: boolean; failed: number; warnings: number; checks: Check[] };
  return { ...run, report };
}

/** The one line of check `name` that failed, in the text and in the JSON; asserts exit 1. */
function failLine(r: Awaited<ReturnType<typeof doctor>>, name: string, pattern: RegExp): string {
  assert.equal(r.code, 1, r.stdout);
  assert.equal(r.report.ok, false);
  const failed = r.report.checks.filter((c) => c.status === 'fail');
  assert.deepEqual(failed.map((c) => c.check), [name], r.stdout);
  assert.match(failed[0]!.found, pattern);
  const line = r.stdout.split('\n').find((l) => l.startsWith(`  FAIL  ${name}`));
  assert.ok(line, r.stdout);
  assert.match(line, pattern);
  return line;
}

describe('cuzk doctor', () => {
  it('a usable configuration: exit 0, every check one line, --json the same checks', async () => {
    const r = await doctor(['--key-dirs', keyDir]);
    assert.equal(r.code, 0, r.stdout);
    assert.equal(r.stderr, '', 'no log lines');
    assert.equal(r.report.ok, true);
    assert.equal(r.report.failed, 0);
    const names = r.report.checks.map((c) => c.check);
    for (const n of ['backend', 'host memory', 'pinned probe', 'cuzk processes', 'listen', 'data dir', 'journal', 'key dir', 'key']) assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
    for (const c of r.report.checks) {
      assert.ok(['ok', 'warn'].includes(c.status), JSON.stringify(c));
      assert.equal(typeof c.found, 'string');
      if (c.status === 'warn') assert.equal(typeof c.action, 'string', 'a warning says what to do');
    }
    const lines = r.stdout.trim().split('\n');
    assert.match(lines[0]!, /^cuzk doctor: listen 127\.0\.0\.1:0, data dir /);
    assert.match(lines.at(-1)!, /^ready to serve/);
    assert.equal(r.report.warnings, r.stdout.split('\n').filter((l) => l.startsWith('  warn')).length);
  });

  it('the key line says its size on a GPU, from the zkey header', async () => {
    const file = vectorFile(bnMult, 'circuit.zkey');
    const z = ZkeyFile.open(file);
    z.close();
    const s = z.header.sections;
    const points = s.A.size + s.B1.size + s.B2.size + s.C.size + s.H.size; // the sections' own sizes in the file
    const r = await doctor(['--key-dirs', keyDir]);
    const key = r.report.checks.find((c) => c.check === 'key' && c.found.startsWith(file))!;
    assert.ok(key, r.stdout);
    const coefs = deviceCoefBytes(z.header.domainSize, z.header.nCoefs); // the synthesis layout
    assert.ok(key.found.includes(`${gib(points + coefs + deviceScratchBytes(bnMult.domainSize, bnMult.nVars))} on a GPU`), key.found);
    assert.ok(key.found.includes(`2^${Math.log2(bnMult.domainSize)} domain`), key.found);
  });

  it('a port in use: FAIL listen, exit 1', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      failLine(await doctor(['--listen', `127.0.0.1:${port}`]), 'listen', new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use`));
    } finally {
      await new Promise((r) => holder.close(r));
    }
  });

  it('a read-only data dir: FAIL data dir, exit 1', async () => {
    const root = process.getuid?.() === 0;
    const base = root ? tmpfs('1m')! : path.join(scratch(), 'mnt');
    if (root) {
      mkdirSync(path.join(base, 'data'));
      execFileSync('mount', ['-o', 'remount,ro', base]);
    } else {
      mkdirSync(path.join(base, 'data'), { recursive: true });
      execFileSync('chmod', ['0500', path.join(base, 'data')]);
    }
    const r = await doctor(['--data-dir', path.join(base, 'data')]);
    failLine(r, 'data dir', root ? /is on a read-only file system: remount it read-write/ : /is read-only for this user/);
  });

  it('a file where the data dir should be: FAIL data dir, exit 1', async () => {
    const file = path.join(scratch(), 'not-a-dir');
    writeFileSync(file, 'x');
    failLine(await doctor(['--data-dir', file]), 'data dir', /is not a directory/);
  });

  it('a corrupt journal (garbage bytes) and an empty one: FAIL journal in journal-open.ts\'s words', async () => {
    const dir = scratch();
    writeFileSync(path.join(dir, 'journal.sqlite'), Buffer.alloc(8192, 0x5a));
    failLine(await doctor(['--data-dir', dir]), 'journal', /journal .*journal\.sqlite: is corrupt or not a cuzk journal \(SQLITE_NOTADB\): stop the daemon, move it/);
    writeFileSync(path.join(dir, 'journal.sqlite'), '');
    failLine(await doctor(['--data-dir', dir]), 'journal', /the file is empty \(0 bytes\)/);
  });

  it('a host budget larger than this machine: FAIL host memory, exit 1', async () => {
    const r = await doctor(['--memory-host-bytes', String(2 ** 52)]);
    failLine(r, 'host memory', /budget 4194304\.0 GiB; .* available, .*: more than this machine has/);
    assert.match(r.report.checks.find((c) => c.check === 'host memory')!.action!, /set engine\.memory_host_bytes \(--memory-host-bytes\) to at most \d+/);
  });

  it('another daemon on the data dir: FAIL journal, locked, naming its pid', async () => {
    const d = await startDaemon({ dataDir: scratch() });
    try {
      const r = await doctor(['--data-dir', d.dataDir]);
      failLine(r, 'journal', new RegExp(`is locked by another process: another cuzk serve uses this data dir; .* \\(held by pid ${d.proc.pid}\\)`));
      const procs = r.report.checks.find((c) => c.check === 'cuzk processes')!;
      assert.equal(procs.status, 'warn');
      assert.ok(procs.found.includes(`pid ${d.proc.pid} (`) && procs.found.includes(`data dir ${d.dataDir}`), procs.found);
      assert.match(procs.action!, new RegExp(`pid ${d.proc.pid} uses this data dir: stop it first`));
    } finally {
      await d.stop();
    }
  });

  it('cuzk serve --check: the same checks and status, without serving', async () => {
    const ok = await doctor([], ['serve', '--check']);
    assert.equal(ok.code, 0, ok.stdout);
    assert.match(ok.stdout, /^cuzk doctor: .*\n[\s\S]*ready to serve/);
    const failed = await doctor(['--memory-host-bytes', String(2 ** 52)], ['serve', '--check']);
    failLine(failed, 'host memory', /more than this machine has/);
  });
});

describe('preflight rules', () => {
  const mem = { totalBytes: 64 * 2 ** 30, freeBytes: 8 * 2 ** 30, availableBytes: 16 * 2 ** 30 };
  const budget = (host: number, pinned: number) => ({ host, pinned });

  it('a configured budget above what is available fails; a default one only warns', () => {
    const set = memoryChecks({ memoryHost: 20 * 2 ** 30, memoryPinned: 0, pinned: true }, budget(20 * 2 ** 30, 8 * 2 ** 30), mem);
    assert.deepEqual(set.map((c) => [c.check, c.status]), [['host memory', 'fail'], ['pinned memory', 'ok']]);
    assert.match(set[0]!.found, /more than is available now/);
    const dflt = memoryChecks({ memoryHost: 0, memoryPinned: 0, pinned: false }, budget(48 * 2 ** 30, 32 * 2 ** 30), mem);
    assert.deepEqual(dflt.map((c) => [c.check, c.status]), [['host memory', 'warn']], 'pinned off: no pinned line');
    assert.match(dflt[0]!.found, /default: 75% of RAM/);
  });

  it('a key larger than every GPU\'s budget fails; one that fits names the GPU; no GPU: the CPU core', () => {
    const z = ZkeyFile.open(vectorFile(bnMult, 'circuit.zkey'));
    z.close();
    const gpu = (index: number, limitBytes: number): GpuSeen => ({ index, name: 'test GPU', memoryTotal: limitBytes, memoryFree: limitBytes, computeCapability: '9.0', limitBytes });
    const small = 64 * 2 ** 20; // below the 128 MiB of scratch every proof takes
    const big = 2 ** 30;
    const none = keyFitCheck('k.zkey', z.header, 1000, [gpu(0, small), gpu(1, small)], big);
    assert.equal(none.status, 'fail');
    assert.match(none.found, /larger than every GPU's budget \(gpu 0 0\.06 GiB, gpu 1 0\.06 GiB\), so it is proved on the CPU core/);
    const one = keyFitCheck('k.zkey', z.header, 1000, [gpu(0, small), gpu(1, big)], big);
    assert.equal(one.status, 'ok');
    assert.match(one.found, /fits gpu 1$/);
    assert.match(keyFitCheck('k.zkey', z.header, 1000, [], big).found, /no GPU: proved on the CPU core/);
    assert.equal(keyFitCheck('k.zkey', z.header, big + 1, [], big).status, 'fail', 'larger than the host budget');
  });

  it('a GPU: its budget must fit its free memory; memory another process holds is said', () => {
    const g = { index: 0, name: 'NVIDIA H200', memoryTotal: 140 * 2 ** 30, computeCapability: '9.0', limitBytes: 126 * 2 ** 30 };
    const clean = gpuCheck({ ...g, memoryFree: 139.5 * 2 ** 30 });
    assert.equal(clean.status, 'ok');
    assert.match(clean.found, /^NVIDIA H200 \(sm 9\.0\), 139\.5 GiB free of 140\.0 GiB, budget 126\.0 GiB$/);
    const shared = gpuCheck({ ...g, memoryFree: 130 * 2 ** 30 });
    assert.equal(shared.status, 'warn');
    assert.match(shared.found, /10\.0 GiB is held by another process/);
    const full = gpuCheck({ ...g, memoryFree: 100 * 2 ** 30 });
    assert.equal(full.status, 'fail');
    assert.match(full.found, /the budget does not fit, 40\.0 GiB is held by another process/);
    assert.match(full.action!, /set engine\.memory_gpu_bytes below \d+/);
  });
});
