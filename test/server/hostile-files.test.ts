// Hostile clients against the files a `cuzk serve` child reads (issue #27): a witness file swapped
// after submit for a FIFO (the daemon must not freeze) or for a symlink out of files.input_dirs (it
// must not be read, and the answer must not say what is there); key ids that shadow another key's
// path, or that are megabytes long; identical key uploads at once.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CuzkClient } from '../../src/client/index.js';
import { removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { swappedWitness, toFifo, toSymlink } from '../helpers/hostile.js';
import { rss } from '../helpers/proc-usage.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const pos = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
const key = vectorFile(pos, 'circuit.zkey');
const wtnsPath = vectorFile(pos, 'witness.wtns');
const LIMIT = { timeout: 60_000 };

describe('cuzk serve: witness files swapped after submit', () => {
  let d: DaemonProcess;
  let client: CuzkClient;
  let inputs: string;
  let outside: string;
  let keys: string;
  before(async () => {
    inputs = mkdtempSync(path.join(tmpdir(), 'cuzk-inputs-'));
    outside = mkdtempSync(path.join(tmpdir(), 'cuzk-outside-'));
    keys = mkdtempSync(path.join(tmpdir(), 'cuzk-keys-'));
    for (const k of ['pos.zkey', 'pos-b.zkey']) copyFileSync(key, path.join(keys, k));
    const args = vectorDirArgs(keys);
    args[args.indexOf('--input-dirs') + 1] = inputs;
    d = await startDaemon({ args });
    client = new CuzkClient({ address: d.address });
  });
  after(async () => {
    client.close();
    const code = await Promise.race([d.stop(), new Promise((r) => setTimeout(r, 10_000, 'hung'))]);
    if (code === 'hung') d.proc.kill('SIGKILL');
    assert.equal(code, 0, d.logs());
    removeDataDir(d.dataDir);
    rmSync(inputs, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
    rmSync(keys, { recursive: true, force: true });
  });

  const swapped = (name: string, swap: (p: string) => void) => swappedWitness(client, key, wtnsPath, path.join(inputs, name), swap);

  it('a FIFO in place of the file fails its job; the daemon stays responsive', LIMIT, async () => {
    const fifo = path.join(inputs, 'swap.wtns');
    // a daemon stuck in open(2) on the FIFO answers nothing: the writer below is what would free it
    let unstuck = false;
    const unstick = setTimeout(() => {
      unstuck = true;
      try { writeFileSync(fifo, ''); } catch { /* gone */ }
    }, 20_000);
    try {
      const job = await swapped('swap.wtns', toFifo);
      assert.equal(unstuck, false, 'the daemon froze in open(2) on the FIFO until the test opened it for writing');
      assert.equal(job.state, 'failed');
      assert.equal(job.error?.code, 'E_INVALID_ARG');
      assert.match(job.error!.message, /not a regular file/);
      const health = await fetch(`${d.url}/healthz`, { signal: AbortSignal.timeout(5000) });
      assert.equal(health.status, 200);
    } finally {
      clearTimeout(unstick);
    }
  });

  it('a symlink out of files.input_dirs is not read: the same answer for a witness and for any other file', LIMIT, async () => {
    copyFileSync(wtnsPath, path.join(outside, 'other.wtns'));
    writeFileSync(path.join(outside, 'secret'), 'root:x:0:0\n');
    const answers: string[] = [];
    for (const [name, target] of [['link-wtns.wtns', 'other.wtns'], ['link-secret.wtns', 'secret']] as const) {
      const job = await swapped(name, toSymlink(path.join(outside, target)));
      assert.equal(job.state, 'failed', `${name}: ${JSON.stringify(job)}`);
      assert.equal(job.error?.code, 'E_INVALID_ARG');
      assert.equal(job.proofs, undefined);
      answers.push(job.error!.message.replaceAll(name, '<name>'));
    }
    assert.match(answers[0]!, /not inside a directory this daemon reads witness files from/);
    assert.equal(answers[1], answers[0]);
  });

  it('a directory of the path swapped for a symlink out is refused the same way', LIMIT, async () => {
    const sub = path.join(inputs, 'sub');
    mkdirSync(sub);
    copyFileSync(wtnsPath, path.join(outside, 'in-sub.wtns'));
    const job = await swapped('sub/in-sub.wtns', () => {
      rmSync(sub, { recursive: true });
      symlinkSync(outside, sub);
    });
    assert.equal(job.state, 'failed', JSON.stringify(job));
    assert.match(job.error!.message, /not inside a directory this daemon reads witness files from/);
  });

  it('a journaled job whose witness file became a symlink out while the daemon was down: refused the same way at replay', LIMIT, async () => {
    const args = vectorDirArgs();
    args[args.indexOf('--input-dirs') + 1] = inputs;
    const p = path.join(inputs, 'replayed.wtns');
    copyFileSync(wtnsPath, p);
    writeFileSync(path.join(outside, 'replay-secret'), 'root:x:0:0\n');
    const e = await startDaemon({ args });
    const ce = new CuzkClient({ address: e.address });
    await ce.pauseQueue();
    const { job } = await ce.submit({ key, witnessFiles: [p] });
    ce.close();
    assert.equal(await e.stop(), 0, e.logs());
    unlinkSync(p);
    symlinkSync(path.join(outside, 'replay-secret'), p);
    const again = await startDaemon({ dataDir: e.dataDir, args });
    const ca = new CuzkClient({ address: again.address });
    try {
      const end = await ca.await(job.id, 15_000);
      assert.equal(end.state, 'failed', JSON.stringify(end));
      assert.match(end.error!.message, /not inside a directory this daemon reads witness files from/);
      assert.doesNotMatch(end.error!.message, /not a wtns file|truncated/);
    } finally {
      ca.close();
      assert.equal(await again.stop(), 0, again.logs());
      removeDataDir(e.dataDir);
    }
  });

  it('a witness file left as it was still proves', LIMIT, async () => {
    const job = await swapped('kept.wtns', () => {});
    assert.equal(job.state, 'completed', JSON.stringify(job.error));
    assert.deepEqual(readFileSync(path.join(inputs, 'kept.wtns')), readFileSync(wtnsPath));
  });

  it('a key id that looks like another path is refused: a job naming that path gets its own key', LIMIT, async () => {
    const a = path.join(keys, 'pos.zkey'), b = path.join(keys, 'pos-b.zkey');
    for (const id of [b, 'elsewhere/pos.zkey', 'x.zkey']) {
      await assert.rejects(client.loadKey({ path: a }, id), (e: { code?: string; message: string }) => e.code === 'E_INVALID_ARG' && /looks like a path/.test(e.message));
    }
    await assert.rejects(client.loadKey({ zkey: readFileSync(key) }, b), /looks like a path/);
    assert.ok(!(await client.listKeys()).some((k) => k.id === b));
    const job = await client.prove({ key: b, witnesses: [readFileSync(wtnsPath)] });
    assert.equal(job.state, 'completed');
    assert.equal((await client.listKeys()).find((k) => k.id === job.key)?.path, b);
    // its own path, and a plain name, are ids as before
    assert.equal((await client.loadKey({ path: a }, a)).id, a);
    assert.equal((await client.loadKey({ path: a }, 'pos')).id, 'pos');
  });

  it('a key id longer than 4096 characters is refused without being echoed', LIMIT, async () => {
    const long = 'k'.repeat(60_000);
    await assert.rejects(client.loadKey({ path: path.join(keys, 'pos.zkey') }, long), (e: { code?: string; message: string }) => e.code === 'E_INVALID_ARG' && /60000 characters, at most 4096/.test(e.message) && e.message.length < 500);
    assert.ok(!(await client.listKeys()).some((k) => k.id === long));
  });

  it('identical key uploads at once all load (12 rounds of 4 new keys): none truncated, none removed under another', LIMIT, async () => {
    const zkey = readFileSync(key);
    const pad = Buffer.alloc(16 * 1024 * 1024);
    // one connection each, started a few ms apart: one sees the file another is still writing
    const clients = Array.from({ length: 4 }, () => new CuzkClient({ address: d.address }));
    const failed: string[] = [];
    try {
      for (let round = 0; round < 12; round++) {
        // bytes after a .zkey's last section are ignored: a new sha256, so a new file, each round, and
        // large enough that writing it takes many turns of the event loop (the race's window)
        const bytes = Buffer.concat([zkey, Buffer.from(`round ${round} ${process.pid}`), pad]);
        const got = await Promise.allSettled(clients.map(async (c, i) => {
          await new Promise((r) => setTimeout(r, i * (round % 4) * 4));
          return c.loadKey({ zkey: bytes }, `up-${round}-${i}`);
        }));
        for (const g of got) if (g.status === 'rejected') failed.push(`round ${round}: ${(g.reason as Error).message}`);
      }
    } finally {
      for (const c of clients) c.close();
    }
    assert.deepEqual(failed, []);
    const keysDir = path.join(d.dataDir, 'keys');
    assert.deepEqual(readdirSync(keysDir).filter((f) => !f.endsWith('.zkey')), [], 'temporary files left');
  });

  it('POST /v1/keys streams a large key to disk (never held whole); one over limits.max_key_bytes is refused unread', LIMIT, async () => {
    const pid = d.proc.pid!;
    const zkey = readFileSync(key);
    const MiB = 1024 * 1024;
    const before = rss(pid);
    const bodies = [0, 1, 2].map((i) => Buffer.concat([zkey, Buffer.from(`post ${i} ${process.pid}`), Buffer.alloc(64 * MiB)]));
    const answers = await Promise.all(bodies.map((b, i) => fetch(`${d.url}/v1/keys?id=posted-${i}`, { method: 'POST', body: b, headers: { 'content-type': 'application/octet-stream' } })));
    const grown = rss(pid) - before;
    for (const [i, r] of answers.entries()) {
      assert.equal(r.status, 200, await r.clone().text());
      const info = (await r.json()) as { id: string; path: string };
      assert.equal(info.id, `posted-${i}`);
      assert.match(path.basename(info.path), /^[0-9a-f]{64}\.zkey$/);
    }
    assert.ok(grown < 3 * 64 * MiB, `the daemon grew ${Math.round(grown / MiB)} MiB for 192 MiB of keys sent`);
    const job = await client.prove({ key: 'posted-1', witnesses: [readFileSync(wtnsPath)] });
    assert.equal(job.state, 'completed');
    // headers announcing 300 MiB and no body: the refusal comes without a byte of it read
    const [host, port] = [d.address.slice(0, d.address.lastIndexOf(':')), Number(d.address.slice(d.address.lastIndexOf(':') + 1))];
    const answer = await new Promise<string>((resolve, reject) => {
      const sock = net.connect(port, host, () => sock.write(`POST /v1/keys HTTP/1.1\r\nHost: cuzk\r\nContent-Length: ${300 * MiB}\r\n\r\n`));
      let got = '';
      sock.on('data', (b) => { got += b; if (got.includes('\r\n\r\n') && got.includes('max_key_bytes')) (sock.destroy(), resolve(got)); });
      sock.on('error', reject);
      setTimeout(() => (sock.destroy(), resolve(got)), 10_000);
    });
    assert.match(answer, /^HTTP\/1\.1 400/);
    assert.match(answer, /more than limits.max_key_bytes/);
    assert.deepEqual(readdirSync(path.join(d.dataDir, 'keys')).filter((f) => !f.endsWith('.zkey')), [], 'temporary files left');
  });
});
