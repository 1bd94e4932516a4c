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
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface CuzkErrorOptions {
  retryable?: boolean;
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class CuzkError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, opts: CuzkErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = opts.retryable ?? false;
    this.details = opts.details;
  }
}

/** Bad request or bad argument (E_INVALID_ARG, E_NOT_FOUND). */
export class InputError extends CuzkError {}
/** Malformed or mismatched zkey/wtns/r1cs/json file (E_FORMAT). */
export class FormatError extends CuzkError {
  constructor(message: string, opts: CuzkErrorOptions = {}) {
    super('E_FORMAT', message, opts);
  }
}
/** Memory or queue exhausted (E_HOST_OOM, E_DEVICE_OOM, E_OVERLOADED), or the daemon not reachable or its journal not writable (E_UNAVAILABLE); retryable. */
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
      return new InputError(code, message, opts);
    case 'E_FORMAT':
      return new FormatError(message, opts);
    case 'E_OVERLOADED':
    case 'E_HOST_OOM':
    case 'E_DEVICE_OOM':
      return new ResourceError(code, message, { retryable: true, ...opts });
    case 'E_UNAVAILABLE':
      return new ResourceError(code, message, { retryable: true, ...opts });
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
