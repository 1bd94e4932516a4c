// Key uploads for CuzkClient.loadKey({ zkey } | { zkeyFile }): the .zkey goes as the raw body of POST
// /v1/keys?id=ID, which the daemon streams to disk, never as LoadKey's one message (the RPC
// library decodes a message whole: 3 uploads of 200 MB at once held +620 MB of the daemon's
// memory); a file is read part by part as it is sent (upload-body.ts), at any size. Over gRPC the
// POST goes on the client's own HTTP/2 connection, as UploadWitness does; over Connect it is an
// HTTP/1.1 request, as POST /v1/witnesses is (upload.ts). Both answer the key's KeyInfo as JSON, or
// Connect's JSON error with the daemon's cuzk-error-code header.
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { Code, ConnectError } from '@connectrpc/connect';
import type { KeyInfo } from '../engine/api.js';
import type { Http2Streams } from './grpc-upload.js';
import { UPLOAD_CHUNK_BYTES, type HttpTarget } from './upload.js';
import { sendBody, type UploadBody } from './upload-body.js';

const keyPath = (id: string) => `/v1/keys${id ? `?id=${encodeURIComponent(id)}` : ''}`;

function requestHeaders(token: string | undefined, bytes: number): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/octet-stream', 'content-length': String(bytes) };
  if (token) h.authorization = `Bearer ${token}`;
  return h;
}

/** The KeyInfo of a 200 answer; otherwise a ConnectError carrying the daemon's code and message. */
function answer(status: number, code: unknown, body: Buffer): KeyInfo {
  let json: Partial<KeyInfo> & { message?: string } = {};
  try {
    json = JSON.parse(body.toString('utf8')) as typeof json;
  } catch {
    // not JSON (a proxy's page, a cut answer): the status says enough
  }
  if (status === 200 && typeof json.id === 'string') return json as KeyInfo;
  const meta = new Headers();
  if (typeof code === 'string') meta.set('cuzk-error-code', code);
  throw new ConnectError(json.message ?? `key upload: HTTP ${status}`, Code.Unknown, meta);
}

/** POST /v1/keys over HTTP/1.1 (the Connect client's road). */
export function uploadKeyOverHttp(t: HttpTarget, id: string, zkey: UploadBody): Promise<KeyInfo> {
  const url = new URL(keyPath(id), t.baseUrl);
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = lib.request(url, { method: 'POST', headers: requestHeaders(t.token, zkey.bytes), socketPath: t.socketPath, ...t.tls }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('error', reject);
      res.on('end', () => {
        try {
          resolve(answer(res.statusCode ?? 0, res.headers['cuzk-error-code'], Buffer.concat(parts)));
        } catch (err) {
          reject(err);
        }
      });
      res.on('end', () => req.writableEnded || req.destroy()); // refused with the rest unsent: the connection is done
    });
    // a refusal can come before the body is sent: its answer is the error, not the broken pipe
    req.on('error', (err) => reject(err));
    sendBody(req, zkey, UPLOAD_CHUNK_BYTES, () => answered, reject);
  });
}

/** POST /v1/keys as one stream of the gRPC client's HTTP/2 connection. */
export async function uploadKeyOverH2(t: { session: Http2Streams; token?: string }, id: string, zkey: UploadBody): Promise<KeyInfo> {
  const s = await t.session.request('POST', keyPath(id), requestHeaders(t.token, zkey.bytes), {});
  return new Promise((resolve, reject) => {
    let status = 0;
    let code: unknown;
    const parts: Buffer[] = [];
    let failure: Error | undefined;
    s.on('response', (h) => {
      status = Number(h[':status'] ?? 0);
      code = h['cuzk-error-code'];
    });
    s.on('data', (d: Buffer) => {
      t.session.notifyResponseByteRead(s);
      parts.push(d);
    });
    s.on('error', (err) => (failure ??= err));
    // a refusal ends the answer and resets the stream (NO_ERROR) before the body is all sent: the
    // answer settles it, whichever of 'end' and 'close' comes first
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      if (status === 0) return reject(failure ?? new ConnectError(`key upload: http/2 stream closed (code 0x${(s.rstCode ?? 0).toString(16)}) before the answer`, Code.Unavailable));
      try {
        resolve(answer(status, code, Buffer.concat(parts)));
      } catch (err) {
        reject(err);
        if (!s.closed) s.close(http2.constants.NGHTTP2_CANCEL); // stop sending the rest of a refused key
      }
    };
    s.on('end', settle);
    s.on('close', settle);
    sendBody(s, zkey, UPLOAD_CHUNK_BYTES, () => status !== 0, (err) => {
      if (!settled) reject(err); // the file's own failure, not the stream's
      settled = true;
    });
  });
}
