// CuzkError and ErrorCode: the one TypeScript list of error codes users see.
// Numeric codes live only in native/include/cuzk.h; src/ffi/status.ts maps them here, and a test
// checks that both tables agree. Codes are only ever appended.

export const ERROR_CODES = [
  'E_INVALID_ARG',
  'E_FORMAT',
  'E_NOT_FOUND',
  'E_UNAUTHORIZED',
  'E_OVERLOADED',
  'E_HOST_OOM',
  'E_DEVICE_OOM',
  'E_NO_DEVICE',
  'E_CUDA',
  'E_DEVICE_LOST',
  'E_CANCELLED',
  'E_TIMEOUT',
  'E_PROOF_INVALID',
  'E_INTERNAL',
  'E_UNAVAILABLE',
  'E_LIMIT',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** What a caller may do after an error with this code (shared/style.md §3's "retry?" column):
 * 'no' (the same request fails again), 'later' (the same request may succeed once load, memory or
 * the network allows: back off and retry, here or on another instance), 'other-device' (retry once:
 * the engine itself retries a lost device's proof on another lane, and a client may resubmit once,
 * the lost device being drained). */
export type RetryPolicy = 'no' | 'later' | 'other-device';

export const RETRY_POLICY: Readonly<Record<ErrorCode, RetryPolicy>> = {
  E_INVALID_ARG: 'no',
  E_FORMAT: 'no',
  E_NOT_FOUND: 'no',
  E_UNAUTHORIZED: 'no',
  E_OVERLOADED: 'later',
  E_HOST_OOM: 'later',
  E_DEVICE_OOM: 'later',
  E_NO_DEVICE: 'no',
  E_CUDA: 'no',
  E_DEVICE_LOST: 'other-device',
  E_CANCELLED: 'no',
  E_TIMEOUT: 'later',
  E_PROOF_INVALID: 'no',
  E_INTERNAL: 'no',
  E_UNAVAILABLE: 'later',
  E_LIMIT: 'no',
};

/** True when RETRY_POLICY allows any retry of this code: CuzkError.retryable, on the wire too. */
export function isRetryable(code: ErrorCode): boolean {
  return RETRY_POLICY[code] !== 'no';
}

export interface CuzkErrorOptions {
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class CuzkError extends Error {
  readonly code: ErrorCode;
  /** From the code (RETRY_POLICY), never set by a throw site. */
  readonly retryable: boolean;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, opts: CuzkErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = isRetryable(code);
    this.details = opts.details;
  }
}

/** Bad request or bad argument (E_INVALID_ARG, E_NOT_FOUND), or a request over a limit (E_LIMIT): one
 * the operator set (the message names it and its option: send less or raise it) or one of cuzk's own. */
export class InputError extends CuzkError {}
/** Malformed or mismatched zkey/wtns/r1cs/json file (E_FORMAT). */
export class FormatError extends CuzkError {
  constructor(message: string, opts: CuzkErrorOptions = {}) {
    super('E_FORMAT', message, opts);
  }
}
/** Memory or queue exhausted (E_HOST_OOM, E_DEVICE_OOM, E_OVERLOADED), or the daemon not reachable or its journal not writable (E_UNAVAILABLE); retryable later. */
export class ResourceError extends CuzkError {}
/** GPU missing, failing or lost (E_NO_DEVICE, E_CUDA, E_DEVICE_LOST). */
export class DeviceError extends CuzkError {}
/** Our own verify-before-return rejected a proof (E_PROOF_INVALID): a bug. */
export class ProofError extends CuzkError {}
/** Anything unclassified (E_INTERNAL). */
export class InternalError extends CuzkError {}

/** Class for a code, so that errors from native code are the same classes callers branch on. */
export function errorForCode(code: ErrorCode, message: string, opts: CuzkErrorOptions = {}): CuzkError {
  switch (code) {
    case 'E_INVALID_ARG':
    case 'E_NOT_FOUND':
    case 'E_LIMIT':
      return new InputError(code, message, opts);
    case 'E_FORMAT':
      return new FormatError(message, opts);
    case 'E_OVERLOADED':
    case 'E_HOST_OOM':
    case 'E_DEVICE_OOM':
    case 'E_UNAVAILABLE':
      return new ResourceError(code, message, opts);
    case 'E_NO_DEVICE':
    case 'E_CUDA':
    case 'E_DEVICE_LOST':
      return new DeviceError(code, message, opts);
    case 'E_PROOF_INVALID':
      return new ProofError(code, message, opts);
    case 'E_INTERNAL':
      return new InternalError(code, message, opts);
    default:
      return new CuzkError(code, message, opts);
  }
}

/** `err` as a CuzkError: itself when it is one, else E_INTERNAL with its message, `err` kept as the cause. */
export function toCuzkError(err: unknown): CuzkError {
  if (err instanceof CuzkError) return err;
  return new InternalError('E_INTERNAL', errorMessage(err), { cause: err });
}

/** The message of anything thrown: an Error's message, an object's string `message`, else its string form. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string') return (err as { message: string }).message;
  return String(err);
}

/** An error as it crosses a worker thread: structured cloning keeps neither the class nor `code`. */
export interface WireError {
  /** A class of this file, or 'Error' for anything else (its `name` kept in `name`). */
  kind: string;
  name: string;
  message: string;
  code?: string;
  retryable?: boolean;
  details?: Record<string, unknown>;
  stack?: string;
  cause?: WireError;
}

const CLASSES: Record<string, new (code: ErrorCode, message: string, opts: CuzkErrorOptions) => CuzkError> = {
  CuzkError,
  InputError,
  ResourceError,
  DeviceError,
  ProofError,
  InternalError,
};

export function errorToWire(err: unknown, depth = 0): WireError {
  if (!(err instanceof Error)) return { kind: 'Error', name: 'Error', message: String(err) };
  const w: WireError = { kind: 'Error', name: err.name, message: err.message, stack: err.stack };
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') w.code = code;
  if (err instanceof CuzkError) {
    w.kind = err instanceof FormatError ? 'FormatError' : (Object.keys(CLASSES).find((k) => err.constructor === CLASSES[k]) ?? 'CuzkError');
    w.retryable = err.retryable;
    if (err.details) w.details = err.details;
  }
  if (err.cause !== undefined && depth < 4) w.cause = errorToWire(err.cause, depth + 1);
  return w;
}

/** The error `errorToWire` described, of the same class with the same code, message and retryable flag. */
export function errorFromWire(w: WireError): Error {
  const opts: CuzkErrorOptions = { details: w.details, cause: w.cause && errorFromWire(w.cause) };
  const known = (ERROR_CODES as readonly string[]).includes(w.code ?? '') ? (w.code as ErrorCode) : undefined;
  let err: Error;
  if (w.kind === 'FormatError') err = new FormatError(w.message, opts);
  else if (known && CLASSES[w.kind]) err = new CLASSES[w.kind]!(known, w.message, opts);
  else {
    err = new Error(w.message, opts.cause === undefined ? undefined : { cause: opts.cause });
    err.name = w.name;
    if (w.code !== undefined) Object.assign(err, { code: w.code });
  }
  if (w.stack) err.stack = w.stack;
  return err;
}
