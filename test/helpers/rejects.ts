// The one assertion that a call fails with a given cuzk error code: returns the error for further checks.
import assert from 'node:assert/strict';
import { CuzkError } from '../../src/client/index.js';

export async function rejects(p: Promise<unknown>, code: string): Promise<CuzkError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof CuzkError, `expected a CuzkError ${code}, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  return err;
}
