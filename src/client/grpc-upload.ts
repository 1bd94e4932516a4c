// UploadWitness (client-streaming gRPC) written straight to an HTTP/2 stream: each WitnessChunk goes
// out as a small head (the gRPC envelope prefix, the message's other fields, the `data` field's tag
// and length) followed by the data: a view of the caller's buffer (no witness byte is copied in JS),
// or a part read from the witness file (upload-body.ts).
// connect-es's serializer copied each 1 MiB chunk about four times (2^20 fixture, 32 MiB, loopback:
// 72-95 ms of client CPU per upload, 9-14 ms now; ~6 ms for the same bytes POSTed over Connect). The
// daemon sees the same RPC; its answer is read as connect-es reads it, so a refusal is the same error.
import http2 from 'node:http2';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { Code, ConnectError } from '@connectrpc/connect';
import { requestHeader, validateResponse, validateTrailer } from '@connectrpc/connect/protocol-grpc';
import { CuzkError } from '../errors.js';
import { ProvingService, WitnessChunkSchema, WitnessUploadSchema, type WitnessUpload } from '../rpc/gen/cuzk/v1/cuzk_pb.js';
import { drained, type UploadBody } from './upload-body.js';

/** What the upload needs of connect-node's Http2SessionManager (the client's one connection). */
export interface Http2Streams {
  request(method: string, path: string, headers: http2.OutgoingHttpHeaders, options: Omit<http2.ClientSessionRequestOptions, 'signal'>): Promise<http2.ClientHttp2Stream>;
  notifyResponseByteRead(stream: http2.ClientHttp2Stream): void;
}

export interface GrpcUploadTarget {
  session: Http2Streams;
  token?: string;
  /** Largest answer accepted, bytes (the client's maxMessageBytes). */
  readMaxBytes: number;
}

const PATH = `/${ProvingService.typeName}/${ProvingService.method.uploadWitness.name}`;
const DATA_FIELD = WitnessChunkSchema.field.data!.number;
const ENVELOPE_PREFIX_BYTES = 5; // flags (0: not compressed), then the message length, uint32 big-endian
const NO_FIELDS = new Uint8Array(0);

/** Everything of one WitnessChunk message before its `data` bytes. `fields`: the protobuf encoding
 * of the message without `data`. Protobuf lets a message's fields come in any order (a parser takes
 * them as they come), so `data` can go last and be sent from where it lies. */
function messageHead(fields: Uint8Array, dataBytes: number): Uint8Array {
  const dataTag = new BinaryWriter().tag(DATA_FIELD, WireType.LengthDelimited).uint32(dataBytes).finish();
  const head = new Uint8Array(ENVELOPE_PREFIX_BYTES + fields.length + dataTag.length);
  new DataView(head.buffer).setUint32(1, fields.length + dataTag.length + dataBytes);
  head.set(fields, ENVELOPE_PREFIX_BYTES);
  head.set(dataTag, ENVELOPE_PREFIX_BYTES + fields.length);
  return head;
}

const open = (s: http2.ClientHttp2Stream) => !s.destroyed && !s.closed && s.writable;

/** Writes the messages, waiting for 'drain' whenever the stream is full; stops if the stream goes. */
async function sendChunks(s: http2.ClientHttp2Stream, key: string, w: UploadBody, chunkBytes: number): Promise<void> {
  let first = true;
  for await (const data of w.parts(chunkBytes)) {
    if (!open(s)) return;
    const fields = first ? toBinary(WitnessChunkSchema, create(WitnessChunkSchema, { key, size: BigInt(w.bytes) })) : NO_FIELDS;
    first = false;
    s.cork(); // head and data leave in one writev
    s.write(messageHead(fields, data.length));
    const more = s.write(data);
    s.uncork();
    if (!more) await drained(s);
  }
  if (open(s)) s.end();
}

/** As connect-node turns a node error into a ConnectError (node-error.ts), for the same CuzkError. */
function fromNodeError(err: unknown): ConnectError {
  const codes: unknown[] = [];
  for (let e = err; e instanceof Error && codes.length < 8; e = e.cause) codes.push((e as NodeJS.ErrnoException).code);
  const has = (...c: string[]) => codes.some((x) => c.includes(String(x)));
  const code = has('ERR_STREAM_WRITE_AFTER_END', 'ERR_STREAM_DESTROYED', 'ERR_HTTP2_INVALID_STREAM', 'ECONNRESET') ? Code.Aborted
    : has('ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED') ? Code.Unavailable : Code.Internal;
  return ConnectError.from(err, code);
}

// RST_STREAM codes as connect-node reports them (gRPC's HTTP/2 error mapping); others say nothing
const RESET_CODES: Record<number, [string, Code]> = {
  0x1: ['PROTOCOL_ERROR', Code.Internal], 0x2: ['INTERNAL_ERROR', Code.Internal], 0x3: ['FLOW_CONTROL_ERROR', Code.Internal],
  0x4: ['SETTINGS_TIMEOUT', Code.Internal], 0x6: ['FRAME_SIZE_ERROR', Code.Internal], 0x7: ['REFUSED_STREAM', Code.Unavailable],
  0x8: ['CANCEL', Code.Canceled], 0x9: ['COMPRESSION_ERROR', Code.Internal], 0xa: ['CONNECT_ERROR', Code.Internal],
  0xb: ['ENHANCE_YOUR_CALM', Code.ResourceExhausted], 0xc: ['INADEQUATE_SECURITY', Code.PermissionDenied], 0xd: ['HTTP_1_1_REQUIRED', Code.PermissionDenied],
};
const resetError = (rst: number): ConnectError | undefined => {
  const r = RESET_CODES[rst];
  return r && new ConnectError(`http/2 stream closed with error code ${r[0]} (0x${rst.toString(16)})`, r[1]);
};

function webHeaders(h: http2.IncomingHttpHeaders, into = new Headers()): Headers {
  for (const [k, v] of Object.entries(h)) {
    if (k.startsWith(':') || v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) into.append(k, one);
  }
  return into;
}

/** The gRPC messages in a response body (none compressed: the request accepts no encoding). */
function envelopes(body: Buffer): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let o = 0; o < body.length; ) {
    if (body.length - o < ENVELOPE_PREFIX_BYTES) throw new ConnectError('protocol error: incomplete envelope', Code.InvalidArgument);
    const flags = body[o]!;
    const n = body.readUInt32BE(o + 1);
    if (flags & 1) throw new ConnectError('protocol error: received compressed envelope, but no compression was accepted', Code.Internal);
    if (body.length - o - ENVELOPE_PREFIX_BYTES < n) throw new ConnectError('protocol error: promised ' + n + ' bytes in enveloped message, got fewer', Code.InvalidArgument);
    out.push(body.subarray(o + ENVELOPE_PREFIX_BYTES, o + ENVELOPE_PREFIX_BYTES + n));
    o += ENVELOPE_PREFIX_BYTES + n;
  }
  return out;
}

/** The answer: the status from the headers (a trailers-only refusal) or the trailers, the one
 * WitnessUpload message; settles when the response ends or the stream closes, whichever is first. */
function readAnswer(s: http2.ClientHttp2Stream, t: GrpcUploadTarget): Promise<WitnessUpload> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let header: Headers | undefined;
    const trailer = new Headers();
    const body: Buffer[] = [];
    let bodyBytes = 0;
    let failure: ConnectError | undefined;
    let settled = false;
    s.on('response', (h) => {
      status = Number(h[':status'] ?? 0);
      header = webHeaders(h);
    });
    s.on('data', (b: Buffer) => {
      t.session.notifyResponseByteRead(s);
      if ((bodyBytes += b.length) <= t.readMaxBytes) return void body.push(b);
      failure ??= new ConnectError(`message size ${bodyBytes} is larger than configured readMaxBytes ${t.readMaxBytes}`, Code.ResourceExhausted);
      settle();
    });
    s.on('trailers', (h) => webHeaders(h, trailer));
    s.on('error', (err) => (failure ??= fromNodeError(err)));
    const answer = (): WitnessUpload => {
      if (!header) throw failure ?? resetError(s.rstCode ?? 0) ?? new ConnectError(`http/2 stream closed with error code NO_ERROR (0x${(s.rstCode ?? 0).toString(16)}) before the response was received`, Code.Internal);
      const { foundStatus, headerError } = validateResponse(status, header);
      if (headerError) throw headerError;
      if (failure) throw failure;
      const messages = envelopes(Buffer.concat(body));
      if (!foundStatus) validateTrailer(trailer, header);
      if (messages.length === 0) throw new ConnectError('protocol error: missing response message', Code.Unimplemented);
      if (messages.length > 1) throw new ConnectError('protocol error: received extra messages for client streaming method', Code.Unimplemented);
      return fromBinary(WitnessUploadSchema, messages[0]!);
    };
    function settle() {
      if (settled) return;
      settled = true;
      if (s.closed) failure ??= resetError(s.rstCode ?? 0);
      try {
        resolve(answer());
      } catch (err) {
        reject(err);
        if (!s.closed) s.close(http2.constants.NGHTTP2_CANCEL); // stop sending the rest of a refused upload
      }
    }
    s.on('end', settle);
    s.on('close', settle);
  });
}

/** UploadWitness of `w` in `chunkBytes` messages. Rejects with a ConnectError (the daemon's status
 * and metadata, or the transport's failure) as connect-es would, or with the CuzkError of a file
 * that cannot be read while sent. Bytes must not change until it settles. */
export async function uploadOverGrpc(t: GrpcUploadTarget, key: string, w: UploadBody, chunkBytes: number): Promise<WitnessUpload> {
  const h = requestHeader(true, undefined, undefined);
  if (t.token) h.set('authorization', `Bearer ${t.token}`);
  const s = await t.session.request('POST', PATH, Object.fromEntries(h.entries()), {});
  const answer = readAnswer(s, t);
  answer.catch(() => undefined); // awaited below, after the writes: a refusal can come first
  try {
    await sendChunks(s, key, w, chunkBytes);
  } catch (err) {
    s.destroy(err instanceof Error ? err : new Error(String(err))); // the answer then settles with it
    if (err instanceof CuzkError) throw err; // the file's own failure, not the transport's
  }
  return answer;
}
