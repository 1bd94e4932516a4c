// Scheduler: priority order (critical > high > normal > low), FIFO within a priority, request-id
// idempotency and conflicts, and a bounded queue that refuses with E_OVERLOADED and its state.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import type { Priority } from '../../src/engine/api.js';
import { requestDigest, Scheduler } from '../../src/engine/scheduler.js';

const job = (id: string, priority: Priority) => ({ id, priority });

describe('Scheduler', () => {
  it('takes jobs by priority, first in first out within one', () => {
    const s = new Scheduler<ReturnType<typeof job>>(100);
    const order: [string, Priority][] = [['l1', 'low'], ['n1', 'normal'], ['c1', 'critical'], ['h1', 'high'], ['n2', 'normal'], ['c2', 'critical'], ['l2', 'low']];
    for (const [id, p] of order) s.push(job(id, p));
    assert.equal(s.position(s.all().find((j) => j.id === 'l2')!), 6);
    const got: string[] = [];
    for (let j = s.next(); j; j = s.next()) got.push(j.id);
    assert.deepEqual(got, ['c1', 'c2', 'h1', 'n1', 'n2', 'l1', 'l2']);
  });

  it('refuses beyond maxQueue with the queue state', () => {
    const s = new Scheduler<ReturnType<typeof job>>(2);
    s.push(job('a', 'low'));
    s.push(job('b', 'high'));
    assert.throws(() => s.push(job('c', 'normal')), (e: CuzkError) => e.code === 'E_OVERLOADED' && e.retryable && (e.details?.queued as Record<string, number>).high === 1);
    s.remove(s.all()[0]!);
    s.push(job('c', 'normal'));
    assert.equal(s.size, 2);
  });

  it('maps a request id to its job; other content under the same id is refused', () => {
    const s = new Scheduler<ReturnType<typeof job>>(10);
    const w = new Uint8Array([1, 2, 3]);
    const d1 = requestDigest({ key: 'k', witnesses: [w] });
    s.push(job('j1', 'normal'), 'req-1', d1);
    assert.equal(s.lookup('req-1', requestDigest({ key: 'k', witnesses: [new Uint8Array([1, 2, 3])], priority: 'high' })), 'j1');
    assert.equal(s.lookup('req-2', d1), undefined);
    assert.throws(() => s.lookup('req-1', requestDigest({ key: 'k', witnesses: [new Uint8Array([1, 2, 4])] })), (e: CuzkError) => e.code === 'E_INVALID_ARG' && /req-1 was already used/.test(e.message));
    assert.notEqual(requestDigest({ key: 'k', inputs: [{ a: 1 }], wasm: 'x.wasm' }), requestDigest({ key: 'k', inputs: [{ a: 2 }], wasm: 'x.wasm' }));
  });
});
