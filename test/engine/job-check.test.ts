// The rules every job's fields follow (engine/job-check.ts), for the engine's API and the daemon's
// wire alike: deadline absent or 0 = none, else a positive safe integer; priority from the list;
// exactly one witness source of 1..maxPartitions entries; messages in the caller's spelling.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { API_NAMES, checkDeadline, checkJobFields, WIRE_NAMES } from '../../src/engine/job-check.js';
import { checkJobRequest } from '../../src/server/intake/request-check.js';

function invalid(fn: () => unknown, ...parts: string[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CuzkError, `expected a CuzkError, got ${String(err)}`);
    assert.equal(err.code, 'E_INVALID_ARG');
    for (const p of parts) assert.ok(err.message.includes(p), `${JSON.stringify(err.message)} lacks ${JSON.stringify(p)}`);
    return true;
  });
}

const api = (req: Record<string, unknown>, max = 4) =>
  checkJobFields(req, { witnesses: req.witnesses, witnessFiles: req.witnessFiles, inputs: req.inputs }, { maxPartitions: max, names: API_NAMES });
const wire = { maxJobBytes: 1 << 20, maxPartitions: 4 };

describe('job fields', () => {
  it('deadline: absent or 0 is none, a positive safe integer is kept, anything else is refused', () => {
    assert.equal(checkDeadline(undefined), undefined);
    assert.equal(checkDeadline(0), undefined);
    assert.equal(checkDeadline(1), 1);
    assert.equal(checkDeadline(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
    for (const v of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1, '10', null]) {
      invalid(() => checkDeadline(v), 'deadlineMs must be 0 (none) or a positive integer');
    }
    invalid(() => checkDeadline(-5, WIRE_NAMES.deadlineMs), 'deadline_ms', 'got -5');
    assert.equal('deadlineMs' in api({ key: 'k', witnessFiles: ['a'], deadlineMs: 0 }), false, 'a deadline of 0 is dropped');
    assert.equal(api({ key: 'k', witnessFiles: ['a'], deadlineMs: 250 }).deadlineMs, 250);
  });

  it('the engine and the wire apply the same deadline rule', () => {
    const w = new Uint8Array(16).fill(0);
    w.set([0x77, 0x74, 0x6e, 0x73]);
    assert.equal(checkJobRequest({ key: 'k', witnesses: [w], deadlineMs: 0 }, wire).deadlineMs, undefined);
    assert.equal(checkJobRequest({ key: 'k', witnesses: [w], deadlineMs: 7 }, wire).deadlineMs, 7);
    invalid(() => checkJobRequest({ key: 'k', witnesses: [w], deadlineMs: -1 }, wire), 'deadline_ms');
    invalid(() => checkJobRequest({ key: 'k', witnesses: [w], deadlineMs: 0.5 }, wire), 'deadline_ms');
  });

  it('priority defaults to normal and must be one of the four', () => {
    assert.equal(api({ key: 'k', witnessFiles: ['a'] }).priority, 'normal');
    assert.equal(api({ key: 'k', witnessFiles: ['a'], priority: 'critical' }).priority, 'critical');
    invalid(() => api({ key: 'k', witnessFiles: ['a'], priority: 'urgent' }), 'priority must be one of critical, high, normal, low');
    invalid(() => checkJobRequest({ key: 'k', witnessFiles: ['a'], priority: 'urgent' as 'high' }, wire), 'priority must be one of');
  });

  it('partitions: exactly one source, 1..maxPartitions entries', () => {
    assert.equal(api({ key: 'k', inputs: [{}, {}] }).partitions, 2);
    assert.equal(api({ key: 'k', inputs: [{}, {}] }).source, 'inputs');
    invalid(() => api({ key: 'k' }), 'exactly one of witnesses, witnessFiles or inputs', 'got none');
    invalid(() => api({ key: 'k', witnesses: [], inputs: [{}] }), 'exactly one of', 'got witnesses, inputs');
    invalid(() => api({ key: 'k', witnesses: [] }), 'at least one witness');
    invalid(() => api({ key: 'k', witnessFiles: 'a.wtns' }), 'at least one witness');
    assert.equal(api({ key: 'k', witnessFiles: ['a', 'b', 'c', 'd'] }).partitions, 4);
    invalid(() => api({ key: 'k', witnessFiles: ['a', 'b', 'c', 'd', 'e'] }), 'at most 4 partitions (maxPartitions), this one has 5');
    invalid(() => checkJobRequest({ key: 'k', witnessFiles: ['a', 'b', 'c', 'd', 'e'] }, wire), 'engine.max_partitions');
    // the wire has no absent list, only an empty one
    invalid(() => checkJobRequest({ key: 'k', witnesses: [], witnessIds: [] }, wire), 'exactly one of witnesses, witness_ids, witness_files or inputs', 'got none');
    assert.equal(checkJobRequest({ key: 'k', witnesses: [], witnessIds: ['u1'] }, wire).source.kind, 'uploads');
  });

  it('a key is required', () => {
    invalid(() => api({ witnessFiles: ['a'] }), 'key is required');
    invalid(() => api({ key: '  ', witnessFiles: ['a'] }), 'key is required');
    invalid(() => checkJobRequest({ key: '', witnessFiles: ['a'] }, wire), 'key is required');
  });
});
