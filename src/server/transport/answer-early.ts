// Answers an RPC from its headers alone, in the protocol the client speaks, without reading a byte of
// its body (a refused upload is neither read nor held): gRPC gets a trailers-only response (status
// in the one HEADERS frame, which ends the stream), gRPC-Web its status in the headers, Connect the
// HTTP status and JSON error body Connect-RPC itself would send, with the same metadata headers.
import http2 from 'node:http2';
import type { ConnectError } from '@connectrpc/connect';
import { mergeNonProtocolHeaders } from '@connectrpc/connect/protocol';
import { codeToHttpStatus, errorToJsonBytes } from '@connectrpc/connect/protocol-connect';
import { setTrailerStatus } from '@connectrpc/connect/protocol-grpc';
import type { connectNodeAdapter } from '@connectrpc/connect-node';

type NodeHandlerFn = ReturnType<typeof connectNodeAdapter>;
type Req = Parameters<NodeHandlerFn>[0];
type Res = Parameters<NodeHandlerFn>[1];

// Connect-RPC's wait (node-universal-handler.ts) between half-closing an HTTP/1.1 connection whose
// request body is left unread and closing it: closing at once can make the client's TCP stack
// drop the answer it has not read yet.
const H1_CLOSE_DELAY_MS = 500;

const nodeHeaders = (h: Headers) => Object.fromEntries(h.entries());

export function answerEarly(req: Req, res: Res, err: ConnectError): void {
  // a client that reset its stream or closed its connection has nobody left to answer (answering
  // a closed HTTP/2 stream throws, and that throw took the daemon down)
  if (res.destroyed || ('stream' in res && (res.stream.closed || res.stream.destroyed))) return;
  const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim();
  const h = new Headers();
  let status: number;
  let body: Uint8Array | undefined;
  if (type.startsWith('application/grpc')) {
    h.set('content-type', type);
    setTrailerStatus(h, err);
    status = 200;
  } else {
    mergeNonProtocolHeaders(h, err.metadata);
    h.set('content-type', 'application/json');
    body = errorToJsonBytes(err, {});
    h.set('content-length', String(body.byteLength));
    status = codeToHttpStatus(err.code);
  }
  if ('stream' in res) {
    // HTTP/2: one HEADERS frame (END_STREAM when there is no body), then a NO_ERROR reset tells
    // the client to stop sending the rest of its body without touching the connection
    const stream = res.stream;
    const reset = () => setImmediate(() => stream.closed || stream.close(http2.constants.NGHTTP2_NO_ERROR));
    stream.respond({ ':status': status, ...nodeHeaders(h) }, { endStream: body === undefined });
    // nghttp2 sends a reset ahead of queued DATA: reset only once the body has gone out
    if (body !== undefined) stream.end(body, reset);
    else reset();
    return;
  }
  // HTTP/1.1 cannot stop one request's body: answer, half-close, and close after a delay
  const socket = req.socket;
  socket.destroySoon = () => socket.end(() => setTimeout(() => socket.destroy(), H1_CLOSE_DELAY_MS).unref());
  res.writeHead(status, { ...nodeHeaders(h), connection: 'close' });
  res.end(body);
}
