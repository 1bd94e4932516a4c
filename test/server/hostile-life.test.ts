// Every hostile case of issue #27 that one daemon can be put through, in one `cuzk serve` child's
// life: aborted and stalled uploads, slow header blocks, too many uploads on a connection, oversized
// JSON, witness files swapped for a FIFO or a symlink out, key ids that shadow a path or run to
// megabytes, identical key uploads at once, an old client's LoadKey with the bytes, a fleet witness
// fetched without the fleet's secret. Each case's own test (hostile*.test.ts) checks its answer in
// detail; here each is checked briefly, and at the end the daemon's sockets, open files, spool and
// RSS are back at what they were after warming, and a good job proves and snarkjs verifies it.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { CuzkClient } from '../../src/client/index.js';
import { ProvingService } from '../../src/rpc/gen/cuzk/v1/cuzk_pb.js';
import { removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { closedWithin, h2Over, settles, spoolFiles, startUpload, swappedWitness, tcp, toFifo, toSymlink, uploadHead } from '../helpers/hostile.js';
import { openFiles, rss, sockets } from '../helpers/proc-usage.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const pos = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
const key = vectorFile(pos, 'circuit.zkey');
const wtnsPath = vectorFile(pos, 'witness.wtns');
const wtns = readFileSync(wtnsPath);
const head = uploadHead(key, wtns);
const LIMIT = { timeout: 60_000 };
const MiB = 1024 * 1024;
const json = (name: string) => JSON.parse(readFileSync(vectorFile(pos, name), 'utf8')) as unknown;

describe('cuzk serve: one daemon\'s life of hostile clients gives back what it took', () => {
  let d: DaemonProcess;
  let client: CuzkClient;
  let dirs: { inputs: string; outside: string; keys: string };
  let base: { sockets: number; files: number; spool: string[]; rss: number };

  before(async () => {
    dirs = { inputs: mkdtempSync(path.join(tmpdir(), 'cuzk-inputs-')), outside: mkdtempSync(path.join(tmpdir(), 'cuzk-outside-')), keys: mkdtempSync(path.join(tmpdir(), 'cuzk-keys-')) };
    for (const k of ['pos.zkey', 'pos-b.zkey']) copyFileSync(key, path.join(dirs.keys, k));
    const args = vectorDirArgs(dirs.keys);
    args[args.indexOf('--input-dirs') + 1] = dirs.inputs;
    d = await startDaemon({ args: ['--headers-timeout-ms', '1000', '--idle-timeout-ms', '2000', '--body-timeout-ms', '1500', '--max-uploads-per-connection', '4', '--max-json-bytes', '100000', ...args] });
    client = new CuzkClient({ address: d.address });
    // warm every road the cases take (spool threads, key uploads, witness files, JSON): what they
    // start once is the daemon's from then on, not a leak
    const uploading = new CuzkClient({ address: d.address, inlineWitnessBytes: 0 });
    assert.equal((await uploading.prove({ key, witnesses: [wtns] })).state, 'completed');
    uploading.close();
    assert.equal((await client.prove({ key, witnesses: [wtns] })).state, 'completed');
    await client.loadKey({ zkey: readFileSync(key) }, 'warm');
    assert.equal((await swappedWitness(client, key, wtnsPath, path.join(dirs.inputs, 'warm.wtns'), () => {})).state, 'completed');
    const pid = d.proc.pid!;
    base = { sockets: sockets(pid), files: openFiles(pid), spool: spoolFiles(d), rss: rss(pid) };
  });
  after(async () => {
    client.close();
    const code = await Promise.race([d.stop(), new Promise((r) => setTimeout(r, 10_000, 'hung').unref())]);
    if (code === 'hung') d.proc.kill('SIGKILL');
    assert.equal(code, 0, d.logs());
    removeDataDir(d.dataDir);
    for (const dir of Object.values(dirs)) rmSync(dir, { recursive: true, force: true });
    await terminateSnarkjs();
  });

  it('40 HTTP/2 uploads whose clients vanish (sockets destroyed after 8 KB)', LIMIT, async () => {
    for (let i = 0; i < 40; i++) {
      const { session, socket } = await h2Over(d);
      startUpload(session, head);
      await new Promise((r) => setTimeout(r, 20));
      socket.destroy();
    }
    assert.ok(await settles(() => !spoolFiles(d).some((f) => f.endsWith('.partial')), 10_000), `.partial files left: ${spoolFiles(d).join(' ')}`);
  });

  it('stalled header blocks, prefaces and bodies are cut', LIMIT, async () => {
    const raw = async (bytes: Buffer | string) => {
      const s = await tcp(d.address);
      s.on('error', () => {}).resume();
      s.write(bytes);
      return s;
    };
    const preface = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
    const stalled = await Promise.all([
      raw(Buffer.concat([preface, Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]), Buffer.from([0, 0, 1, 1, 0, 0, 0, 0, 1, 0x82])])), // HEADERS without END_HEADERS
      raw(preface), // no SETTINGS
      raw('PO'), // 2 bytes, then silence
      raw('POST /v1/witnesses HTTP/1.1\r\nHost: cuzk\r\n'), // headers unfinished
      raw(Buffer.concat([Buffer.from(`POST /v1/witnesses?key=${encodeURIComponent(key)} HTTP/1.1\r\nHost: cuzk\r\nContent-Length: ${wtns.length}\r\n\r\n`), wtns.subarray(0, 8192)])),
    ]);
    const { session } = await h2Over(d);
    const body = startUpload(session, head);
    // the timeouts are 1-2 s: 20 s is the bug (open for good), not load
    const closed = await Promise.all([...stalled, body].map((s) => closedWithin(s, 20_000)));
    session.destroy();
    const names = ['h2 HEADERS unfinished', 'h2 preface without SETTINGS', '2 bytes', 'h1 headers unfinished', 'h1 body stalled', 'h2 body stalled'];
    assert.deepEqual(names.filter((_, i) => !closed[i]), [], 'still open after 20 s');
  });

  it('uploads over limits.max_uploads_per_connection, and JSON over limits.max_json_bytes, are refused', LIMIT, async () => {
    const { session } = await h2Over(d);
    const held = Array.from({ length: 4 }, () => startUpload(session, head));
    await new Promise((r) => setTimeout(r, 200));
    const extra = startUpload(session, head);
    const answer = await new Promise<http2.IncomingHttpHeaders>((resolve) => extra.once('response', resolve));
    assert.equal(answer['grpc-status'], '8', JSON.stringify(answer)); // RESOURCE_EXHAUSTED
    for (const s of held) s.close(http2.constants.NGHTTP2_CANCEL);
    session.destroy();
    const big = Buffer.alloc(200_000, 1).toString('base64');
    const r = await fetch(`${d.url}/cuzk.v1.ProvingService/SubmitProof`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key, witnesses: [big] }) });
    assert.equal(r.status, 400);
    assert.match(((await r.json()) as { message: string }).message, /limits\.max_json_bytes/);
  });

  it('witness files swapped after submit for a FIFO or a symlink out fail their jobs; the daemon answers', LIMIT, async () => {
    const fifo = path.join(dirs.inputs, 'swap.wtns');
    // a daemon stuck in open(2) on the FIFO answers nothing: the writer below is what would free it
    const unstick = setTimeout(() => { try { writeFileSync(fifo, ''); } catch { /* gone */ } }, 20_000);
    try {
      const job = await swappedWitness(client, key, wtnsPath, fifo, toFifo);
      assert.equal(job.state, 'failed');
      assert.match(job.error!.message, /not a regular file/);
    } finally {
      clearTimeout(unstick);
    }
    writeFileSync(path.join(dirs.outside, 'secret'), 'root:x:0:0\n');
    const out = await swappedWitness(client, key, wtnsPath, path.join(dirs.inputs, 'link.wtns'), toSymlink(path.join(dirs.outside, 'secret')));
    assert.equal(out.state, 'failed');
    assert.match(out.error!.message, /not inside a directory this daemon reads witness files from/);
    assert.equal((await fetch(`${d.url}/healthz`, { signal: AbortSignal.timeout(5000) })).status, 200);
  });

  it('key ids that shadow a path or run to 60,000 characters are refused', LIMIT, async () => {
    const a = path.join(dirs.keys, 'pos.zkey'), b = path.join(dirs.keys, 'pos-b.zkey');
    await assert.rejects(client.loadKey({ path: a }, b), /looks like a path/);
    await assert.rejects(client.loadKey({ zkey: readFileSync(key) }, b), /looks like a path/);
    await assert.rejects(client.loadKey({ path: a }, 'k'.repeat(60_000)), /60000 characters, at most 4096/);
    const job = await client.prove({ key: b, witnesses: [wtns] });
    assert.equal(job.state, 'completed');
    assert.equal((await client.listKeys()).find((k) => k.id === job.key)?.path, b);
  });

  it('identical key uploads at once all load, and an old client\'s LoadKey with the bytes still does', LIMIT, async () => {
    const clients = Array.from({ length: 4 }, () => new CuzkClient({ address: d.address }));
    try {
      for (let round = 0; round < 2; round++) {
        // bytes after a .zkey's last section are not read: a new file each round, and large enough
        // that writing it takes many turns of the event loop (the race's window)
        const bytes = Buffer.concat([readFileSync(key), Buffer.from(`life ${round} ${process.pid}`), Buffer.alloc(16 * MiB)]);
        const got = await Promise.all(clients.map((c, i) => c.loadKey({ zkey: bytes }, `life-${round}-${i}`)));
        assert.equal(new Set(got.map((k) => k.path)).size, 1);
      }
    } finally {
      for (const c of clients) c.close();
    }
    const session = new Http2SessionManager(d.url);
    const old = createClient(ProvingService, createGrpcTransport({ baseUrl: d.url, sessionManager: session }));
    try {
      assert.equal((await old.loadKey({ source: { case: 'zkey', value: readFileSync(key) }, id: 'old-client' })).id, 'old-client');
    } finally {
      session.abort();
    }
    assert.deepEqual(readdirSync(path.join(d.dataDir, 'keys')).filter((f) => !f.endsWith('.zkey')), [], 'temporary key files left');
  });

  it('a fleet witness fetched without the fleet\'s secret is refused (a SQLite daemon has none)', LIMIT, async () => {
    await client.pauseQueue();
    const uploading = new CuzkClient({ address: d.address, inlineWitnessBytes: 0 });
    const { job } = await uploading.submit({ key, witnesses: [wtns] });
    uploading.close();
    const r = await fetch(`${d.url}/v1/fleet/witnesses/${job.id}/0`);
    assert.equal(r.status, 401, await r.clone().text());
    assert.equal((await client.cancel(job.id)).state, 'cancelled');
    await client.resumeQueue();
  });

  it('afterwards its sockets, open files, spool and RSS are back at baseline, and a good job proves and verifies', LIMIT, async () => {
    const pid = d.proc.pid!;
    const now = () => ({ sockets: sockets(pid), files: openFiles(pid), spool: spoolFiles(d) });
    // sockets and files close within a second or two of the timeouts and FINs, even under load
    await settles(() => { const n = now(); return n.sockets <= base.sockets + 2 && n.files <= base.files && n.spool.length <= base.spool.length; }, 15_000);
    const end = now();
    assert.ok(end.sockets <= base.sockets + 2, `daemon sockets ${base.sockets} after warming, ${end.sockets} after the hostile cases`);
    assert.ok(end.files <= base.files, `daemon open files ${base.files} after warming, ${end.files} after the hostile cases`);
    assert.deepEqual(end.spool.filter((f) => !base.spool.includes(f)), [], 'spool files left');
    // RSS comes back as the daemon's GC runs, late under load; a leak never does
    await settles(() => rss(pid) - base.rss < 200 * MiB, 15_000);
    const grown = rss(pid) - base.rss;
    assert.ok(grown < 200 * MiB, `RSS grew ${(grown / MiB).toFixed(0)} MiB and stayed there for 15 s`);
    const job = await client.prove({ key, witnesses: [wtns] });
    assert.equal(job.state, 'completed', JSON.stringify(job.error));
    const p = job.proofs![0]!;
    assert.deepEqual(p.publicSignals, json('public.json'));
    assert.equal(await snarkjsVerify(json('vkey.json'), p.publicSignals, p.proof), true, 'snarkjs rejects the proof');
  });
});
