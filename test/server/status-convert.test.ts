// GetStatus crosses the wire intact: what the engine reports (devices with their cumulative kernel ms,
// the witness stage) is what the SDK reads back. The daemon bench's GPU utilisation is the difference
// of kernel_ms over a window; utilisation x uptime over-counted it (110% in one H200 window).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { statusFromProto } from '../../src/client/convert.js';
import type { EngineStatus } from '../../src/engine/api.js';
import { GetStatusResponseSchema } from '../../src/rpc/gen/cuzk/v1/cuzk_pb.js';
import { statusToProto } from '../../src/server/transport/convert.js';

const status: EngineStatus = {
  backend: 'cuda',
  uptimeMs: 60_000,
  devices: [
    { id: 'gpu:0', name: 'H200', memoryTotal: 2 ** 37, memoryFree: 2 ** 36, utilisation: 0.75, kernelMs: 41_234.5, healthy: true },
    { id: 'cpu', name: 'CPU core', memoryTotal: 2 ** 34, memoryFree: 2 ** 33, utilisation: null, kernelMs: null, healthy: true },
  ],
  keys: [],
  queues: { critical: 0, high: 1, normal: 2, low: 0 },
  running: 3,
  budget: { host: { limit: 100, used: 10, waiters: 0 }, pinned: { limit: 50, used: 5, waiters: 1 }, gpu: [{ id: 'gpu:0', limit: 80, used: 8, waiters: 0 }] },
  pinnedPool: { enabled: true, buffers: 2, bytes: 1024, inUse: 1, allocations: 2, allocationsAfterWarmup: 0, targetBytes: 0, growing: false, growState: 'off', pathAllocations: 0 },
  totals: { submitted: 9, completed: 7, failed: 1, cancelled: 1, expired: 0, proofs: 7 },
  draining: false,
  paused: false,
  witness: { slots: 15, wasmWorkers: 15, queued: 2, busy: 3, done: 120, failed: 1, totalMs: 50_400.25, processes: 15 },
};

describe('GetStatus conversion', () => {
  it('devices (kernel ms on a GPU, none on the CPU) and the witness stage survive the wire', () => {
    const wire = toBinary(GetStatusResponseSchema, statusToProto(status, { version: '0.1.0', journal: {} }));
    const back = statusFromProto(fromBinary(GetStatusResponseSchema, wire));
    assert.deepEqual(back.devices.map((d) => [d.id, d.utilisation, d.kernelMs]), [['gpu:0', 0.75, 41_234.5], ['cpu', null, null]]);
    assert.deepEqual(back.witness, status.witness);
    assert.deepEqual(back.budget, status.budget);
    assert.equal(back.running, 3);
  });
});
