// Engine values (src/engine/api.ts) as proto messages and back: the only place the server maps
// fields, so the RPC surface stays one to one with the engine contract.
import { performance } from 'node:perf_hooks';
import { create, type JsonObject } from '@bufbuild/protobuf';
import { InputError } from '../../errors.js';
import type { EngineStatus, JobEvent, JobInfo, KeyInfo } from '../../engine/api.js';
import {
  ErrorDetailSchema, GetStatusResponseSchema, JobEventSchema, JobSchema, KeySchema, PhaseEventSchema, ProofOutputSchema,
  type GetStatusResponse, type Job, type JobEvent as PbJobEvent, type Key, type SubmitProofRequest,
} from '../../rpc/gen/cuzk/v1/cuzk_pb.js';
import { priorityFromProto, priorityToProto, stateToProto } from '../../rpc/enums.js';
import type { FleetMember } from '../fleet/pg-fleet.js';
import type { IntakeStats } from './intake-wire.js';
import type { JobSubmission } from '../intake/request-check.js';

const big = (n: number | undefined): bigint => BigInt(Math.max(0, Math.round(n ?? 0)));

export function jobRequestFromProto(m: SubmitProofRequest): JobSubmission {
  const priority = priorityFromProto(m.priority);
  if (priority === undefined && m.priority !== 0) throw new InputError('E_INVALID_ARG', `priority ${m.priority} is not a Priority value`);
  if (m.deadlineMs > BigInt(Number.MAX_SAFE_INTEGER)) throw new InputError('E_INVALID_ARG', 'deadline_ms is too large');
  const req: JobSubmission = { key: m.key, priority };
  if (m.witnesses.length) req.witnesses = m.witnesses;
  if (m.witnessIds.length) req.witnessIds = m.witnessIds;
  if (m.witnessFiles.length) req.witnessFiles = m.witnessFiles;
  if (m.inputs.length) req.inputs = m.inputs as Record<string, unknown>[];
  if (m.wasm) req.wasm = m.wasm;
  if (m.generator) req.generator = m.generator;
  if (m.requestId) req.requestId = m.requestId;
  if (m.deadlineMs > 0n) req.deadlineMs = Number(m.deadlineMs);
  return req;
}

function errorDetail(e: { code: string; message: string } | undefined, jobId: string) {
  return e && create(ErrorDetailSchema, { code: e.code, message: e.message, jobId });
}

export function jobToProto(j: JobInfo): Job {
  return create(JobSchema, {
    id: j.id,
    requestId: j.requestId ?? '',
    key: j.key,
    priority: priorityToProto(j.priority),
    state: stateToProto(j.state),
    partitions: j.partitions,
    submittedAtMs: big(j.submittedAt),
    startedAtMs: big(j.startedAt),
    finishedAtMs: big(j.finishedAt),
    queuePosition: j.queuePosition,
    error: errorDetail(j.error, j.id),
    proofs: (j.proofs ?? []).map((p) => create(ProofOutputSchema, { proof: p.proof as unknown as JsonObject, publicSignals: p.publicSignals })),
    timingsMs: Object.fromEntries(Object.entries(j.timings).filter(([, v]) => v !== undefined)) as Record<string, number>,
    device: j.device ?? '',
  });
}

export function eventToProto(e: JobEvent): PbJobEvent {
  if (e.type === 'state') {
    return create(JobEventSchema, { jobId: e.jobId, atMs: big(e.at), event: { case: 'state', value: stateToProto(e.state) }, error: errorDetail(e.error, e.jobId) });
  }
  const phase = create(PhaseEventSchema, { phase: e.phase, partition: e.partition, ms: e.ms, bytes: big(e.bytes) });
  return create(JobEventSchema, { jobId: e.jobId, atMs: big(e.at), event: { case: 'phase', value: phase } });
}

export function keyToProto(k: KeyInfo): Key {
  return create(KeySchema, {
    id: k.id, path: k.path, curve: k.curve, nVars: k.nVars, nPublic: k.nPublic, domainSize: k.domainSize, bytes: big(k.bytes),
    residency: k.residency, users: k.users, loadedAtMs: big(k.loadedAt), lastUsedAtMs: big(k.lastUsedAt),
  });
}

export function statusToProto(s: EngineStatus, extra: { version: string; journal: Record<string, number>; daemonId?: string; fleet?: FleetMember[]; intake?: IntakeStats }): GetStatusResponse {
  const use = (id: string, b: { limit: number; used: number; waiters?: number }) => ({ id, limit: big(b.limit), used: big(b.used), waiters: b.waiters ?? 0 });
  const device = (d: { id: string; name: string; memoryTotal: number; memoryFree: number }) => ({ id: d.id, name: d.name, memoryTotal: big(d.memoryTotal), memoryFree: big(d.memoryFree) });
  const fleet = (extra.fleet ?? []).map((m) => ({
    id: m.id, address: m.address, backend: m.backend, devices: m.devices.map(device), keys: m.keys, running: m.running,
    budget: { host: use('host', m.budget.host), pinned: use('pinned', m.budget.pinned), gpu: m.budget.gpu.map((g) => use(g.id, g)) },
    startedAtMs: big(m.startedAt), heartbeatAtMs: big(m.heartbeatAt), heartbeatAgeMs: big(Math.max(0, m.heartbeatAgeMs)),
  }));
  return create(GetStatusResponseSchema, {
    backend: s.backend,
    uptimeMs: big(s.uptimeMs),
    devices: s.devices.map((d) => ({ id: d.id, name: d.name, memoryTotal: big(d.memoryTotal), memoryFree: big(d.memoryFree), currentJob: d.currentJob ?? '', utilisation: d.utilisation ?? undefined, kernelMs: d.kernelMs ?? undefined, unhealthyReason: d.healthy ? '' : (d.unhealthyReason || 'unhealthy') })),
    keys: s.keys.map(keyToProto),
    queues: { ...s.queues },
    running: s.running,
    budget: { host: use('host', s.budget.host), pinned: use('pinned', s.budget.pinned), gpu: s.budget.gpu.map((g) => use(g.id, g)) },
    pinnedPool: {
      ...s.pinnedPool, bytes: big(s.pinnedPool.bytes), allocations: big(s.pinnedPool.allocations), allocationsAfterWarmup: big(s.pinnedPool.allocationsAfterWarmup),
      targetBytes: big(s.pinnedPool.targetBytes), pathAllocations: big(s.pinnedPool.pathAllocations),
    },
    totals: Object.fromEntries(Object.entries(s.totals).map(([k, v]) => [k, big(v)])),
    draining: s.draining,
    paused: s.paused,
    version: extra.version,
    journal: extra.journal,
    daemonId: extra.daemonId ?? '',
    fleet,
    ...(s.witness ? { witness: { ...s.witness, done: big(s.witness.done), failed: big(s.witness.failed) } } : {}),
    intake: { mainThreadBusyMs: performance.eventLoopUtilization().active, processes: extra.intake?.processes ?? 0, uploads: big(extra.intake?.uploads ?? 0), bytes: big(extra.intake?.bytes ?? 0) },
  });
}
