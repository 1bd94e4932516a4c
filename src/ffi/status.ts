// The one place where a native status becomes a CuzkError. The stack is captured before the call
// (sharp's approach) so errors point at the TypeScript caller, not at this file.
import { CuzkError, errorForCode, type ErrorCode } from '../errors.js';

// Index = cuzk_status value from native/include/cuzk.h (append only).
export const NATIVE_STATUS: readonly (ErrorCode | 'OK')[] = [
  'OK',
  'E_INVALID_ARG',
  'E_FORMAT',
  'E_HOST_OOM',
  'E_DEVICE_OOM',
  'E_NO_DEVICE',
  'E_CUDA',
  'E_DEVICE_LOST',
  'E_CANCELLED',
  'E_PROOF_INVALID',
  'E_INTERNAL',
];

export interface NativeErrorSlot {
  code: number;
  message: string;
}

export function newErrorSlot(): NativeErrorSlot {
  return { code: 0, message: '' };
}

/** Throws the CuzkError for a non-zero native status; `op` names the native call in the message. */
export function check(status: number, slot: NativeErrorSlot, op: string, stack?: Error): void {
  if (status === 0) return;
  const code = NATIVE_STATUS[status];
  const err: CuzkError =
    code === undefined || code === 'OK'
      ? errorForCode('E_INTERNAL', `${op}: unknown native status ${status}: ${slot.message}`)
      : errorForCode(code, slot.message.startsWith(op) ? slot.message : `${op}: ${slot.message || code}`);
  if (stack?.stack) err.stack = `${err.name}: ${err.message}\n${stack.stack.split('\n').slice(1).join('\n')}`;
  throw err;
}
