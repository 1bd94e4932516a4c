// The one table from a cuzk error code to what the network sees (shared/style.md §3): the gRPC
// status, and the HTTP status. Connect-RPC derives an RPC's HTTP status from its gRPC code, so the
// http column is that derived status (a test checks they agree); plain routes (/metrics) use it as is.
// Where the style table differs (E_FORMAT 422, E_CANCELLED 409) the gRPC code decides: 400 and 409.
import { Code, ConnectError } from '@connectrpc/connect';
import { create } from '@bufbuild/protobuf';
import type { JsonObject } from '@bufbuild/protobuf';
import { CuzkError, type ErrorCode } from '../errors.js';
import { ErrorDetailSchema } from '../rpc/gen/cuzk/v1/cuzk_pb.js';

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
};

function jsonSafe(v: unknown): JsonObject | undefined {
  if (v === undefined) return undefined;
  return JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))) as JsonObject;
}

/** A CuzkError (or anything thrown) as a ConnectError carrying an ErrorDetail with the E_ code. */
export function toConnectError(err: unknown, jobId?: string): ConnectError {
  if (err instanceof ConnectError) return err;
  const e = err instanceof CuzkError ? err : new CuzkError('E_INTERNAL', String((err as Error)?.message ?? err));
  const detail = create(ErrorDetailSchema, { code: e.code, message: e.message, jobId: jobId ?? '', details: jsonSafe(e.details) });
  return new ConnectError(`${e.code}: ${e.message}`, STATUS_MAP[e.code].grpc, { 'cuzk-error-code': e.code }, [{ desc: ErrorDetailSchema, value: detail }]);
}
