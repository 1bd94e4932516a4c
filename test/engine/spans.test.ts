// SpanRecorder's ring: a daemon running for days holds at most its capacity of spans, the newest,
// in the order they were recorded; traceJson(since) keeps only the spans that started at or after it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SpanRecorder, type Span } from '../../src/engine/spans.js';

const span = (i: number): Span => ({ phase: 'synthesis', jobId: `job-${i}`, partition: 0, track: 'synthesis', start: 1000 + i, dur: 0.5 });

describe('SpanRecorder', () => {
  it('keeps the newest `capacity` spans, oldest first, however many are recorded', () => {
    const r = new SpanRecorder(4);
    for (let i = 0; i < 11; i++) r.record(span(i));
    assert.deepEqual(r.spans().map((s) => s.jobId), ['job-7', 'job-8', 'job-9', 'job-10']);
    r.record(span(11));
    assert.deepEqual(r.spans().map((s) => s.jobId), ['job-8', 'job-9', 'job-10', 'job-11']);
  });

  it('traceJson(since) holds the spans that started at or after `since`, and no other', () => {
    const r = new SpanRecorder(100);
    for (let i = 0; i < 10; i++) r.record(span(i));
    const jobs = (json: string) => (JSON.parse(json) as { traceEvents: { ph: string; args?: { job?: string } }[] }).traceEvents.filter((e) => e.ph === 'X').map((e) => e.args!.job);
    assert.deepEqual(jobs(r.traceJson(1007)), ['job-7', 'job-8', 'job-9']);
    assert.equal(jobs(r.traceJson()).length, 10);
    assert.deepEqual(jobs(r.traceJson(5000)), []);
  });
});
