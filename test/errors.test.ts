// Errors across a worker thread (errorToWire / errorFromWire): each class of src/errors.ts comes
// back as itself with its code, message, retryable flag, details and cause; anything else as an
// Error with its name and code. The journal's thread (journal-thread.ts) relies on this.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { CuzkError, DeviceError, errorFromWire, errorToWire, FormatError, InputError, InternalError, ProofError, ResourceError } from '../src/errors.js';

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
    new ResourceError('E_UNAVAILABLE', 'journal /d/journal.sqlite: the disk is full', { retryable: true, cause: sqlite }),
    new ResourceError('E_OVERLOADED', 'queue full', { retryable: false }),
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
