// Witness intake at the daemon: every witness is written once to a spool file (0600, removed when its
// job ends), the journal keeps its path, size and hash but never its bytes; uploads stream in chunks
// (UploadWitness over gRPC, POST /v1/witnesses over HTTP/1.1), witnesses on the server's disk are
// read by reference inside files.input_dirs; a witness that cannot match its key is refused from its
// header, before the rest is read or anything is stored; unclaimed uploads expire; at start, spool
// files no job names are removed and a job whose file is gone ends failed, both said in the log.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CuzkClient, type JobInfo } from '../../src/client/index.js';
import { makeDataDir, removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { vectorFile, vectorSets, type VectorSet } from '../helpers/vectors.js';
import { rejects } from '../helpers/rejects.js';

const sets = vectorSets();
const bnMult = sets.find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const bnBits = sets.find((s) => s.curve === 'bn128' && s.circuit === 'bits')!;
const bytes = (s: VectorSet, n: string) => new Uint8Array(readFileSync(vectorFile(s, n)));
const json = (s: VectorSet, n: string) => JSON.parse(readFileSync(vectorFile(s, n), 'utf8'));
const key = vectorFile(bnMult, 'circuit.zkey');
const w = bytes(bnMult, 'witness.wtns');

async function assertVerifies(job: JobInfo): Promise<void> {
  assert.equal(job.state, 'completed', JSON.stringify(job.error));
  const p = job.proofs![0]!;
  assert.deepEqual(p.publicSignals, json(bnMult, 'public.json'));
  assert.equal(await snarkjsVerify(json(bnMult, 'vkey.json'), p.publicSignals, p.proof), true);
}


/** POST /v1/witnesses with a body sent in pieces; resolves with the status, the answer, and how much of the body had gone out. */
function postWitness(url: string, keyName: string, head: Uint8Array, total: number): Promise<{ status: number; body: string; sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = http.request(`${url}/v1/witnesses?key=${encodeURIComponent(keyName)}`, { method: 'POST', agent: false, headers: { 'content-type': 'application/octet-stream', 'content-length': String(total) } }, (res) => {
      answered = true;
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        req.destroy(); // the rest of the body is not wanted, nor the connection
        resolve({ status: res.statusCode!, body, sent });
      });
    });
    req.on('error', (e) => (answered ? undefined : reject(e)));
    req.write(head);
    sent = head.length;
    const piece = Buffer.alloc(1 << 20);
    const pump = () => {
      while (!answered && sent < total) {
        const n = Math.min(piece.length, total - sent);
        sent += n;
        if (!req.write(piece.subarray(0, n))) return void req.once('drain', pump);
      }
      if (sent >= total) req.end();
    };
    setImmediate(pump);
  });
}

after(terminateSnarkjs);

const spoolFiles = (d: DaemonProcess) => (existsSync(path.join(d.dataDir, 'spool')) ? readdirSync(path.join(d.dataDir, 'spool')) : []);

describe('cuzk serve: witness intake', () => {
  let d: DaemonProcess;
  let inputs: string;
  before(async () => {
    const dataDir = makeDataDir();
    inputs = path.join(dataDir, 'inputs');
    mkdirSync(inputs, { recursive: true });
    d = await startDaemon({ dataDir, args: [...vectorDirArgs(), '--input-dirs', inputs, '--upload-ttl-s', '1'] });
  });
  after(async () => {
    assert.equal(await d.stop(), 0, d.logs());
    removeDataDir(d.dataDir);
  });

  it('streamed uploads over gRPC and Connect: spooled 0600 while queued, never in the journal, removed at the end', async () => {
    for (const protocol of ['grpc', 'connect'] as const) {
      const c = new CuzkClient({ address: d.address, protocol, inlineWitnessBytes: 0 }); // every witness streamed
      await c.pauseQueue();
      let job: JobInfo;
      try {
        job = (await c.submit({ key, witnesses: [w] })).job;
        const files = spoolFiles(d);
        assert.equal(files.length, 1, `${protocol}: one spool file while the job is queued`);
        const f = path.join(d.dataDir, 'spool', files[0]!);
        assert.equal(statSync(f).mode & 0o777, 0o600);
        assert.deepEqual(new Uint8Array(readFileSync(f)), w, 'the spool file is the witness, byte for byte');
        const journal = ['journal.sqlite', 'journal.sqlite-wal'].map((n) => path.join(d.dataDir, n)).filter(existsSync).map((n) => readFileSync(n));
        const tail = Buffer.from(w.subarray(w.length - 64));
        assert.ok(journal.every((b) => !b.includes(tail)), 'the journal holds no witness bytes');
        assert.ok(journal.some((b) => b.includes(Buffer.from(f))), 'the journal names the spool file');
      } finally {
        await c.resumeQueue();
      }
      await assertVerifies(await c.await(job.id));
      await new Promise((r) => setImmediate(r));
      for (let i = 0; i < 100 && spoolFiles(d).length > 0; i++) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(spoolFiles(d), [], `${protocol}: the spool file went with its job`);
    }
  });

  it('a witness that cannot match its key is refused from its header, before the body is read or stored', async () => {
    const other = bytes(bnBits, 'witness.wtns');
    for (const protocol of ['grpc', 'connect'] as const) {
      const c = new CuzkClient({ address: d.address, protocol, inlineWitnessBytes: 0 });
      const e = await rejects(c.submit({ key, witnesses: [other] }), 'E_FORMAT');
      assert.match(e.message, /witness has \d+ values but the key expects \d+/);
    }
    // a 64 MiB body whose header is for another circuit: refused with the first bytes
    const total = 64 << 20;
    const r = await postWitness(d.url, key, other.subarray(0, 200), total);
    assert.equal(r.status, 400, r.body);
    assert.match(r.body, /witness has \d+ values but the key expects \d+/);
    assert.ok(r.sent < total / 2, `answered after ${r.sent} of ${total} bytes`);
    // the size the header implies must be the size announced
    const short = await postWitness(d.url, key, w.subarray(0, 200), w.length + 32);
    assert.equal(short.status, 400);
    assert.match(short.body, /the \.wtns header makes the file \d+ bytes, but \d+ were announced/);
    assert.deepEqual(spoolFiles(d), [], 'nothing of a refused witness is kept');
    const s = await new CuzkClient({ address: d.address }).status();
    assert.equal(s.journal.queued, undefined);
  });

  it('POST /v1/witnesses (curl) then Prove by witness id over JSON', async () => {
    const up = await fetch(`${d.url}/v1/witnesses?key=${encodeURIComponent(key)}`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: w });
    assert.equal(up.status, 200);
    const u = (await up.json()) as { witnessId: string; size: number; sha256: string };
    assert.equal(u.size, w.length);
    assert.match(u.sha256, /^[0-9a-f]{64}$/);
    const res = await fetch(`${d.url}/cuzk.v1.ProvingService/Prove`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ job: { key, witnessIds: [u.witnessId] } }) });
    const body = (await res.json()) as { job: { state: string; proofs: { proof: unknown; publicSignals: string[] }[] } };
    assert.equal(body.job.state, 'JOB_STATE_COMPLETED', JSON.stringify(body));
    assert.equal(await snarkjsVerify(json(bnMult, 'vkey.json'), body.job.proofs[0]!.publicSignals, body.job.proofs[0]!.proof), true);
    // an id is used once
    const again = await fetch(`${d.url}/cuzk.v1.ProvingService/SubmitProof`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key, witnessIds: [u.witnessId] }) });
    assert.equal(again.status, 404);
  });

  it('an upload no job names is removed after limits.upload_ttl_s', async () => {
    const up = await fetch(`${d.url}/v1/witnesses?key=${encodeURIComponent(key)}`, { method: 'POST', body: w });
    assert.equal(up.status, 200);
    assert.equal(spoolFiles(d).length, 1);
    for (let i = 0; i < 300 && spoolFiles(d).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(spoolFiles(d), [], 'the unclaimed upload is gone');
    const { witnessId } = (await up.json()) as { witnessId: string };
    await rejects(new CuzkClient({ address: d.address }).submit({ key, witnessIds: [witnessId] }), 'E_NOT_FOUND');
  });

  it('witness files by reference: inside files.input_dirs only, read in place and kept', async () => {
    const inside = path.join(inputs, 'w.wtns');
    copyFileSync(vectorFile(bnMult, 'witness.wtns'), inside);
    const c = new CuzkClient({ address: d.address });
    await assertVerifies(await c.prove({ key, witnessFiles: [inside] }));
    assert.ok(existsSync(inside), 'a file the client owns is not removed');
    assert.deepEqual(spoolFiles(d), [], 'nothing was copied into the spool');
    const outside = await rejects(c.submit({ key, witnessFiles: [vectorFile(bnMult, 'witness.wtns')] }), 'E_INVALID_ARG');
    assert.doesNotMatch(outside.message, /values|wtns section/, 'nothing about the file outside is told');
    writeFileSync(path.join(inputs, 'not.wtns'), 'hello, not a witness at all: 64 bytes or more of plain text here.');
    await rejects(c.submit({ key, witnessFiles: [path.join(inputs, 'not.wtns')] }), 'E_FORMAT');
  });
});

describe('cuzk serve: spool at start', () => {
  it('spool files no job names are removed; a job whose file is gone ends failed; both in the log', async () => {
    const dataDir = makeDataDir();
    try {
      let d = await startDaemon({ dataDir, args: vectorDirArgs() });
      let c = new CuzkClient({ address: d.address });
      await c.pauseQueue();
      const { job } = await c.submit({ key, witnessIds: [await c.uploadWitness(key, w)] });
      const [spooled] = spoolFiles(d);
      assert.equal(await d.stop('SIGKILL'), 'SIGKILL');
      writeFileSync(path.join(dataDir, 'spool', 'stray.wtns'), 'left by a crash');
      d = await startDaemon({ dataDir, args: vectorDirArgs() });
      c = new CuzkClient({ address: d.address });
      await assertVerifies(await c.await(job.id));
      assert.match(d.logs(), /"removed":1[^\n]*spool files no journaled job names were removed/);
      assert.ok(!existsSync(path.join(dataDir, 'spool', 'stray.wtns')));
      assert.ok(!existsSync(path.join(dataDir, 'spool', spooled!)), 'the job took its file with it');

      await c.pauseQueue();
      const lost = (await c.submit({ key, witnesses: [w] })).job;
      const inline = spoolFiles(d);
      assert.equal(inline.length, 1, 'inline witnesses are spooled too');
      assert.equal(await d.stop('SIGKILL'), 'SIGKILL');
      for (const f of inline) writeFileSync(path.join(dataDir, 'spool', f), ''); // replaced...
      for (const f of inline) removeDataDir(path.join(dataDir, 'spool', f)); // ...and removed outside the daemon
      d = await startDaemon({ dataDir, args: vectorDirArgs() });
      c = new CuzkClient({ address: d.address });
      const gone = await c.await(lost.id, 0);
      assert.equal(gone.state, 'failed');
      assert.equal(gone.error?.code, 'E_NOT_FOUND');
      assert.match(gone.error!.message, /witness file .* is gone/);
      assert.match(d.logs(), new RegExp(`"jobId":"${lost.id}"[^\\n]*journaled job lost its witness file`));
      assert.equal(await d.stop(), 0, d.logs());
    } finally {
      removeDataDir(dataDir);
    }
  });
});
