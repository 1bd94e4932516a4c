// The one table from a cuzk error code to what the network sees (shared/style.md §3): the gRPC
// status, and the HTTP status. Connect-RPC derives an RPC's HTTP status from its gRPC code, so the
// http column is that derived status (a test checks they agree); plain routes (/metrics, the
// dashboard, fleet witnesses) use it as is, with the one JSON body {error: {code, message, jobId?}}.
// Where the style table differs (E_FORMAT 422, E_CANCELLED 409) the gRPC code decides: 400 and 409.
import { Code, ConnectError, type HandlerContext } from '@connectrpc/connect';
import { create } from '@bufbuild/protobuf';
import type { DescMessage, JsonObject } from '@bufbuild/protobuf';
import { CuzkError, type ErrorCode, toCuzkError } from '../../errors.js';
import { ErrorDetailSchema } from '../../rpc/gen/cuzk/v1/cuzk_pb.js';

export const STATUS_MAP: Record<ErrorCode, { grpc: Code; http: number }> = {
  E_INVALID_ARG: { grpc: Code.InvalidArgument, http: 400 },
  E_FORMAT: { grpc: Code.InvalidArgument, http: 400 },
  E_NOT_FOUND: { grpc: Code.NotFound, http: 404 },
  E_UNAUTHORIZED: { grpc: Code.Unauthenticated, http: 401 },
  E_OVERLOADED: { grpc: Code.ResourceExhausted, http: 429 },
  E_HOST_OOM: { grpc: Code.Unavailable, http: 503 },
  E_DEVICE_OOM: { grpc: Code.Unavailable, http: 503 },
  E_NO_DEVICE: { grpc: Code.Unavailable, http: 503 },
  E_CUDA: { grpc: Code.Internal, http: 500 },
  E_DEVICE_LOST: { grpc: Code.Internal, http: 500 },
  E_CANCELLED: { grpc: Code.Aborted, http: 409 },
  E_TIMEOUT: { grpc: Code.DeadlineExceeded, http: 504 },
  E_PROOF_INVALID: { grpc: Code.Internal, http: 500 },
  E_INTERNAL: { grpc: Code.Internal, http: 500 },
  E_UNAVAILABLE: { grpc: Code.Unavailable, http: 503 },
  // the daemon's configuration refuses the request until an operator raises the option (gRPC's
  // "do not retry until the system state is fixed"); not 429, which invites a retry of the same request
  E_LIMIT: { grpc: Code.FailedPrecondition, http: 400 },
};

function jsonSafe(v: unknown): JsonObject | undefined {
  if (v === undefined) return undefined;
  return JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))) as JsonObject;
}

/** A CuzkError (or anything thrown) as a ConnectError carrying an ErrorDetail with the E_ code. */
export function toConnectError(err: unknown, jobId?: string): ConnectError {
  if (err instanceof ConnectError) return err;
  const e = toCuzkError(err);
  const detail = create(ErrorDetailSchema, { code: e.code, message: e.message, jobId: jobId ?? '', details: jsonSafe(e.details) });
  return new ConnectError(`${e.code}: ${e.message}`, STATUS_MAP[e.code].grpc, { 'cuzk-error-code': e.code }, [{ desc: ErrorDetailSchema, value: detail }]);
}

/** The JSON body of an error on the daemon's plain HTTP routes (RPCs answer in Connect's own shape). */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; jobId?: string };
}

/** Anything thrown as its HTTP status and ErrorBody (E_INTERNAL, 500, for what is not a CuzkError). */
export function errorBody(err: unknown, jobId?: string): { status: number; body: ErrorBody } {
  const e = toCuzkError(err);
  return { status: STATUS_MAP[e.code].http, body: { error: { code: e.code, message: e.message, ...(jobId === undefined ? {} : { jobId }) } } };
}

/** What sendError needs of a node http/http2 response. */
export interface ErrorResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string): unknown;
}

/** Answers with errorBody's status and JSON; `headers` adds to the content type and length. */
export function sendError(res: ErrorResponse, err: unknown, opts: { jobId?: string; headers?: Record<string, string> } = {}): void {
  const { status, body } = errorBody(err, opts.jobId);
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...opts.headers });
  res.end(text);
}

/** The one wording of a message over limits.max_message_bytes. */
export function messageTooLarge(size: string | number | null | undefined, maxMessageBytes: number): string {
  return `message too large: ${size ? `${size} bytes, ` : ''}more than limits.max_message_bytes ${maxMessageBytes} (send less, or raise the limit on the daemon)`;
}

/**
 * Connect-RPC raises some errors itself, before any handler runs, with its own wording and codes:
 * an undecodable binary message is INTERNAL ("parse binary: ..."), a message over the limit names
 * its option readMaxBytes. Both are the client's input: E_INVALID_ARG, and the limit by cuzk's name
 * (`tooLarge`: limits.max_message_bytes, or for JSON requests limits.max_json_bytes).
 * Connect aborts the call's context with the error just before it encodes it, so this listener
 * (installed from the request gate) rewrites the error in place; api.test.ts and frontdoor.test.ts
 * check the result on every protocol.
 */
export function recodeProtocolErrors(ctx: Pick<HandlerContext, 'signal' | 'method' | 'requestHeader'>, maxMessageBytes: number, tooLarge: (size: string | number | null | undefined, max: number) => string = messageTooLarge): void {
  ctx.signal.addEventListener('abort', () => {
    const err: unknown = ctx.signal.reason;
    if (!(err instanceof ConnectError) || err.metadata.has('cuzk-error-code')) return;
    let message: string | undefined;
    if (err.code === Code.Internal && err.rawMessage.startsWith('parse binary: ')) {
      message = `request is not a valid protobuf message (${err.rawMessage.slice('parse binary: '.length)})`;
    } else if (err.code === Code.ResourceExhausted && /readMaxBytes/.test(err.rawMessage)) {
      message = tooLarge(/message size (\d+)/.exec(err.rawMessage)?.[1] ?? ctx.requestHeader.get('content-length'), maxMessageBytes);
    } else if (err.code === Code.InvalidArgument && /^cannot decode /.test(err.rawMessage)) {
      message = enumMessage(ctx.method.input, err.rawMessage) ?? err.rawMessage;
    }
    if (message === undefined) return;
    const recoded = toConnectError(new CuzkError('E_INVALID_ARG', message));
    const target = err as { -readonly [K in 'code' | 'rawMessage' | 'message' | 'details']: ConnectError[K] };
    target.code = recoded.code;
    target.rawMessage = recoded.rawMessage;
    target.message = recoded.message;
    target.details = recoded.details;
    err.metadata.set('cuzk-error-code', 'E_INVALID_ARG');
  });
}

/** protobuf-es names the enum type of a bad JSON enum value, not the field: find the field. */
function enumMessage(input: DescMessage, raw: string): string | undefined {
  const m = /^cannot decode enum ([\w.]+) from JSON: (.*)$/.exec(raw);
  if (!m) return undefined;
  const find = (desc: DescMessage, prefix: string, depth: number): { path: string; values: string[] } | undefined => {
    for (const f of desc.fields) {
      if (f.enum?.typeName === m[1]) return { path: prefix + f.jsonName, values: f.enum.values.map((v) => v.name) };
      const sub = f.message && depth < 4 ? find(f.message, `${prefix}${f.jsonName}.`, depth + 1) : undefined;
      if (sub) return sub;
    }
    return undefined;
  };
  const field = find(input, '', 0);
  return field ? `${field.path}: ${m[2]} is not a ${m[1]} value (one of ${field.values.join(', ')})` : undefined;
}
