// Witness uploads for CuzkClient: a witness larger than INLINE_MAX_BYTES is streamed to the daemon
// before the SubmitProof that names it, never sent as one giant message. Over gRPC it is the
// client-streaming UploadWitness in UPLOAD_CHUNK_BYTES chunks (grpc-upload.ts); over Connect
// (HTTP/1.1, which cannot stream a request) it is POST /v1/witnesses with the raw bytes, here.
// Both send an UploadBody (bytes or a file, upload-body.ts) and answer a witness id.
import http from 'node:http';
import https from 'node:https';
import { Code, ConnectError } from '@connectrpc/connect';
import { sendBody, type UploadBody } from './upload-body.js';

export const UPLOAD_CHUNK_BYTES = 1 << 20;
/** Smaller witnesses go inline in SubmitProof (one round trip); the daemon spools them the same way. */
export const INLINE_MAX_BYTES = 256 << 10;

export interface HttpTarget {
  baseUrl: string;
  socketPath?: string;
  token?: string;
  tls: { ca?: string | Buffer; cert?: string | Buffer; key?: string | Buffer };
}

/** POST /v1/witnesses; a refusal becomes a ConnectError carrying the daemon's cuzk-error-code, a
 * file that cannot be read while sent its own CuzkError. */
export function uploadOverHttp(t: HttpTarget, key: string, w: UploadBody): Promise<string> {
  const url = new URL(`/v1/witnesses?key=${encodeURIComponent(key)}`, t.baseUrl);
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream', 'content-length': String(w.bytes) };
  if (t.token) headers.authorization = `Bearer ${t.token}`;
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let answered = false;
    // a connection of its own (agent: false), never one a Connect RPC used before: the daemon hands a
    // connection whose first request is this POST to an intake process, and answers Connection: close
    const req = lib.request(url, { method: 'POST', headers, socketPath: t.socketPath, agent: false, ...t.tls }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let body: { witnessId?: string; message?: string } = {};
        try {
          body = JSON.parse(text) as typeof body;
        } catch {
          // not JSON: the status says enough
        }
        if (res.statusCode === 200 && body.witnessId) return resolve(body.witnessId);
        const meta = new Headers();
        const code = res.headers['cuzk-error-code'];
        if (typeof code === 'string') meta.set('cuzk-error-code', code);
        reject(new ConnectError(body.message ?? `witness upload: HTTP ${res.statusCode}`, Code.Unknown, meta));
      });
      res.on('end', () => req.writableEnded || req.destroy()); // refused with the rest unsent: the connection is done
    });
    // a refusal can come before the body is sent: its answer is the error, not the broken pipe
    req.on('error', (err) => reject(err));
    sendBody(req, w, UPLOAD_CHUNK_BYTES, () => answered, reject);
  });
}
