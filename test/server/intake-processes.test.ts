// Witness uploads off the main event loop: the front door hands a connection whose first request is
// POST /v1/witnesses to an intake process, which checks the token before reading the body, spools
// the bytes (sha256, fsync) and hands the main process the file; the job that claims it proves. The
// counters of /metrics say which process received the bytes, so a hand-off that silently fell back
// to the main thread fails here. An intake process that dies mid-upload leaves no file, and another
// takes the next upload.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { CuzkClient } from '../../src/client/index.js';
import { startsWitnessUpload } from '../../src/server/transport/intake-processes.js';
import { makeDataDir, removeDataDir, runChild, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const set = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const key = vectorFile(set, 'circuit.zkey');
const w = new Uint8Array(readFileSync(vectorFile(set, 'witness.wtns')));
const json = (n: string) => JSON.parse(readFileSync(vectorFile(set, n), 'utf8'));
const TOKEN = 'intake-test-token';

after(terminateSnarkjs);

async function metric(d: DaemonProcess, name: string): Promise<number> {
  const text = await (await fetch(`${d.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
  assert.ok(m, `${name} in /metrics`);
  return Number(m[1]);
}

const spoolFiles = (d: DaemonProcess) => (existsSync(path.join(d.dataDir, 'spool')) ? readdirSync(path.join(d.dataDir, 'spool')) : []);

/** The daemon's child processes (its intake processes), from /proc. */
function children(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  for (const t0 = Date.now(); !(await ok()); ) {
    if (Date.now() - t0 > ms) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** POST /v1/witnesses sending `head` then stalling until `stop` is called (the request then destroyed). */
function stalledPost(url: string, total: number, head: Uint8Array, token: string): { answer: Promise<{ status: number; body: string } | Error>; stop: () => void } {
  let req!: http.ClientRequest;
  const answer = new Promise<{ status: number; body: string } | Error>((resolve) => {
    req = http.request(`${url}/v1/witnesses?key=${encodeURIComponent(key)}`, { method: 'POST', agent: false, headers: { authorization: `Bearer ${token}`, 'content-length': String(total) } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', resolve);
    });
    req.on('error', resolve);
    req.write(head);
  });
  return { answer, stop: () => req.destroy() };
}

/** POST /v1/witnesses on a new connection (fetch would reuse the one /metrics was read on: that
 * connection's first request was not an upload, so the main process serves it). */
function freshPost(url: string, body: Uint8Array, token: string): Promise<{ status: number; body: string; connection?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/v1/witnesses?key=${encodeURIComponent(key)}`, { method: 'POST', agent: false, headers: { authorization: `Bearer ${token}`, 'content-length': String(body.length) } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text, connection: res.headers.connection }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('startsWitnessUpload', () => {
  it('takes POST /v1/witnesses and POST /v1/witnesses?..., nothing else', () => {
    const yes = (s: string) => assert.equal(startsWitnessUpload(Buffer.from(s)), true, s);
    const no = (s: string) => assert.equal(startsWitnessUpload(Buffer.from(s)), false, s);
    yes('POST /v1/witnesses?key=k HTTP/1.1\r\n');
    yes('POST /v1/witnesses HTTP/1.1\r\n');
    no('POST /v1/witnesses');
    no('POST /v1/witnessesX HTTP/1.1\r\n');
    no('POST /v1/keys?id=x HTTP/1.1\r\n');
    no('GET /v1/witnesses HTTP/1.1\r\n');
    no('post /v1/witnesses HTTP/1.1\r\n');
  });
});

describe('cuzk serve: intake processes', () => {
  it('uploads are received by an intake process (the counters say so), claimed by a job that proves; a bad token is refused unread', async () => {
    const d = await startDaemon({ args: [...vectorDirArgs(), '--intake-processes', '2', '--token', TOKEN] });
    try {
      await until('2 intake processes ready', async () => (await metric(d, 'cuzk_intake_processes')) === 2);
      assert.equal(children(d.proc.pid!).length, 2);
      for (const uploads of ['post', 'stream'] as const) {
        const c = new CuzkClient({ address: d.address, token: TOKEN, inlineWitnessBytes: 0, uploads });
        const before = await metric(d, 'cuzk_intake_process_uploads_total');
        const bytesBefore = await metric(d, 'cuzk_intake_process_bytes_total');
        const job = await c.prove({ key, witnesses: [w, w] });
        assert.equal(job.state, 'completed', JSON.stringify(job.error));
        for (const p of job.proofs!) assert.equal(await snarkjsVerify(json('vkey.json'), p.publicSignals, p.proof), true);
        // 'post' goes to the intake processes; 'stream' (UploadWitness on the client's HTTP/2 connection) stays on the main thread
        const n = uploads === 'post' ? 2 : 0;
        assert.equal(await metric(d, 'cuzk_intake_process_uploads_total'), before + n, uploads);
        assert.equal(await metric(d, 'cuzk_intake_process_bytes_total'), bytesBefore + n * w.length, uploads);
        c.close();
      }
      // the answer of an intake process: the bytes' sha256, a witness id a job can use once
      const up = await freshPost(d.url, w, TOKEN);
      assert.equal(up.status, 200, up.body);
      assert.equal(up.connection, 'close', 'one upload per handed-over connection');
      const u = JSON.parse(up.body) as { witnessId: string; size: number; sha256: string };
      assert.equal(u.sha256, createHash('sha256').update(w).digest('hex'));
      assert.equal(u.size, w.length);
      assert.deepEqual(new Uint8Array(readFileSync(path.join(d.dataDir, 'spool', `${u.witnessId}.wtns`))), w, 'spooled byte for byte');
      const c = new CuzkClient({ address: d.address, token: TOKEN });
      assert.equal((await c.prove({ key, witnessIds: [u.witnessId] })).state, 'completed');
      // a wrong token: refused from the headers, a 64 MiB body left unread
      const refused = stalledPost(d.url, 64 << 20, w.subarray(0, 100), 'wrong');
      const r = await refused.answer;
      refused.stop();
      assert.ok(!(r instanceof Error), String(r));
      assert.equal(r.status, 401, r.body);
      assert.match(r.body, /token/i);
      await until('nothing spooled', () => spoolFiles(d).length === 0);
      c.close();
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
      removeDataDir(d.dataDir);
    }
  });

  it('over a unix socket too: the connection is handed over, the job proves', async () => {
    const d = await startDaemon({ socket: true, args: [...vectorDirArgs(), '--intake-processes', '1'] });
    try {
      const c = new CuzkClient({ address: d.address, inlineWitnessBytes: 0, protocol: 'connect' });
      await until('the intake process ready', async () => (await c.status()).intake?.processes === 1);
      const job = await c.prove({ key, witnesses: [w] });
      assert.equal(job.state, 'completed', JSON.stringify(job.error));
      assert.equal(await snarkjsVerify(json('vkey.json'), job.proofs![0]!.publicSignals, job.proofs![0]!.proof), true);
      const st = await c.status();
      assert.equal(st.intake?.uploads, 1, 'received by the intake process (GetStatus)');
      assert.equal(st.intake?.bytes, w.length);
      assert.ok(st.intake!.mainThreadBusyMs > 0, 'the main thread\'s busy time is reported');
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
      removeDataDir(d.dataDir);
    }
  });

  it('off: the main thread takes every upload (the counters stay 0)', async () => {
    const d = await startDaemon({ args: [...vectorDirArgs(), '--intake-processes', 'off', '--token', TOKEN] });
    try {
      assert.deepEqual(children(d.proc.pid!), []);
      const c = new CuzkClient({ address: d.address, token: TOKEN, inlineWitnessBytes: 0, protocol: 'connect' });
      assert.equal((await c.prove({ key, witnesses: [w] })).state, 'completed');
      assert.equal(await metric(d, 'cuzk_intake_process_uploads_total'), 0);
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
      removeDataDir(d.dataDir);
    }
  });

  it('an intake process killed mid-upload: the upload fails, its file is removed, another process takes the next', async () => {
    const d = await startDaemon({ args: [...vectorDirArgs(), '--intake-processes', '1', '--token', TOKEN] });
    try {
      await until('the intake process ready', async () => (await metric(d, 'cuzk_intake_processes')) === 1);
      const [pid] = children(d.proc.pid!);
      const stalled = stalledPost(d.url, w.length, w.subarray(0, w.length - 10), TOKEN);
      await until('a .partial file in the spool', () => spoolFiles(d).some((f) => f.endsWith('.partial')));
      process.kill(pid!, 'SIGKILL');
      const r = await stalled.answer;
      assert.ok(r instanceof Error || r.status !== 200, 'the upload did not succeed');
      await until('the partial file removed', () => spoolFiles(d).length === 0);
      await until('another intake process', async () => (await metric(d, 'cuzk_intake_processes')) === 1 && !children(d.proc.pid!).includes(pid!));
      assert.match(d.logs(), /intake process exited/);
      const c = new CuzkClient({ address: d.address, token: TOKEN, inlineWitnessBytes: 0, protocol: 'connect' });
      const before = await metric(d, 'cuzk_intake_process_uploads_total');
      assert.equal((await c.prove({ key, witnesses: [w] })).state, 'completed');
      assert.equal(await metric(d, 'cuzk_intake_process_uploads_total'), before + 1);
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
      removeDataDir(d.dataDir);
    }
  });

  it('files.spool_dir: uploads go there, from an intake process and from the main thread, and leave with their job; a folder not the daemon\'s own is refused at start', async () => {
    const base = makeDataDir();
    const spoolDir = path.join(base, 'fast', 'spool'); // created (0700) by the daemon
    const d = await startDaemon({ args: [...vectorDirArgs(), '--intake-processes', '1', '--token', TOKEN, '--spool-dir', spoolDir] });
    try {
      await until('the intake process ready', async () => (await metric(d, 'cuzk_intake_processes')) === 1);
      assert.equal(statSync(spoolDir).mode & 0o777, 0o700);
      const up = await freshPost(d.url, w, TOKEN);
      assert.equal(up.status, 200, up.body);
      const id = (JSON.parse(up.body) as { witnessId: string }).witnessId;
      assert.deepEqual(new Uint8Array(readFileSync(path.join(spoolDir, `${id}.wtns`))), w, 'spooled in files.spool_dir byte for byte');
      assert.ok(!existsSync(path.join(d.dataDir, 'spool')) || readdirSync(path.join(d.dataDir, 'spool')).length === 0, 'nothing in <data_dir>/spool');
      const c = new CuzkClient({ address: d.address, token: TOKEN, uploads: 'stream' }); // UploadWitness: the main thread's road
      const id2 = await c.uploadWitness(key, w);
      assert.deepEqual(new Uint8Array(readFileSync(path.join(spoolDir, `${id2}.wtns`))), w, 'the main thread spools there too');
      const job = await c.prove({ key, witnessIds: [id, id2] });
      assert.equal(job.state, 'completed', JSON.stringify(job.error));
      for (const p of job.proofs!) assert.equal(await snarkjsVerify(json('vkey.json'), p.publicSignals, p.proof), true);
      await until('the job\'s spool files removed', () => readdirSync(spoolDir).length === 0);
      c.close();
    } finally {
      assert.equal(await d.stop(), 0, d.logs());
      removeDataDir(d.dataDir);
    }
    // a shared folder (as /dev/shm or /tmp are): refused with one line naming the option, exit 2
    const shared = path.join(base, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const r = await runChild(['serve', '--data-dir', path.join(base, 'data'), '--listen', '127.0.0.1:0', '--spool-dir', shared]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /files\.spool_dir .*shared: must be a folder of this daemon's own .*mode 1777/);
    removeDataDir(base);
  });
});
