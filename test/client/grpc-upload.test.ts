// UploadWitness over gRPC as CuzkClient sends it with uploads: 'stream' (src/client/grpc-upload.ts): a multi-chunk witness
// arrives byte for byte, written from the caller's buffer, and proves; a refusal (another key's
// witness, a wrong token, too large, a chunk over the daemon's message limit) is the CuzkError the
// SDK gave when it sent through connect-es, which the reference upload below still does; a peer
// that cuts the stream off mid-upload makes it reject; a peer that stops reading stops the writes
// (and, from a file, the reads).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient, type Interceptor } from '@connectrpc/connect';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { CuzkClient, CuzkError } from '../../src/client/index.js';
import { errorFromRpc } from '../../src/client/convert.js';
import { uploadOverGrpc, type Http2Streams } from '../../src/client/grpc-upload.js';
import { openUploadBody } from '../../src/client/upload-body.js';
import { ProvingService, WitnessChunkSchema, WitnessUploadSchema } from '../../src/rpc/gen/cuzk/v1/cuzk_pb.js';
import { removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { slowDevKey, type DevKey } from '../helpers/dev-key.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const TOKEN = 'grpc-upload-test';
const MAX_JOB_BYTES = 3.5 * 2 ** 20;
const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const multKey = vectorFile(bnMult, 'circuit.zkey');

let dev: DevKey;
let big: Uint8Array; // 100,001 constraints: 3,200,236 bytes, 4 chunks of 1 MiB, the last one short
let d: DaemonProcess;
before(async () => {
  dev = await slowDevKey(100_001);
  big = new Uint8Array(readFileSync(dev.wtns));
  d = await startDaemon({ args: ['--token', TOKEN, '--max-job-bytes', String(MAX_JOB_BYTES), ...vectorDirArgs(path.dirname(dev.zkey))] });
});
after(async () => {
  assert.equal(await d.stop(), 0, d.logs());
  removeDataDir(d.dataDir);
  await terminateSnarkjs();
});

/** The upload as the SDK sent it through connect-es's gRPC transport: 1 MiB WitnessChunk messages. */
async function uploadViaConnectEs(address: string, token: string, key: string, w: Uint8Array): Promise<string> {
  const auth: Interceptor = (next) => (req) => {
    req.header.set('authorization', `Bearer ${token}`);
    return next(req);
  };
  const rpc = createClient(ProvingService, createGrpcTransport({ baseUrl: `http://${address}`, interceptors: [auth] }));
  async function* chunks() {
    for (let o = 0; o < w.length; o += 1 << 20) {
      const data = w.subarray(o, Math.min(w.length, o + (1 << 20)));
      yield o === 0 ? { key, size: BigInt(w.length), data } : { data };
    }
  }
  try {
    return (await rpc.uploadWitness(chunks())).witnessId;
  } catch (err) {
    throw errorFromRpc(err, address);
  }
}

async function rejection(p: Promise<unknown>): Promise<CuzkError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof CuzkError, `expected a CuzkError, got ${String(err)}`);
  return err;
}

/** The SDK's refusal equals connect-es's, code and message; returns it. */
async function sameRefusal(address: string, token: string, key: string, w: Uint8Array, code: string, message: RegExp): Promise<CuzkError> {
  const sdk = await rejection(new CuzkClient({ address, token, uploads: 'stream' }).uploadWitness(key, w));
  const ref = await rejection(uploadViaConnectEs(address, token, key, w));
  assert.deepEqual({ code: sdk.code, message: sdk.message }, { code: ref.code, message: ref.message });
  assert.equal(sdk.code, code, sdk.message);
  assert.match(sdk.message, message);
  return sdk;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

interface Write {
  bytes: Uint8Array;
  /** Bytes the stream held, not yet sent, when this was written. */
  buffered: number;
}

/** `sm` with every write to its streams recorded. */
function spied(sm: Http2SessionManager): { session: Http2Streams; writes: Write[]; streams: http2.ClientHttp2Stream[] } {
  const writes: Write[] = [];
  const streams: http2.ClientHttp2Stream[] = [];
  const session: Http2Streams = {
    request: async (...args) => {
      const s = await sm.request(...args);
      const write = s.write.bind(s) as (b: Uint8Array) => boolean;
      s.write = ((b: Uint8Array, ...rest: unknown[]) => {
        writes.push({ bytes: b, buffered: s.writableLength });
        return (write as (...a: unknown[]) => boolean)(b, ...rest);
      }) as typeof s.write;
      streams.push(s);
      return s;
    },
    notifyResponseByteRead: (s) => sm.notifyResponseByteRead(s),
  };
  return { session, writes, streams };
}

/** The writes are small heads, each before a view of `w`, in order, that together are all of `w`. */
function assertNoCopy(writes: Write[], w: Uint8Array, chunkBytes: number): void {
  const views = writes.filter((x) => x.bytes.buffer === w.buffer);
  const heads = writes.filter((x) => x.bytes.buffer !== w.buffer);
  assert.equal(views.length, Math.ceil(w.length / chunkBytes));
  assert.equal(heads.length, views.length);
  let at = w.byteOffset;
  for (const v of views) {
    assert.equal(v.bytes.byteOffset, at, 'the chunks are consecutive views of the witness');
    at += v.bytes.length;
  }
  assert.equal(at - w.byteOffset, w.length);
  assert.ok(heads.every((h) => h.bytes.length < 200), `heads of ${heads.map((h) => h.bytes.length)} bytes`);
}

describe('CuzkClient: UploadWitness over gRPC', () => {
  it('writes each chunk from the caller\'s buffer: the daemon\'s size and sha256 match, and it proves from it', async () => {
    const sm = new Http2SessionManager(`http://${d.address}`);
    const { session, writes } = spied(sm);
    try {
      const up = await uploadOverGrpc({ session, token: TOKEN, readMaxBytes: 1 << 20 }, dev.zkey, await openUploadBody(big, 'witness'), 1 << 20);
      assert.equal(up.size, BigInt(big.length));
      assert.equal(up.sha256, sha256(big));
      assertNoCopy(writes, big, 1 << 20);
      assert.ok(writes.every((x, i) => i % 2 === 1 || x.buffered === 0), `a message was written onto a full stream: ${writes.map((x) => x.buffered)}`);
      const job = await new CuzkClient({ address: d.address, token: TOKEN }).prove({ key: dev.zkey, witnessIds: [up.witnessId] });
      assert.equal(job.state, 'completed', JSON.stringify(job.error));
      const p = job.proofs![0]!;
      assert.equal(await snarkjsVerify(JSON.parse(readFileSync(dev.vkey, 'utf8')), p.publicSignals, p.proof), true, 'snarkjs rejects the proof');
    } finally {
      sm.abort();
    }
  });

  it('a multi-chunk witness of an odd size arrives byte for byte: the daemon proves from it', async () => {
    assert.ok(big.length > 3 * 2 ** 20 && big.length % 2 ** 20 !== 0, `fixture is ${big.length} bytes`);
    const c = new CuzkClient({ address: d.address, token: TOKEN, inlineWitnessBytes: 0, uploads: 'stream' });
    const job = await c.prove({ key: dev.zkey, witnesses: [big] });
    assert.equal(job.state, 'completed', JSON.stringify(job.error));
    const p = job.proofs![0]!;
    assert.equal(await snarkjsVerify(JSON.parse(readFileSync(dev.vkey, 'utf8')), p.publicSignals, p.proof), true, 'snarkjs rejects the proof');
  });

  it('over a unix socket too, on the client\'s one connection, which close() ends', async () => {
    const local = await startDaemon({ socket: true, args: vectorDirArgs(path.dirname(dev.zkey)) });
    try {
      const c = new CuzkClient({ address: local.address, inlineWitnessBytes: 0, uploads: 'stream' });
      const job = await c.prove({ key: dev.zkey, witnesses: [big] });
      assert.equal(job.state, 'completed', JSON.stringify(job.error));
      assert.equal(job.proofs?.length, 1);
      c.close();
      // closed, a call opens a new connection
      assert.match(await c.uploadWitness(dev.zkey, big), /\S/);
      c.close();
    } finally {
      assert.equal(await local.stop(), 0, local.logs());
      removeDataDir(local.dataDir);
    }
  });

  it('a refused upload gives the CuzkError it gave through connect-es', async () => {
    await sameRefusal(d.address, TOKEN, multKey, big, 'E_FORMAT', /witness has \d+ values but the key expects \d+/);
    await sameRefusal(d.address, 'not-the-token', dev.zkey, big, 'E_UNAUTHORIZED', /token/i);
    const tooBig = new Uint8Array(4 << 20);
    tooBig.set(big.subarray(0, 1024));
    await sameRefusal(d.address, TOKEN, dev.zkey, tooBig, 'E_LIMIT', new RegExp(`the witness is ${tooBig.length} bytes, more than limits.max_job_bytes ${MAX_JOB_BYTES} \\(--max-job-bytes`));
    await sameRefusal(d.address, TOKEN, dev.zkey, new Uint8Array(0), 'E_INVALID_ARG', /no chunk arrived/);
    await sameRefusal(d.address, TOKEN, 'no-such-key', big, 'E_NOT_FOUND', /no-such-key/);
  });

  it('a chunk over the daemon\'s message limit is refused mid-stream, with the limit named', async () => {
    const small = await startDaemon({ args: ['--max-message-bytes', '600000', ...vectorDirArgs(path.dirname(dev.zkey))] });
    try {
      await sameRefusal(small.address, '', dev.zkey, big, 'E_INVALID_ARG', /message too large.*600000/);
      // a client told the limit sends chunks under it
      const c = new CuzkClient({ address: small.address, maxMessageBytes: 600_000, uploads: 'stream' });
      assert.match(await c.uploadWitness(dev.zkey, big), /\S/);
    } finally {
      assert.equal(await small.stop(), 0, small.logs());
      removeDataDir(small.dataDir);
    }
  });
});

/** An HTTP/2 peer that reads `cutAfter` bytes of an upload and then cuts it off in `how`. */
async function cuttingPeer(how: 'rst' | 'socket' | 'refuse', cutAfter: number): Promise<{ address: string; close(): Promise<void> }> {
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  const sockets = new Set<Socket>();
  server.on('session', (s) => sessions.add(s.on('close', () => sessions.delete(s))));
  server.on('connection', (c: Socket) => sockets.add(c.on('close', () => sockets.delete(c))));
  server.on('stream', (stream) => {
    let n = 0;
    stream.on('error', () => undefined);
    stream.on('data', (b: Buffer) => {
      if ((n += b.length) < cutAfter || n - b.length >= cutAfter) return;
      if (how === 'rst') stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      else if (how === 'socket') for (const c of sockets) c.destroy(); // the TCP connection drops
      else {
        // as the daemon refuses from a header: trailers-only, then a NO_ERROR reset
        stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '8', 'grpc-message': 'E_OVERLOADED%3A%20full', 'cuzk-error-code': 'E_OVERLOADED' }, { endStream: true });
        setImmediate(() => stream.close(http2.constants.NGHTTP2_NO_ERROR));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { address: `127.0.0.1:${port}`, close: () => new Promise((r) => {
    server.close(() => r());
    for (const s of sessions) s.destroy();
  }) };
}

describe('CuzkClient: an upload cut off mid-stream', { timeout: 60_000 }, () => {
  const w = new Uint8Array(16 << 20).fill(7);
  for (const how of ['rst', 'socket', 'refuse'] as const) {
    it(`${how}: rejects (as through connect-es), never hangs`, async () => {
      const peer = await cuttingPeer(how, 2 << 20);
      try {
        const sdk = await rejection(new CuzkClient({ address: peer.address, uploads: 'stream' }).uploadWitness('k', w));
        const ref = await rejection(uploadViaConnectEs(peer.address, '', 'k', w));
        assert.equal(sdk.code, ref.code, `${sdk.message} / ${ref.message}`);
        if (how === 'refuse') assert.deepEqual([sdk.code, sdk.message], ['E_OVERLOADED', 'full']);
        assert.equal(sdk.message, ref.message);
      } finally {
        await peer.close();
      }
    });
  }
});

/** gRPC envelopes in `body`, decoded as WitnessChunk messages. */
function chunksIn(body: Buffer) {
  const out = [];
  for (let o = 0; o < body.length; o += 5 + body.readUInt32BE(o + 1)) {
    assert.equal(body[o], 0, 'not compressed');
    out.push(fromBinary(WitnessChunkSchema, body.subarray(o + 5, o + 5 + body.readUInt32BE(o + 1))));
  }
  return out;
}

describe('uploadOverGrpc: back-pressure', { timeout: 60_000 }, () => {
  for (const from of ['bytes', 'a file'] as const) it(`from ${from}: a peer that stops reading stops the writes at one message; resumed, it gets every byte as WitnessChunk messages`, async () => {
    const w = new Uint8Array((8 << 20) + 12_345).map((_, i) => i * 7);
    const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-grpc-upload-'));
    const file = path.join(dir, 'w.wtns');
    writeFileSync(file, w);
    const body = await openUploadBody(from === 'bytes' ? w : { file }, 'witness');
    const chunkBytes = 1 << 20;
    let held: http2.ServerHttp2Stream | undefined;
    const received: Buffer[] = [];
    const server = http2.createServer();
    server.on('stream', (s) => {
      held = s.pause(); // explicitly paused: the 'data' listener below does not start the flow
      s.on('data', (b: Buffer) => received.push(b));
      s.on('end', () => {
        const answer = toBinary(WitnessUploadSchema, create(WitnessUploadSchema, { witnessId: 'w-1', size: BigInt(w.length), sha256: 'x' }));
        const env = Buffer.alloc(5 + answer.length);
        env.writeUInt32BE(answer.length, 1);
        env.set(answer, 5);
        s.respond({ ':status': 200, 'content-type': 'application/grpc+proto' }, { waitForTrailers: true });
        s.on('wantTrailers', () => s.sendTrailers({ 'grpc-status': '0' }));
        s.end(env);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const sm = new Http2SessionManager(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const { session, writes, streams } = spied(sm);
    try {
      const upload = uploadOverGrpc({ session, readMaxBytes: 1 << 20 }, 'k', body, chunkBytes);
      // the peer's receive window fills: nothing more can go out until it reads
      while (held?.state.localWindowSize !== 0) await new Promise((r) => setTimeout(r, 5));
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
      assert.equal(writes.length, 2, 'one message (head + data) written, the rest waits for drain');
      assert.ok(streams[0]!.writableLength <= chunkBytes + 200, `${streams[0]!.writableLength} bytes held by the client`);
      held.resume();
      const up = await upload;
      assert.equal(up.witnessId, 'w-1');
      if (from === 'bytes') assertNoCopy(writes, w, chunkBytes);
      const chunks = chunksIn(Buffer.concat(received));
      assert.equal(chunks.length, 9);
      assert.deepEqual([chunks[0]!.key, chunks[0]!.size], ['k', BigInt(w.length)]);
      assert.ok(chunks.slice(1).every((c) => c.key === '' && c.size === 0n));
      assert.ok(Buffer.concat(chunks.map((c) => c.data)).equals(w), 'the peer got the witness byte for byte');
    } finally {
      sm.abort();
      await new Promise((r) => server.close(r));
      await body.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
