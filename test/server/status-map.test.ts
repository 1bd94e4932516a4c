// The one table from error code to network status: complete, its HTTP column is what Connect sends
// for its gRPC code, and the SDK maps every code back to itself through the ErrorDetail/header;
// the plain routes' one JSON error body (errorBody / sendError).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Code, ConnectError } from '@connectrpc/connect';
import { errorFromRpc } from '../../src/client/convert.js';
import { CuzkError, ERROR_CODES } from '../../src/errors.js';
import { errorBody, sendError, STATUS_MAP, toConnectError } from '../../src/server/transport/status-map.js';

// Connect protocol spec, "Error codes": gRPC code → HTTP status
const CONNECT_HTTP: Partial<Record<Code, number>> = {
  [Code.InvalidArgument]: 400, [Code.NotFound]: 404, [Code.Unauthenticated]: 401, [Code.ResourceExhausted]: 429,
  [Code.Unavailable]: 503, [Code.Internal]: 500, [Code.Aborted]: 409, [Code.DeadlineExceeded]: 504, [Code.FailedPrecondition]: 400,
};

describe('status map', () => {
  it('every code has a gRPC status and the HTTP status Connect derives from it', () => {
    for (const code of ERROR_CODES) {
      const m = STATUS_MAP[code];
      assert.ok(m, code);
      assert.equal(m.http, CONNECT_HTTP[m.grpc], `${code}: http ${m.http} but Connect sends ${CONNECT_HTTP[m.grpc]} for ${Code[m.grpc]}`);
    }
  });

  it('a CuzkError survives the trip: code, message, details', () => {
    for (const code of ERROR_CODES) {
      const ce = toConnectError(new CuzkError(code, `a ${code} happened`, { details: { queued: 3, big: 5n } }), 'job-1');
      assert.equal(ce.code, STATUS_MAP[code].grpc);
      const back = errorFromRpc(ce, 'addr');
      assert.equal(back.code, code);
      assert.equal(back.message, `a ${code} happened`);
      assert.deepEqual(back.details, { queued: 3, big: '5' });
    }
  });

  it('errors without a cuzk code: transport failures name the address', () => {
    assert.equal(errorFromRpc(new ConnectError('connect ECONNREFUSED 127.0.0.1:1', Code.Unavailable), 'h:1').code, 'E_UNAVAILABLE');
    assert.match(errorFromRpc(new ConnectError('x', Code.Unavailable), 'h:1').message, /cannot reach the cuzk daemon at h:1/);
    assert.equal(errorFromRpc(new ConnectError('message size 9 is larger than configured readMaxBytes 5', Code.ResourceExhausted), 'a').code, 'E_INVALID_ARG');
    assert.equal(errorFromRpc(new ConnectError('busy', Code.ResourceExhausted), 'a').code, 'E_OVERLOADED');
    assert.equal(errorFromRpc(new Error('boom'), 'a').code, 'E_INTERNAL');
  });

  it('a CuzkError survives the trip with the retryable flag of its code', () => {
    for (const code of ERROR_CODES) {
      const sent = new CuzkError(code, 'x');
      assert.equal(errorFromRpc(toConnectError(sent), 'addr').retryable, sent.retryable, code);
    }
  });

  it('the plain routes\' error body: {error: {code, message, jobId?}} with the table\'s HTTP status', () => {
    for (const code of ERROR_CODES) {
      assert.deepEqual(errorBody(new CuzkError(code, `a ${code}`)), { status: STATUS_MAP[code].http, body: { error: { code, message: `a ${code}` } } });
    }
    assert.deepEqual(errorBody(new CuzkError('E_NOT_FOUND', 'gone'), 'j1').body, { error: { code: 'E_NOT_FOUND', message: 'gone', jobId: 'j1' } });
    assert.deepEqual(errorBody(new TypeError('bug')), { status: 500, body: { error: { code: 'E_INTERNAL', message: 'bug' } } });
    assert.deepEqual(errorBody('thrown text').body, { error: { code: 'E_INTERNAL', message: 'thrown text' } });
    const sent: { status?: number; headers?: Record<string, string>; body?: string } = {};
    sendError({ writeHead: (status, headers) => Object.assign(sent, { status, headers }), end: (body) => (sent.body = body) }, new CuzkError('E_UNAUTHORIZED', 'token'), { headers: { 'x-a': '1' } });
    assert.equal(sent.status, 401);
    assert.deepEqual(JSON.parse(sent.body!), { error: { code: 'E_UNAUTHORIZED', message: 'token' } });
    assert.deepEqual(sent.headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(sent.body!)), 'x-a': '1' });
  });
});
