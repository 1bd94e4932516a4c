// The daemon's front door, against real `cuzk serve` children: an unauthenticated request is answered
// on its headers, before its body is read or held (HTTP/1.1 and HTTP/2, gRPC and Connect); requests
// are decoded strictly (unknown JSON fields and enum values, undecodable protobuf, the size limit by
// its cuzk name); silent, half-sent and idle connections are closed, and connections are capped.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { CuzkClient, CuzkError } from '../../src/client/index.js';
import { removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const multKey = vectorFile(bnMult, 'circuit.zkey');
const multWtns = readFileSync(vectorFile(bnMult, 'witness.wtns'));
const TOKEN = 'frontdoor-token-0123456789';
const MiB = 1024 * 1024;
const BODY_BYTES = 256_000_000; // 244 MiB, under the default limits.max_message_bytes
const CHUNK = Buffer.alloc(MiB, 0x41);
const RPC = '/cuzk.v1.ProvingService/SubmitProof';
const LIMIT = { timeout: 60_000 }; // a front door that waits for the body hangs: fail, do not hang

const rssBytes = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
const caught = <T>(p: Promise<T>): Promise<T | CuzkError> => p.then((v) => v, (e: unknown) => e as CuzkError);
const closed = (s: net.Socket) => new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));

function rawSocket(address: string): Promise<net.Socket> {
  const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
  return new Promise((resolve, reject) => {
    const s = net.connect(port, host, () => resolve(s));
    s.on('error', reject);
  });
}

/** Sends `head`, then body chunks until the response has arrived or the server closed: the written
 * byte count says whether the server answered before it had the body. */
async function h1Upload(address: string, head: string): Promise<{ response: string; written: number }> {
  const s = await rawSocket(address);
  s.removeAllListeners('error');
  s.on('error', () => {});
  let response = '';
  let done = false;
  const answered = () => {
    const end = response.indexOf('\r\n\r\n');
    const len = /content-length: (\d+)/i.exec(response)?.[1];
    return end >= 0 && len !== undefined && response.length >= end + 4 + Number(len);
  };
  let wake = () => {};
  s.on('data', (d: Buffer) => {
    response += d.toString('latin1');
    if (answered()) done = true;
    wake();
  });
  s.once('close', () => {
    done = true;
    wake();
  });
  s.on('drain', () => wake());
  s.write(head);
  let written = 0;
  while (!done && written < BODY_BYTES) {
    const ok = s.write(CHUNK.subarray(0, Math.min(CHUNK.length, BODY_BYTES - written)));
    written += Math.min(CHUNK.length, BODY_BYTES - written);
    if (!ok) await new Promise<void>((r) => (wake = r));
  }
  while (!done) await new Promise<void>((r) => (wake = r));
  s.destroy();
  return { response, written };
}

/** The same over HTTP/2: one stream, body chunks until the response headers come. */
async function h2Upload(url: string, headers: http2.OutgoingHttpHeaders): Promise<{ headers: http2.IncomingHttpHeaders; endStream: boolean; body: string; written: number }> {
  const session = http2.connect(url);
  session.on('error', () => {});
  const stream = session.request({ ':method': 'POST', ':path': RPC, ...headers });
  stream.on('error', () => {});
  let res: { headers: http2.IncomingHttpHeaders; endStream: boolean } | undefined;
  let body = '';
  const ended = new Promise<void>((resolve) => stream.once('close', resolve));
  let wake = () => {};
  stream.on('response', (h, flags) => {
    res = { headers: h, endStream: (flags & http2.constants.NGHTTP2_FLAG_END_STREAM) !== 0 };
    wake();
  });
  stream.on('close', () => wake());
  stream.on('drain', () => wake());
  stream.on('data', (d: Buffer) => (body += d));
  const envelope = Buffer.alloc(5);
  envelope.writeUInt32BE(BODY_BYTES - 5, 1);
  stream.write(envelope);
  let written = 5;
  while (!res && !stream.closed && written < BODY_BYTES) {
    const n = Math.min(CHUNK.length, BODY_BYTES - written);
    const ok = stream.write(CHUNK.subarray(0, n));
    written += n;
    if (!ok) await new Promise<void>((r) => (wake = r));
  }
  await ended;
  session.destroy();
  assert.ok(res, 'no response headers');
  return { ...res, body, written };
}

describe('cuzk serve: the token is checked on the headers, before the body', () => {
  let d: DaemonProcess;
  before(async () => {
    d = await startDaemon({ args: ['--token', TOKEN, ...vectorDirArgs()] });
  });
  after(async () => {
    assert.equal(await d.stop(), 0, d.logs());
    removeDataDir(d.dataDir);
  });

  it('HTTP/1.1 (Connect): 401 E_UNAUTHORIZED while the body is still being sent; nothing held', LIMIT, async () => {
    const rss = rssBytes(d.proc.pid!);
    const head = `POST ${RPC} HTTP/1.1\r\nHost: cuzk\r\nContent-Type: application/proto\r\nContent-Length: ${BODY_BYTES}\r\n\r\n`;
    const { response, written } = await h1Upload(d.address, head);
    assert.match(response, /^HTTP\/1\.1 401 /);
    assert.match(response, /\r\ncuzk-error-code: E_UNAUTHORIZED\r\n/i);
    const body = JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { code: string; message: string };
    assert.equal(body.code, 'unauthenticated');
    assert.match(body.message, /^E_UNAUTHORIZED: missing or wrong bearer token/);
    assert.ok(written < BODY_BYTES / 4, `the 401 came after ${written} of ${BODY_BYTES} body bytes`);
    const grown = rssBytes(d.proc.pid!) - rss;
    assert.ok(grown < 64 * MiB, `daemon RSS grew by ${(grown / MiB).toFixed(0)} MiB`);
  });

  it('HTTP/2: gRPC gets trailers-only UNAUTHENTICATED, Connect a 401, before the body; nothing held', LIMIT, async () => {
    const rss = rssBytes(d.proc.pid!);
    const grpc = await h2Upload(d.url, { 'content-type': 'application/grpc', te: 'trailers' });
    assert.equal(grpc.headers[':status'], 200);
    assert.equal(grpc.headers['grpc-status'], '16');
    assert.equal(grpc.headers['cuzk-error-code'], 'E_UNAUTHORIZED');
    assert.ok(grpc.endStream, 'a trailers-only response ends the stream on its headers');
    assert.ok(grpc.written < BODY_BYTES / 4, `the answer came after ${grpc.written} of ${BODY_BYTES} body bytes`);
    const connect = await h2Upload(d.url, { 'content-type': 'application/proto', 'content-length': String(BODY_BYTES) });
    assert.equal(connect.headers[':status'], 401);
    assert.equal(connect.headers['cuzk-error-code'], 'E_UNAUTHORIZED');
    assert.equal((JSON.parse(connect.body) as { code: string }).code, 'unauthenticated');
    assert.ok(connect.written < BODY_BYTES / 4, `the 401 came after ${connect.written} of ${BODY_BYTES} body bytes`);
    const grown = rssBytes(d.proc.pid!) - rss;
    assert.ok(grown < 64 * MiB, `daemon RSS grew by ${(grown / MiB).toFixed(0)} MiB`);
    assert.equal((await new CuzkClient({ address: d.address, token: TOKEN }).prove({ key: multKey, witnesses: [multWtns] })).state, 'completed');
  });

  it('JSON is decoded strictly: an unknown field or enum value is a 400 naming it', LIMIT, async () => {
    const post = (body: Record<string, unknown>) =>
      fetch(`${d.url}${RPC}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: JSON.stringify(body) });
    const job = { key: multKey, witnesses: [multWtns.toString('base64')] };
    const ok = await post(job);
    assert.equal(ok.status, 200, await ok.clone().text());
    for (const [extra, named] of [[{ requestID: 'r-1' }, /requestID/], [{ priority: 'PRIORITY_BOGUS' }, /priority.*PRIORITY_BOGUS|PRIORITY_BOGUS.*priority/]] as const) {
      const r = await post({ ...job, ...extra });
      assert.equal(r.status, 400, `${JSON.stringify(extra)} was accepted`);
      assert.equal(r.headers.get('cuzk-error-code'), 'E_INVALID_ARG');
      const body = (await r.json()) as { code: string; message: string };
      assert.equal(body.code, 'invalid_argument');
      assert.match(body.message, named);
    }
  });

  it('undecodable protobuf over gRPC is INVALID_ARGUMENT, not INTERNAL', LIMIT, async () => {
    const session = http2.connect(d.url);
    try {
      const garbage = Buffer.from([0, 0, 0, 0, 5, 0xff, 0xff, 0xff, 0x0f, 0x01]);
      const s = session.request({ ':method': 'POST', ':path': RPC, 'content-type': 'application/grpc', te: 'trailers', authorization: `Bearer ${TOKEN}` });
      const meta: http2.IncomingHttpHeaders = {};
      s.on('response', (h) => Object.assign(meta, h));
      s.on('trailers', (h) => Object.assign(meta, h));
      s.resume();
      s.end(garbage);
      await new Promise((r) => s.once('close', r));
      assert.equal(meta['grpc-status'], '3', JSON.stringify(meta));
      assert.equal(meta['cuzk-error-code'], 'E_INVALID_ARG');
      assert.match(decodeURIComponent(String(meta['grpc-message'])), /not a valid protobuf message/);
    } finally {
      session.close();
    }
  });
});

describe('cuzk serve: limits.max_message_bytes', () => {
  let d: DaemonProcess;
  before(async () => {
    d = await startDaemon({ args: ['--max-message-bytes', '400000', ...vectorDirArgs()] });
  });
  after(async () => {
    assert.equal(await d.stop(), 0, d.logs());
    removeDataDir(d.dataDir);
  });

  it('a message over the limit is refused naming limits.max_message_bytes, on every protocol', LIMIT, async () => {
    const big = new Uint8Array(500_000);
    big.set([0x77, 0x74, 0x6e, 0x73]);
    for (const protocol of ['grpc', 'connect'] as const) {
      // inline on purpose (the SDK would otherwise stream it with UploadWitness)
      const e = (await caught(new CuzkClient({ address: d.address, protocol, inlineWitnessBytes: Infinity }).submit({ key: multKey, witnesses: [big] }))) as CuzkError;
      assert.ok(e instanceof CuzkError, `${protocol}: accepted`);
      assert.equal(e.code, 'E_INVALID_ARG', `${protocol}: ${e.message}`);
      assert.match(e.message, /message too large: (\d+ bytes, )?more than limits\.max_message_bytes 400000/, protocol);
      assert.doesNotMatch(e.message, /readMaxBytes/, protocol);
    }
    const r = await fetch(`${d.url}${RPC}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: multKey, witnesses: [Buffer.from(big).toString('base64')] }) });
    assert.equal(r.status, 400);
    assert.match(((await r.json()) as { message: string }).message, /more than limits\.max_message_bytes 400000/);
  });
});

describe('cuzk serve: connection timeouts', () => {
  let d: DaemonProcess;
  before(async () => {
    d = await startDaemon({ args: ['--headers-timeout-ms', '300', '--idle-timeout-ms', '300'] });
  });
  after(async () => {
    assert.equal(await d.stop(), 0, d.logs());
    removeDataDir(d.dataDir);
  });

  it('silent connections, half-sent headers and HTTP/2 sessions without a stream are closed (limits.headers_timeout_ms)', LIMIT, async () => {
    const silent = await Promise.all(Array.from({ length: 20 }, () => rawSocket(d.address)));
    const halfH1 = await Promise.all(Array.from({ length: 5 }, () => rawSocket(d.address)));
    for (const s of halfH1) s.write(`POST ${RPC} HTTP/1.1\r\nHost: cuzk\r\n`);
    const bareH2 = await Promise.all(Array.from({ length: 5 }, () => rawSocket(d.address)));
    const settingsFrame = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);
    for (const s of bareH2) s.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), settingsFrame]));
    for (const s of [...silent, ...halfH1, ...bareH2]) s.on('error', () => {}).resume();
    await Promise.all([...silent, ...halfH1, ...bareH2].map(closed));
    assert.equal((await fetch(`${d.url}/healthz`)).status, 200);
  });

  it('idle keep-alive connections close (limits.idle_timeout_ms); HTTP/2 windows and stream cap are set', LIMIT, async () => {
    const h1 = await rawSocket(d.address);
    let text = '';
    h1.on('data', (b: Buffer) => (text += b));
    h1.write('GET /healthz HTTP/1.1\r\nHost: cuzk\r\n\r\n');
    await closed(h1);
    assert.match(text, /^HTTP\/1\.1 200 /);
    const session = http2.connect(d.url);
    const settings = new Promise<http2.Settings>((r) => session.once('remoteSettings', r));
    const s = session.request({ ':path': '/healthz' });
    s.resume();
    await new Promise((r) => s.once('close', r));
    const remote = await settings;
    assert.equal(remote.maxConcurrentStreams, 100);
    assert.equal(remote.initialWindowSize, 8 * MiB);
    await new Promise((r) => session.once('close', r));
  });
});

describe('cuzk serve: limits.max_connections', () => {
  let d: DaemonProcess;
  before(async () => {
    d = await startDaemon({ args: ['--max-connections', '3', '--headers-timeout-ms', '120000'] });
  });
  after(async () => {
    assert.equal(await d.stop(), 0, d.logs());
    removeDataDir(d.dataDir);
  });

  it('a connection beyond the limit is closed at once; freed slots serve again', LIMIT, async () => {
    const held: net.Socket[] = [];
    for (let i = 0; i < 3; i++) held.push(await rawSocket(d.address));
    const extra = await rawSocket(d.address);
    let got = 0;
    extra.on('data', (b: Buffer) => (got += b.length)).on('error', () => {});
    await closed(extra);
    assert.equal(got, 0);
    for (const s of held) s.destroy();
    // the daemon frees the slots when it sees the closes: retry until it has
    let status = 0;
    for (let i = 0; i < 200 && status !== 200; i++) status = await fetch(`${d.url}/healthz`).then((r) => r.status, () => 0);
    assert.equal(status, 200);
  });
});
