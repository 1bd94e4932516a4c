// UploadWitness over gRPC, read straight from the HTTP/2 stream: the length-prefixed WitnessChunk
// messages are parsed field by field as their bytes arrive, and the data field's bytes go to the
// spool as the pieces the socket delivered (upload-grpc-body.ts), never gathered into a message
// first. Through Connect's router each 1 MiB message was first copied into a buffer of its own and
// passed through async iterators: on the H200 machine (10 clients, 15 witnesses of 32 MiB a second) that was ~20 ms of
// the daemon's event loop per witness, the difference between its gRPC and Connect throughput.
// The same intake, checks and answers as the routed RPC (which still serves the Connect protocol's
// streaming form); upload-grpc.test.ts runs connect-es's own gRPC client against it, and the SDK's.
import { create, toBinary } from '@bufbuild/protobuf';
import { encodeEnvelope } from '@connectrpc/connect/protocol';
import { InputError } from '../../errors.js';
import { WitnessChunkSchema, WitnessUploadSchema } from '../../rpc/gen/cuzk/v1/cuzk_pb.js';
import { answerEarly } from './answer-early.js';
import type { RouteContext } from './routes.js';
import { messageTooLarge, toConnectError } from './status-map.js';
import { malformed, requestBody, type BodyReader } from './upload-grpc-body.js';
import type { Req, Res } from './upload-http.js';
import type { UploadSink } from '../intake/witness-intake.js';

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
    const reader = requestBody(req);
    try {
      sink = await receive(c, reader);
    } finally {
      reader.detach();
    }
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
