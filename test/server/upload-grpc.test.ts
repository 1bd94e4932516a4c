// UploadWitness over gRPC, parsed from the HTTP/2 stream by src/server/transport/upload-grpc.ts: whatever the
// framing (messages split anywhere across DATA frames, fields in any order, unknown fields), the
// spooled witness is byte-exact and proves; malformed, compressed, oversized or truncated streams
// are refused with one E_INVALID_ARG line and leave nothing in the spool; connect-es's own gRPC
// client (what other gRPC clients look like) gets the same answers.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http2 from 'node:http2';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { CuzkClient } from '../../src/client/index.js';
import { ProvingService, WitnessChunkSchema, WitnessUploadSchema } from '../../src/rpc/gen/cuzk/v1/cuzk_pb.js';
import { startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { slowDevKey, type DevKey } from '../helpers/dev-key.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const PATH = '/cuzk.v1.ProvingService/UploadWitness';
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const chunk = (m: { key?: string; size?: bigint; data?: Uint8Array }) => toBinary(WitnessChunkSchema, create(WitnessChunkSchema, m));

function envelope(msg: Uint8Array, flags = 0): Uint8Array {
  const out = new Uint8Array(5 + msg.length);
  out[0] = flags;
  new DataView(out.buffer).setUint32(1, msg.length);
  out.set(msg, 5);
  return out;
}

interface Answer {
  status: string | undefined;
  message: string;
  code: string | undefined;
  upload?: { witnessId: string; size: bigint; sha256: string };
}

/** One UploadWitness call on a raw HTTP/2 stream: `body` written in pieces of the given sizes (cycled). */
async function call(url: string, body: Uint8Array, pieces: number[], opts: { end?: boolean; headers?: Record<string, string> } = {}): Promise<Answer> {
  const session = http2.connect(url);
  try {
    return await new Promise<Answer>((resolve, reject) => {
      const req = session.request({ ':method': 'POST', ':path': PATH, 'content-type': 'application/grpc', te: 'trailers', ...opts.headers });
      const parts: Buffer[] = [];
      let head: http2.IncomingHttpHeaders = {};
      req.on('response', (h) => (head = h));
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('error', reject);
      const done = (trailers: http2.IncomingHttpHeaders) => {
        const t = { ...head, ...trailers };
        const bytes = Buffer.concat(parts);
        const upload = bytes.length >= 5 ? fromBinary(WitnessUploadSchema, bytes.subarray(5)) : undefined;
        resolve({ status: t['grpc-status'] as string | undefined, message: decodeURIComponent(String(t['grpc-message'] ?? '')), code: t['cuzk-error-code'] as string | undefined, upload });
      };
      let trailers: http2.IncomingHttpHeaders | undefined;
      req.on('trailers', (t) => (trailers = t));
      req.on('close', () => done(trailers ?? {}));
      let o = 0;
      for (let i = 0; o < body.length; i++) {
        const n = Math.min(pieces[i % pieces.length]!, body.length - o);
        req.write(body.subarray(o, o + n));
        o += n;
      }
      if (opts.end !== false) req.end();
      else setTimeout(() => req.close(http2.constants.NGHTTP2_CANCEL), 300);
    });
  } finally {
    session.close();
  }
}

let d: DaemonProcess;
let dev: DevKey;
let w: Uint8Array;
const spoolFiles = () => (existsSync(path.join(d.dataDir, 'spool')) ? readdirSync(path.join(d.dataDir, 'spool')) : []);
/** The spool once files being removed are gone (a finished job's file goes just after its result). */
async function settledSpool(): Promise<string[]> {
  for (let i = 0; i < 100 && spoolFiles().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
  return spoolFiles();
}

before(async () => {
  dev = await slowDevKey();
  w = new Uint8Array(readFileSync(dev.wtns));
  d = await startDaemon({ args: vectorDirArgs(path.dirname(dev.zkey)) });
});
after(async () => {
  await d?.stop();
  await terminateSnarkjs();
});

async function assertProves(witnessId: string): Promise<void> {
  const c = new CuzkClient({ address: d.address });
  const { job } = await c.submit({ key: dev.zkey, witnessIds: [witnessId] });
  const done = await c.await(job.id);
  assert.equal(done.state, 'completed', JSON.stringify(done.error));
  const p = done.proofs![0]!;
  assert.equal(await snarkjsVerify(JSON.parse(readFileSync(dev.vkey, 'utf8')), p.publicSignals, p.proof), true);
}

describe('UploadWitness over gRPC, read from the stream', () => {
  it('messages split anywhere across DATA frames arrive byte-exact and prove', async () => {
    const msgs: Uint8Array[] = [];
    for (let o = 0, i = 0; o < w.length; i++) {
      const n = Math.min([7001, 1, 30_000, 4093][i % 4]!, w.length - o);
      msgs.push(envelope(chunk(o === 0 ? { key: dev.zkey, size: BigInt(w.length), data: w.subarray(o, o + n) } : { data: w.subarray(o, o + n) })));
      o += n;
    }
    const body = Buffer.concat(msgs);
    const a = await call(d.url, body, [3, 1, 16_384, 9999, 2]); // the 5-byte prefix and varints split too
    assert.equal(a.status, '0', a.message);
    assert.equal(a.upload!.size, BigInt(w.length));
    assert.equal(a.upload!.sha256, sha(w));
    await assertProves(a.upload!.witnessId);
  });

  it('fields in any order and unknown fields: data before key and size in the first message', async () => {
    const half = Math.floor(w.length / 2);
    const unknown = Uint8Array.from([(15 << 3) | 2, 3, 1, 2, 3, (14 << 3) | 0, 0x96, 0x01, (13 << 3) | 5, 1, 2, 3, 4]); // fields 15 bytes, 14 varint, 13 fixed32
    const first = Buffer.concat([chunk({ data: w.subarray(0, half) }), unknown, chunk({ key: dev.zkey, size: BigInt(w.length) })]);
    const body = Buffer.concat([envelope(first), envelope(Buffer.concat([unknown, chunk({ data: w.subarray(half) })]))]);
    const a = await call(d.url, body, [65536]);
    assert.equal(a.status, '0', a.message);
    assert.equal(a.upload!.sha256, sha(w));
    await assertProves(a.upload!.witnessId);
  });

  it('connect-es gRPC client: the same upload, and the same refusal for a witness of another shape', async () => {
    const rpc = createClient(ProvingService, createGrpcTransport({ baseUrl: d.url }));
    async function* chunks(bytes: Uint8Array, n: number) {
      for (let o = 0; o < bytes.length; o += n) yield o === 0 ? { key: dev.zkey, size: BigInt(bytes.length), data: bytes.subarray(o, o + n) } : { data: bytes.subarray(o, o + n) };
    }
    const up = await rpc.uploadWitness(chunks(w, 50_000));
    assert.equal(up.sha256, sha(w));
    await assertProves(up.witnessId);
    const other = new Uint8Array(readFileSync(vectorFile(vectorSets().find((v) => v.curve === 'bn128' && v.circuit === 'multiplier')!, 'witness.wtns')));
    await assert.rejects(rpc.uploadWitness(chunks(other, 1000)), (e: Error) => /witness|wires|values/i.test(e.message));
  });

  const refusals: [string, () => Uint8Array, Partial<{ headers: Record<string, string>; end: boolean }>, RegExp][] = [
    ['a compressed message', () => envelope(chunk({ key: 'k', size: 10n }), 1), {}, /compressed/],
    ['grpc-encoding gzip', () => envelope(chunk({ key: 'k', size: 10n })), { headers: { 'grpc-encoding': 'gzip' } }, /grpc-encoding gzip is not supported/],
    ['a message over limits.max_message_bytes', () => Uint8Array.from([0, 0x7f, 0, 0, 0]), {}, /limits\.max_message_bytes/],
    ['a field running past its message', () => envelope(Uint8Array.from([(3 << 3) | 2, 100, 1, 2])), {}, /runs past the end of message 0/],
    ['a body ending inside a message', () => envelope(chunk({ key: dev.zkey, size: BigInt(w.length), data: w.subarray(0, 1000) })).subarray(0, 700), {}, /ends inside a message/],
    ['a stream ending before all announced bytes', () => envelope(chunk({ key: dev.zkey, size: BigInt(w.length), data: w.subarray(0, 1000) })), {}, /ended after 1000 of \d+ bytes/],
    ['no size in the first message', () => envelope(chunk({ key: dev.zkey, data: w.subarray(0, 10) })), {}, /the witness size is required/],
    ['an empty body', () => new Uint8Array(0), {}, /no chunk arrived/],
    ['an invalid wire type', () => envelope(Uint8Array.from([(1 << 3) | 7, 0])), {}, /wire type 7/],
  ];
  for (const [what, body, opts, why] of refusals) {
    it(`refuses ${what}: E_INVALID_ARG, one line, nothing spooled`, async () => {
      const a = await call(d.url, body(), [4096], opts);
      assert.equal(a.status, '3', `grpc-status INVALID_ARGUMENT for ${what}: ${a.message}`);
      assert.equal(a.code, 'E_INVALID_ARG');
      assert.match(a.message, why);
      assert.ok(!a.message.includes('\n'), a.message);
      assert.deepEqual(await settledSpool(), []);
    });
  }

  it('a client that resets mid-upload leaves nothing in the spool and the daemon serves on', async () => {
    const body = envelope(chunk({ key: dev.zkey, size: BigInt(w.length), data: w.subarray(0, 5000) }));
    await call(d.url, body, [4096], { end: false }).catch(() => undefined);
    assert.deepEqual(await settledSpool(), []);
    const a = await call(d.url, envelope(chunk({ key: dev.zkey, size: BigInt(w.length), data: w })), [65536]);
    assert.equal(a.status, '0', a.message);
    await assertProves(a.upload!.witnessId); // claimed: the spool is empty again
  });
});

describe('POST /v1/witnesses over HTTP/2', () => {
  it('a client that resets mid-body leaves nothing in the spool and the daemon serves on', async () => {
    const session = http2.connect(d.url);
    session.on('error', () => undefined);
    const req = session.request({ ':method': 'POST', ':path': `/v1/witnesses?key=${encodeURIComponent(dev.zkey)}`, 'content-type': 'application/octet-stream', 'content-length': String(w.length) });
    req.on('error', () => undefined);
    req.write(w.subarray(0, 5000));
    await new Promise((r) => setTimeout(r, 300));
    req.close(http2.constants.NGHTTP2_CANCEL);
    await new Promise((r) => req.once('close', r));
    session.close();
    assert.deepEqual(await settledSpool(), []);
    const a = await call(d.url, envelope(chunk({ key: dev.zkey, size: BigInt(w.length), data: w })), [65536]);
    assert.equal(a.status, '0', `${a.message}\n${d.logs().slice(-2000)}`);
    await assertProves(a.upload!.witnessId);
  });
});
