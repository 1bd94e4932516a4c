// The remote CLI commands against a real daemon: prove --remote writes the same files as a local
// prove, submit/await/cancel/status/keys work, witness and key files are streamed (a 5 GiB one
// reaches the daemon's own check; a missing one is refused before anything is sent), and an
// unreachable daemon gives one clear line.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/capture.js';
import { removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { peakRss } from '../helpers/proc-usage.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { sparseWitness } from '../helpers/sparse-files.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const set = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
const f = (n: string) => vectorFile(set, n);
let d: DaemonProcess;
let dir: string;
before(async () => {
  d = await startDaemon({ args: vectorDirArgs() });
  dir = mkdtempSync(path.join(tmpdir(), 'cuzk-remote-'));
});
after(async () => {
  assert.equal(await d.stop(), 0, d.logs());
  removeDataDir(d.dataDir);
  rmSync(dir, { recursive: true, force: true });
  await terminateSnarkjs();
});

describe('cuzk CLI against a daemon', () => {
  it('prove --remote writes snarkjs-valid proof.json and public.json', async () => {
    const r = await runCli(['prove', f('circuit.zkey'), f('witness.wtns'), path.join(dir, 'proof.json'), path.join(dir, 'public.json'), '--remote', d.address]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /verified by the daemon/);
    const pub = JSON.parse(readFileSync(path.join(dir, 'public.json'), 'utf8'));
    assert.deepEqual(pub, JSON.parse(readFileSync(f('public.json'), 'utf8')));
    const proof = JSON.parse(readFileSync(path.join(dir, 'proof.json'), 'utf8'));
    assert.equal(await snarkjsVerify(JSON.parse(readFileSync(f('vkey.json'), 'utf8')), pub, proof), true);
    const v = await runCli(['verify', f('vkey.json'), path.join(dir, 'public.json'), path.join(dir, 'proof.json')]);
    assert.equal(v.code, 0, v.stderr);
  });

  it('keys load, submit, await, cancel, status, keys evict', async () => {
    const k = await runCli(['keys', 'load', f('circuit.zkey'), '--key-id', 'pos', '--remote', d.address, '--json']);
    assert.equal(k.code, 0, k.stderr);
    assert.equal(JSON.parse(k.stdout).key.id, 'pos');
    const s = await runCli(['submit', 'pos', f('witness2.wtns'), '--priority', 'high', '--remote', d.address]);
    assert.equal(s.code, 0, s.stderr);
    const id = s.stdout.trim();
    const a = await runCli(['await', id, path.join(dir, 'p2.json'), path.join(dir, 'pub2.json'), '--remote', d.address]);
    assert.equal(a.code, 0, a.stderr);
    assert.deepEqual(JSON.parse(readFileSync(path.join(dir, 'pub2.json'), 'utf8')), JSON.parse(readFileSync(f('public2.json'), 'utf8')));
    const c = await runCli(['cancel', id, '--remote', d.address]);
    assert.match(c.stdout, new RegExp(`^${id} completed`));
    const st = await runCli(['status', '--remote', d.address, '--json']);
    assert.equal(JSON.parse(st.stdout).totals.completed >= 2, true);
    const human = await runCli(['status', '--remote', d.address]);
    assert.match(human.stdout, /^cuzk \S+ \(cpu\), up \d+ s/);
    const cpu = /^device cpu: CPU core, host memory budget (\d+\.\d)\/(\d+\.\d) GiB free$/m.exec(human.stdout);
    assert.ok(cpu, human.stdout);
    assert.ok(Number(cpu[1]) > 0 && Number(cpu[1]) <= Number(cpu[2]), human.stdout);
    assert.match((await runCli(['keys', '--remote', d.address])).stdout, /^pos\tbn128/m);
    assert.equal((await runCli(['keys', 'evict', 'pos', '--remote', d.address])).code, 0);
  });

  it('a key id stays an id when the cwd holds a file or folder of that name; a .zkey or a/b is a path', async () => {
    const k = await runCli(['keys', 'load', f('circuit.zkey'), '--key-id', 'ped', '--remote', d.address]);
    assert.equal(k.code, 0, k.stderr);
    const cwd = process.cwd();
    const here = path.join(dir, 'cwd');
    mkdirSync(path.join(here, 'ped'), { recursive: true });
    writeFileSync(path.join(here, 'ped', 'x'), '');
    process.chdir(here);
    try {
      const s = await runCli(['prove', 'ped', f('witness.wtns'), path.join(dir, 'ped.json'), path.join(dir, 'pedpub.json'), '--remote', d.address]);
      assert.equal(s.code, 0, s.stderr);
      // a relative .zkey path is resolved here (the daemon's cwd is not ours), then confined there
      const rel = path.relative(here, f('circuit.zkey'));
      const r = await runCli(['prove', rel, f('witness.wtns'), path.join(dir, 'rel.json'), path.join(dir, 'relpub.json'), '--remote', d.address]);
      assert.equal(r.code, 0, r.stderr);
      // an id never loaded is not found, whatever the cwd holds
      const nf = await runCli(['submit', 'nope', f('witness.wtns'), '--remote', d.address]);
      assert.equal(nf.code, 2, nf.stderr);
      assert.match(nf.stderr, /E_NOT_FOUND: unknown key "nope"/);
    } finally {
      process.chdir(cwd);
      await runCli(['keys', 'evict', 'ped', '--remote', d.address]);
    }
  });

  it('queue pause holds submitted jobs queued; queue resume lets them run', async () => {
    const p = await runCli(['queue', 'pause', '--remote', d.address]);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, /^queue paused: 0 queued, 0 running$/m);
    const s = await runCli(['submit', f('circuit.zkey'), f('witness.wtns'), '--remote', d.address]);
    assert.equal(s.code, 0, s.stderr);
    const id = s.stdout.trim();
    const st = await runCli(['status', '--remote', d.address]);
    assert.match(st.stdout, /queue paused/);
    assert.match(st.stdout, /queued: critical 0, high 0, normal 1, low 0; running 0/);
    const r = await runCli(['queue', 'resume', '--remote', d.address]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^queue resumed: /m);
    const a = await runCli(['await', id, path.join(dir, 'p3.json'), path.join(dir, 'pub3.json'), '--remote', d.address]);
    assert.equal(a.code, 0, a.stderr);
    const bad = await runCli(['queue', 'stop', '--remote', d.address]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /queue: expected "pause" or "resume"/);
  });

  it('a failed job and an unknown job give one line and exit statuses 1 and 2', async () => {
    const bad = await runCli(['prove', f('circuit.zkey'), f('witness_bad.wtns'), path.join(dir, 'x.json'), path.join(dir, 'y.json'), '--remote', d.address]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^cuzk: E_PROOF_INVALID: job \S+ failed: /);
    const nf = await runCli(['await', 'no-such-job', '--remote', d.address]);
    assert.equal(nf.code, 2);
    assert.match(nf.stderr, /^cuzk: E_NOT_FOUND: no job no-such-job/);
  });

  it('--upload-key streams the key file; a 5 GiB witness file reaches the daemon\'s header check, streamed', async () => {
    for (const protocol of ['grpc', 'connect']) {
      const r = await runCli(['prove', f('circuit.zkey'), f('witness.wtns'), path.join(dir, 'up.json'), path.join(dir, 'uppub.json'), '--upload-key', '--remote', d.address, '--protocol', protocol]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(readFileSync(path.join(dir, 'uppub.json'), 'utf8')), JSON.parse(readFileSync(f('public.json'), 'utf8')));
      const big = sparseWitness(path.join(dir, 'big.wtns'), f('witness.wtns'), 5 * 2 ** 25);
      const before = process.memoryUsage().rss;
      const { peak, result: s } = await peakRss(process.pid, runCli(['submit', f('circuit.zkey'), big, '--remote', d.address, '--protocol', protocol]));
      rmSync(big);
      assert.equal(s.code, 2, s.stderr);
      assert.equal(s.stderr, 'cuzk: E_FORMAT: uploaded witness: witness has 167772160 values but the key expects 520: a witness of another circuit?\n');
      assert.ok(peak - before < 256 * 2 ** 20, `the CLI grew ${Math.round((peak - before) / 2 ** 20)} MiB sending a 5 GiB witness`);
    }
  });

  it('a missing or unreadable witness or key file: one line naming it, exit 2, before anything is sent', async () => {
    const missing = path.join(dir, 'none.wtns');
    const folder = path.join(dir, 'folder.wtns');
    mkdirSync(folder);
    const runs: [string[], string][] = [
      [['submit', f('circuit.zkey'), missing], `${missing}: cannot read the witness (ENOENT)`],
      [['submit', f('circuit.zkey'), f('witness.wtns'), folder], `${folder}: cannot read the witness (not a regular file)`],
      [['prove', f('circuit.zkey'), missing, path.join(dir, 'm.json'), path.join(dir, 'mpub.json'), '--upload-key'], `${missing}: cannot read the witness (ENOENT)`],
      [['prove', path.join(dir, 'none.zkey'), f('witness.wtns'), path.join(dir, 'm.json'), path.join(dir, 'mpub.json'), '--upload-key'], `${path.join(dir, 'none.zkey')}: cannot read the key (ENOENT)`],
      [['keys', 'load', path.join(dir, 'none.zkey'), '--upload-key'], `${path.join(dir, 'none.zkey')}: cannot read the key (ENOENT)`],
    ];
    // no daemon listens there: the file's error comes before any connection is tried
    for (const [args, line] of runs) {
      const r = await runCli([...args, '--remote', '127.0.0.1:1']);
      assert.deepEqual([r.code, r.stderr], [2, `cuzk: E_INVALID_ARG: ${line}\n`], args.join(' '));
    }
    // with a daemon: the key of a job whose witness is missing is not uploaded
    const r = await runCli(['prove', f('circuit.zkey'), missing, path.join(dir, 'm.json'), path.join(dir, 'mpub.json'), '--upload-key', '--key-id', 'never-sent', '--remote', d.address]);
    assert.equal(r.code, 2, r.stderr);
    assert.doesNotMatch((await runCli(['keys', '--remote', d.address])).stdout, /never-sent/);
  });

  it('an unreachable daemon: one line naming the address, exit 1', async () => {
    const r = await runCli(['status', '--remote', '127.0.0.1:1']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /^cuzk: E_UNAVAILABLE: cannot reach the cuzk daemon at 127\.0\.0\.1:1 .*is `cuzk serve` running there\?$/m);
    const u = await runCli(['keys', '--remote', `unix:${path.join(dir, 'none.sock')}`]);
    assert.match(u.stderr, /E_UNAVAILABLE: cannot reach the cuzk daemon at unix:/);
  });

  it('a daemon on a unix socket', async () => {
    const sock = path.join(dir, 'cuzk.sock');
    const u = await startDaemon({ args: ['--listen', `unix:${sock}`, ...vectorDirArgs()] });
    try {
      assert.equal(u.address, `unix:${sock}`);
      for (const protocol of ['grpc', 'connect']) {
        const r = await runCli(['prove', f('circuit.zkey'), f('witness.wtns'), path.join(dir, 'u.json'), path.join(dir, 'upub.json'), '--remote', u.address, '--protocol', protocol]);
        assert.equal(r.code, 0, r.stderr);
      }
      assert.deepEqual(JSON.parse(readFileSync(path.join(dir, 'upub.json'), 'utf8')), JSON.parse(readFileSync(f('public.json'), 'utf8')));
    } finally {
      assert.equal(await u.stop(), 0, u.logs());
      removeDataDir(u.dataDir);
    }
  });
});
