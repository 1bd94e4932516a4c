// POST /v1/witnesses?key=K: one .wtns file as the raw request body (curl --data-binary @w.wtns), for
// HTTP/1.1 clients, which cannot stream a Connect request (UploadWitness is client-streaming). The
// same intake as UploadWitness: the Content-Length is the announced size, the header is checked
// against the key from the first bytes, every byte is written once to the spool, and a refusal is
// answered without reading the rest of the body. Answers {"witnessId", "size", "sha256"}, or
// Connect's JSON error with the code's HTTP status. POST /v1/keys?id=ID the same way for a .zkey
// (key-upload.ts), streamed to disk: LoadKey's bytes arrive whole in one message.
import type { connectNodeAdapter } from '@connectrpc/connect-node';
import { InputError } from '../../errors.js';
import { answerEarly } from './answer-early.js';
import { loadUploadedKey } from './key-upload.js';
import type { RouteContext } from './routes.js';
import type { WitnessIntake } from '../intake/witness-intake.js';
import { toConnectError } from './status-map.js';

type NodeHandlerFn = ReturnType<typeof connectNodeAdapter>;
export type Req = Parameters<NodeHandlerFn>[0];
export type Res = Parameters<NodeHandlerFn>[1];

export const WITNESS_UPLOAD_PATH = '/v1/witnesses';
export const KEY_UPLOAD_PATH = '/v1/keys';

/** The body's chunks, without handing the stream to for-await: a refusal mid-body must leave the
 * request open so that answerEarly can still answer it (for-await's return() would destroy it). */
export async function* bodyChunks(req: Req): AsyncGenerator<Uint8Array> {
  const it = (req as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
}

/** What witnessUpload needs: the daemon's intake, or an intake process's (intake-process.ts). */
export type UploadIntake = Pick<WitnessIntake, 'upload'>;

export async function witnessUpload(intake: UploadIntake, req: Req, res: Res): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const length = req.headers['content-length'];
  try {
    if (length === undefined) throw new InputError('E_INVALID_ARG', `POST ${WITNESS_UPLOAD_PATH}: Content-Length is required (the .wtns file's size)`);
    const size = /^\d+$/.test(length) ? Number(length) : -1;
    const up = await intake.upload(url.searchParams.get('key') ?? '', size, bodyChunks(req), 'uploaded witness');
    const text = JSON.stringify({ witnessId: up.id, size: up.file.size, sha256: up.file.sha256 });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  } catch (err) {
    if (!res.headersSent) answerEarly(req, res, toConnectError(err));
    else res.destroy();
  }
}

/** POST /v1/keys?id=ID: answers the key as JSON ({"id", "path", "bytes", ...}: KeyInfo), or
 * Connect's JSON error with the code's HTTP status, the body unread when refused early. */
export async function keyUpload(c: RouteContext, req: Req, res: Res): Promise<void> {
  const length = req.headers['content-length'];
  try {
    if (length === undefined || !/^\d+$/.test(length)) throw new InputError('E_INVALID_ARG', `POST ${KEY_UPLOAD_PATH}: Content-Length is required (the .zkey file's size)`);
    const id = new URL(req.url ?? '/', 'http://localhost').searchParams.get('id') ?? '';
    const info = await loadUploadedKey(c, bodyChunks(req), Number(length), id);
    const text = JSON.stringify(info);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  } catch (err) {
    if (!res.headersSent) answerEarly(req, res, toConnectError(err));
    else res.destroy();
  }
}
