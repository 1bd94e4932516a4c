// Hostile clients against one `cuzk serve` child (issue #27): aborted HTTP/2 uploads, stalled
// header blocks and bodies, too many uploads on one connection, oversized JSON. Each is answered or
// cut, and afterwards the daemon's sockets, spool files and RSS are back at their baseline while a
// good client proves throughout. Timing bounds are what the bug would break by far: a leak keeps its
// socket and .partial file for good, a missing timeout keeps a connection open for the test's 60 s.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { after, before, describe, it } from 'node:test';
import { CuzkClient } from '../../src/client/index.js';
import { removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { closedWithin, h2Over, spoolFiles, startUpload as startStream, tcp, uploadHead } from '../helpers/hostile.js';
import { rss, sockets } from '../helpers/proc-usage.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const pos = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
const key = vectorFile(pos, 'circuit.zkey');
const wtns = readFileSync(vectorFile(pos, 'witness.wtns')); // 16716 bytes
const LIMIT = { timeout: 90_000 };
const MiB = 1024 * 1024;

const head = uploadHead(key, wtns);
const startUpload = (session: http2.ClientHttp2Session) => startStream(session, head);

describe('cuzk serve: hostile clients leave nothing behind', () => {
  let d: DaemonProcess;
  let client: CuzkClient;
  before(async () => {
    d = await startDaemon({ args: ['--headers-timeout-ms', '1000', '--idle-timeout-ms', '2000', '--body-timeout-ms', '1500', '--max-uploads-per-connection', '4', '--max-json-bytes', '100000', ...vectorDirArgs()] });
    client = new CuzkClient({ address: d.address });
    // warm: the spool threads start on the first upload (their fds are the daemon's from then on)
    assert.equal((await client.prove({ key, witnesses: [wtns] })).state, 'completed');
  });
  after(async () => {
    client.close();
    assert.equal(await d.stop(), 0, d.logs());
    removeDataDir(d.dataDir);
  });

  it('an HTTP/2 upload whose client vanishes (socket destroyed, no RST_STREAM) frees its socket, fd and .partial file', LIMIT, async () => {
    const pid = d.proc.pid!;
    const base = sockets(pid);
    for (let i = 0; i < 40; i++) {
      const { session, socket } = await h2Over(d);
      startUpload(session);
      await new Promise((r) => setTimeout(r, 20));
      socket.destroy();
    }
    // leaked, they stay for good; freed, within a second or two of loopback FINs even under load
    let left = Infinity, partial = Infinity;
    for (let i = 0; i < 100 && (left > base + 2 || partial > 0); i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = sockets(pid);
      partial = spoolFiles(d).filter((f) => f.endsWith('.partial')).length;
    }
    assert.equal(partial, 0, `.partial files left: ${spoolFiles(d).join(' ')}`);
    assert.ok(left <= base + 2, `daemon sockets ${base} before, ${left} after 40 aborted uploads`);
  });

  it('a header block left open, and upload bodies that stall, are cut (headers and body timeouts)', LIMIT, async () => {
    const partialHeaders = await tcp(d.address);
    partialHeaders.on('error', () => {}).resume();
    // the preface, SETTINGS, then HEADERS for stream 1 without END_HEADERS
    partialHeaders.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]), Buffer.from([0, 0, 1, 1, 0, 0, 0, 0, 1, 0x82])]));
    const h1 = await tcp(d.address);
    h1.on('error', () => {}).resume();
    h1.write(`POST /v1/witnesses?key=${encodeURIComponent(key)} HTTP/1.1\r\nHost: cuzk\r\nContent-Length: ${wtns.length}\r\n\r\n`);
    h1.write(wtns.subarray(0, 8192));
    const { session } = await h2Over(d);
    const stalled = startUpload(session);
    // the timeouts are 1-1.5 s: 20 s is the bug (open for good), not load
    const [a, b, c] = await Promise.all([closedWithin(partialHeaders, 20_000), closedWithin(h1, 20_000), closedWithin(stalled, 20_000)]);
    session.destroy();
    assert.ok(a, 'HTTP/2 connection with an unfinished header block still open');
    assert.ok(b, 'HTTP/1.1 upload stalled after 8 KB still open');
    assert.ok(c, 'HTTP/2 upload stalled after 8 KB still open');
    for (let i = 0; i < 50 && spoolFiles(d).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(spoolFiles(d), []);
  });

  it('one connection has at most limits.max_uploads_per_connection uploads in flight', LIMIT, async () => {
    const { session } = await h2Over(d);
    const held = Array.from({ length: 4 }, () => startUpload(session));
    await new Promise((r) => setTimeout(r, 200));
    const extra = startUpload(session);
    const trailers = await new Promise<http2.IncomingHttpHeaders>((resolve) => extra.once('response', resolve));
    assert.equal(trailers['grpc-status'], '8', JSON.stringify(trailers)); // RESOURCE_EXHAUSTED
    assert.match(decodeURIComponent(String(trailers['grpc-message'])), /limits\.max_uploads_per_connection/);
    for (const s of held) s.close(http2.constants.NGHTTP2_CANCEL);
    session.destroy();
  });

  it('a JSON request over limits.max_json_bytes is a 400 that names it and says what to use instead', LIMIT, async () => {
    const big = Buffer.alloc(200_000, 1).toString('base64');
    const r = await fetch(`${d.url}/cuzk.v1.ProvingService/SubmitProof`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key, witnesses: [big] }) });
    assert.equal(r.status, 400);
    const body = (await r.json()) as { message: string };
    assert.match(body.message, /more than limits\.max_json_bytes 100000.*UploadWitness/);
    const ok = await fetch(`${d.url}/cuzk.v1.ProvingService/SubmitProof`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key, witnesses: [wtns.toString('base64')] }) });
    assert.equal(ok.status, 200, await ok.clone().text());
  });

  it('after 600 aborted and stalled uploads, sockets, spool files and RSS are back at baseline; a good client proved throughout', LIMIT, async () => {
    const pid = d.proc.pid!;
    const base = { sockets: sockets(pid), rss: rss(pid) };
    let proofs = 0;
    let hostile = true;
    const good = (async () => {
      while (hostile) {
        assert.equal((await client.prove({ key, witnesses: [wtns] })).state, 'completed');
        proofs++;
      }
    })();
    for (let round = 0; round < 30; round++) {
      const conns = await Promise.all(Array.from({ length: 5 }, () => h2Over(d)));
      for (const { session } of conns) for (let k = 0; k < 4; k++) startUpload(session); // 4 per connection: the cap
      await new Promise((r) => setTimeout(r, 30));
      // half vanish, half are left to stall into the body timeout
      conns.forEach(({ socket, session }, i) => (i % 2 === 0 ? socket.destroy() : setTimeout(() => session.destroy(), 4000).unref()));
    }
    let now = { sockets: Infinity, spool: Infinity };
    for (let i = 0; i < 200 && (now.sockets > base.sockets + 4 || now.spool > 0); i++) {
      await new Promise((r) => setTimeout(r, 100));
      now = { sockets: sockets(pid), spool: spoolFiles(d).length };
    }
    hostile = false;
    await good;
    assert.ok(proofs > 0, 'the good client proved nothing');
    assert.equal(now.spool, 0, `spool files left: ${spoolFiles(d).join(' ')}`);
    assert.ok(now.sockets <= base.sockets + 4, `daemon sockets ${base.sockets} before, ${now.sockets} after`);
    // RSS comes back as the daemon's GC runs (late under load: one full-suite run read 200 MiB at
    // once); a leak (the bug: ~330 KB per aborted upload, ~200 MiB here) never does
    let grown = rss(pid) - base.rss;
    for (let i = 0; i < 60 && grown >= 200 * MiB; i++) {
      await new Promise((r) => setTimeout(r, 250));
      grown = rss(pid) - base.rss;
    }
    assert.ok(grown < 200 * MiB, `RSS grew ${(grown / MiB).toFixed(0)} MiB and stayed there for 15 s`);
    assert.equal((await client.prove({ key, witnesses: [wtns] })).state, 'completed');
  });
});
