// UploadWitness over gRPC, read straight from the HTTP/2 stream: the length-prefixed WitnessChunk
// messages are parsed field by field as their bytes arrive, and the data field's bytes go to the
// spool as the pieces the socket delivered, never gathered into a message first. Through Connect's
// router each 1 MiB message was first copied into a buffer of its own and passed through async
// iterators: on the H200 machine (10 clients, 15 witnesses of 32 MiB a second) that was ~20 ms of
// the daemon's event loop per witness, the difference between its gRPC and Connect throughput.
// The same intake, checks and answers as the routed RPC (which still serves the Connect protocol's
// streaming form); upload-grpc.test.ts runs connect-es's own gRPC client against it, and the SDK's.
import { create, toBinary } from '@bufbuild/protobuf';
import { encodeEnvelope } from '@connectrpc/connect/protocol';
import { InputError } from '../errors.js';
import { WitnessChunkSchema, WitnessUploadSchema } from '../rpc/gen/cuzk/v1/cuzk_pb.js';
import { answerEarly } from './answer-early.js';
import type { RouteContext } from './routes.js';
import { messageTooLarge, toConnectError } from './status-map.js';
import { bodyChunks, type Req, type Res } from './upload-http.js';
import type { UploadSink } from './witness-intake.js';

export const UPLOAD_WITNESS_PATH = '/cuzk.v1.ProvingService/UploadWitness';
const WHERE = 'uploaded witness';
const field = (name: string) => WitnessChunkSchema.fields.find((f) => f.localName === name)!.number;
const KEY = field('key');
const SIZE = field('size');
const DATA = field('data');
const VARINT = 0, I64 = 1, LEN = 2, I32 = 5;
/** Longer than any key id or path the daemon accepts; a longer key field is refused unread. */
const MAX_KEY_BYTES = 4096;

/** A gRPC request (not gRPC-Web) for UploadWitness: this file answers it. */
export function isGrpcUpload(req: Req): boolean {
  const type = String(req.headers['content-type'] ?? '');
  return req.method === 'POST' && (req.url ?? '') === UPLOAD_WITNESS_PATH && /^application\/grpc(\+proto)?(;|$)/.test(type);
}

const malformed = (why: string) => new InputError('E_INVALID_ARG', `UploadWitness: request is not a valid stream of WitnessChunk messages (${why})`);

/** The request body as bytes: varints, small copies, and pieces handed on as they arrived. */
class BodyReader {
  #buf: Uint8Array = new Uint8Array(0);
  #done = false;
  constructor(private readonly it: AsyncIterator<Uint8Array>) {}

  /** False at the end of the body. */
  async more(): Promise<boolean> {
    while (this.#buf.length === 0 && !this.#done) {
      const n = await this.it.next();
      if (n.done) this.#done = true;
      else this.#buf = n.value;
    }
    return this.#buf.length > 0;
  }

  async byte(): Promise<number> {
    if (!(await this.more())) throw malformed('it ends inside a message');
    const b = this.#buf[0]!;
    this.#buf = this.#buf.subarray(1);
    return b;
  }

  /** A varint of at most 53 bits (sizes, lengths, tags), and how many bytes it took. */
  async varint(): Promise<[number, number]> {
    let v = 0;
    for (let i = 0, scale = 1; i < 8; i++, scale *= 128) {
      const b = await this.byte();
      v += (b & 0x7f) * scale;
      if (b < 0x80) return [v, i + 1];
    }
    throw malformed('a varint longer than 53 bits');
  }

  /** The next `n` bytes as one copy (small fields, a message's prefix). */
  async exact(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    for (let o = 0; o < n; ) {
      if (!(await this.more())) throw malformed('it ends inside a message');
      const k = Math.min(n - o, this.#buf.length);
      out.set(this.#buf.subarray(0, k), o);
      this.#buf = this.#buf.subarray(k);
      o += k;
    }
    return out;
  }

  /** The next `n` bytes, piece by piece, each a view of what the socket delivered. */
  async pieces(n: number, each: (piece: Uint8Array) => Promise<void>): Promise<void> {
    for (let left = n; left > 0; ) {
      if (!(await this.more())) throw malformed('it ends inside a message');
      const piece = this.#buf.subarray(0, Math.min(left, this.#buf.length));
      this.#buf = this.#buf.subarray(piece.length);
      left -= piece.length;
      await each(piece);
    }
  }
}

/**
 * Reads every message and feeds the data fields to an upload begun once the first message has named
 * key and size. Fields may come in any order (protobuf allows it): encoders write key and size
 * before data, and data that comes first in the first message is held (one message, within
 * limits.max_message_bytes) until they are known.
 */
async function receive(c: RouteContext, r: BodyReader): Promise<UploadSink> {
  let sink: UploadSink | undefined;
  const held: Uint8Array[] = [];
  let key: string | undefined;
  let size: number | undefined;
  const start = async () => {
    sink = await c.intake.begin(key ?? '', size ?? 0, WHERE);
    for (const h of held.splice(0)) await sink.write(h);
  };
  try {
    for (let n = 0; await r.more(); n++) {
      const prefix = await r.exact(5);
      if (prefix[0] !== 0) throw new InputError('E_INVALID_ARG', `UploadWitness: message ${n} is compressed (flags ${prefix[0]}): send it uncompressed (grpc-encoding identity)`);
      let left = new DataView(prefix.buffer).getUint32(1);
      if (left > c.cfg.maxMessageBytes) throw new InputError('E_INVALID_ARG', messageTooLarge(left, c.cfg.maxMessageBytes));
      const take = (k: number) => {
        if (k > left) throw malformed(`a field runs past the end of message ${n}`);
        left -= k;
      };
      while (left > 0) {
        const [tag, tagBytes] = await r.varint();
        take(tagBytes);
        const [num, wire] = [Math.floor(tag / 8), tag % 8];
        if (wire === VARINT) {
          const [v, k] = await r.varint();
          take(k);
          if (num === SIZE && n === 0) size = v;
        } else if (wire === LEN) {
          const [len, k] = await r.varint();
          take(k);
          take(len);
          if (num === DATA && sink) await r.pieces(len, (p) => sink!.write(p));
          else if (num === DATA && n === 0) held.push(await r.exact(len));
          else if (num === DATA) throw malformed(`message ${n} has data but the upload has no key and size`);
          else if (num === KEY && len > MAX_KEY_BYTES) throw new InputError('E_INVALID_ARG', `UploadWitness: the key is ${len} bytes, more than ${MAX_KEY_BYTES}`);
          else if (num === KEY && n === 0) key = new TextDecoder().decode(await r.exact(len));
          else await r.pieces(len, async () => {}); // an unknown field, or key in a later message: skipped
        } else if (wire === I64 || wire === I32) {
          const k = wire === I64 ? 8 : 4;
          take(k);
          await r.exact(k);
        } else throw malformed(`wire type ${wire} in message ${n}`);
        if (n === 0 && !sink && key !== undefined && size !== undefined) await start();
      }
      if (n === 0 && !sink) await start(); // a field left at its default is absent: begin() names it
    }
    if (!sink) throw new InputError('E_INVALID_ARG', 'UploadWitness: no chunk arrived (the first names key and size)');
    return sink;
  } catch (err) {
    await sink?.abort();
    throw err;
  }
}

export async function grpcWitnessUpload(c: RouteContext, req: Req, res: Res): Promise<void> {
  let sink: UploadSink | undefined;
  try {
    const encoding = req.headers['grpc-encoding'];
    if (encoding !== undefined && encoding !== 'identity') throw new InputError('E_INVALID_ARG', `UploadWitness: grpc-encoding ${String(encoding)} is not supported: send messages uncompressed`);
    sink = await receive(c, new BodyReader(bodyChunks(req)[Symbol.asyncIterator]()));
    const up = await sink.finish();
    c.log.debug({ witnessId: up.id, bytes: up.file.size }, 'witness uploaded');
    const body = encodeEnvelope(0, toBinary(WitnessUploadSchema, create(WitnessUploadSchema, { witnessId: up.id, size: BigInt(up.file.size), sha256: up.file.sha256 })));
    res.writeHead(200, { 'content-type': 'application/grpc+proto' });
    res.addTrailers({ 'grpc-status': '0' });
    res.end(body);
  } catch (err) {
    if (sink) await sink.abort();
    if (!res.headersSent) answerEarly(req, res, toConnectError(err));
    else res.destroy();
  }
}
