// Errors across a worker thread (errorToWire / errorFromWire): each class of src/errors.ts comes
// back as itself with its code, message, retryable flag, details and cause; anything else as an
// Error with its name and code. The journal's thread (journal-thread.ts) relies on this. Also the
// retry table (retryable from the code alone) and toCuzkError / errorMessage on anything thrown.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import {
  CuzkError, DeviceError, ERROR_CODES, errorForCode, errorFromWire, errorMessage, errorToWire, FormatError, InputError, InternalError, isRetryable, ProofError, ResourceError,
  RETRY_POLICY, toCuzkError,
} from '../src/errors.js';

/** Through structured cloning, as a worker's postMessage sends it. */
function across(err: unknown): Error {
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(errorToWire(err));
  const got = receiveMessageOnPort(port2)!.message as Parameters<typeof errorFromWire>[0];
  port1.close();
  return errorFromWire(got);
}

describe('errors across a thread', () => {
  const sqlite = Object.assign(new Error('database or disk is full'), { name: 'SqliteError', code: 'SQLITE_FULL' });
  const cases: CuzkError[] = [
    new CuzkError('E_INTERNAL', 'journal: witness blob truncated'),
    new InputError('E_NOT_FOUND', 'no job j1', { details: { jobId: 'j1' } }),
    new FormatError('zkey section 4: expected 8 coefficients, got 7'),
    new ResourceError('E_UNAVAILABLE', 'journal /d/journal.sqlite: the disk is full', { cause: sqlite }),
    new ResourceError('E_OVERLOADED', 'queue full'),
    new DeviceError('E_DEVICE_LOST', 'gpu 0 lost'),
    new ProofError('E_PROOF_INVALID', 'verify failed'),
    new InternalError('E_INTERNAL', 'a bug'),
  ];
  for (const sent of cases) {
    it(`${sent.constructor.name} ${sent.code} keeps its class, code, message, retryable flag, details and cause`, () => {
      const got = across(sent) as CuzkError;
      assert.equal(got.constructor, sent.constructor);
      assert.equal(got.name, sent.name);
      assert.equal(got.code, sent.code);
      assert.equal(got.message, sent.message);
      assert.equal(got.retryable, sent.retryable);
      assert.deepEqual(got.details, sent.details);
      assert.equal(got.stack, sent.stack, 'the stack where it was thrown');
      if (sent.cause) {
        assert.equal((got.cause as Error).name, 'SqliteError');
        assert.equal((got.cause as { code?: string }).code, 'SQLITE_FULL');
        assert.equal((got.cause as Error).message, 'database or disk is full');
      } else assert.equal(got.cause, undefined);
    });
  }

  it('an error of no class of ours: an Error with its name, code and message; a thrown non-error: its text', () => {
    const got = across(sqlite);
    assert.equal(got.constructor, Error);
    assert.equal(got.name, 'SqliteError');
    assert.equal((got as { code?: string }).code, 'SQLITE_FULL');
    assert.equal(got.message, 'database or disk is full');
    assert.equal(across('just a string').message, 'just a string');
  });
});

describe('retryable from the code', () => {
  it('shared/style.md §3: overload, out-of-memory, unavailable and timeout later; a lost device once elsewhere; the rest never', () => {
    const later = ['E_OVERLOADED', 'E_HOST_OOM', 'E_DEVICE_OOM', 'E_UNAVAILABLE', 'E_TIMEOUT'];
    for (const code of ERROR_CODES) {
      const want = later.includes(code) ? 'later' : code === 'E_DEVICE_LOST' ? 'other-device' : 'no';
      assert.equal(RETRY_POLICY[code], want, code);
      assert.equal(isRetryable(code), want !== 'no', code);
      assert.equal(errorForCode(code, 'x').retryable, want !== 'no', `errorForCode ${code}`);
      assert.equal(new CuzkError(code, 'x').retryable, want !== 'no', `new CuzkError ${code}`);
    }
  });

  it('a throw site cannot override it (no such option; one smuggled past the types is ignored)', () => {
    const smuggled = (retryable: boolean) => ({ retryable }) as unknown as ConstructorParameters<typeof CuzkError>[2];
    assert.equal(new ResourceError('E_OVERLOADED', 'full', smuggled(false)).retryable, true);
    assert.equal(new CuzkError('E_INVALID_ARG', 'bad', smuggled(true)).retryable, false);
  });
});

describe('toCuzkError and errorMessage', () => {
  it('a CuzkError as it is', () => {
    const e = new DeviceError('E_DEVICE_LOST', 'gpu:0 lost');
    assert.equal(toCuzkError(e), e);
  });

  it('an Error: E_INTERNAL (InternalError) with its message, the original as cause', () => {
    const orig = new TypeError('x is undefined');
    const e = toCuzkError(orig);
    assert.ok(e instanceof InternalError);
    assert.equal(e.code, 'E_INTERNAL');
    assert.equal(e.message, 'x is undefined');
    assert.equal(e.cause, orig);
    assert.equal(e.retryable, false);
  });

  it('a thrown non-error: its text, kept as cause; an object with a message: that message', () => {
    assert.equal(toCuzkError('boom').message, 'boom');
    assert.equal(toCuzkError('boom').cause, 'boom');
    assert.equal(toCuzkError(42).message, '42');
    assert.equal(toCuzkError(undefined).message, 'undefined');
    assert.equal(toCuzkError(null).message, 'null');
    assert.equal(toCuzkError({ message: 'plain object' }).message, 'plain object');
    assert.equal(errorMessage(new Error('m')), 'm');
    assert.equal(errorMessage(Symbol('s')), 'Symbol(s)');
    assert.equal(errorMessage({ message: 7 }), '[object Object]');
  });
});
