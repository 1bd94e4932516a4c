// Proto messages as the engine contract's plain values (src/engine/api.ts types, type-only), and
// RPC failures as CuzkErrors with their E_ code: the header the daemon sets, else the ErrorDetail,
// else the gRPC status (transport failures become E_UNAVAILABLE: the daemon was not reached).
import { Code, ConnectError } from '@connectrpc/connect';
import { CuzkError, errorForCode, ERROR_CODES, type ErrorCode } from '../errors.js';
import type { EngineStatus, JobEvent, JobInfo, KeyInfo, Phase, ProofOutput } from '../engine/api.js';
import type { ProofJson } from '../formats/proof-json.js';
import { ErrorDetailSchema, type GetStatusResponse, type Job, type JobEvent as PbJobEvent, type Key } from '../rpc/gen/cuzk/v1/cuzk_pb.js';
import { priorityFromProto, stateFromProto } from '../rpc/enums.js';

const num = (b: bigint): number => Number(b);
type GrowState = EngineStatus['pinnedPool']['growState'];
const GROW_STATES: readonly GrowState[] = ['off', 'idle', 'growing', 'full', 'blocked'];
// a daemon older than the field sends '': no growth
const growState = (s: string | undefined): GrowState => GROW_STATES.find((g) => g === s) ?? 'off';
const opt = (b: bigint): number | undefined => (b > 0n ? Number(b) : undefined);

export function jobFromProto(j: Job): JobInfo {
  const proofs: ProofOutput[] = j.proofs.map((p) => ({ proof: (p.proof ?? {}) as unknown as ProofJson, publicSignals: p.publicSignals }));
  const info: JobInfo = {
    id: j.id,
    key: j.key,
    priority: priorityFromProto(j.priority) ?? 'normal',
    state: stateFromProto(j.state),
    partitions: j.partitions,
    submittedAt: num(j.submittedAtMs),
    timings: j.timingsMs as Partial<Record<Phase, number>>,
  };
  if (j.requestId) info.requestId = j.requestId;
  if (j.startedAtMs) info.startedAt = num(j.startedAtMs);
  if (j.finishedAtMs) info.finishedAt = num(j.finishedAtMs);
  if (j.queuePosition !== undefined) info.queuePosition = j.queuePosition;
  if (j.error) info.error = { code: j.error.code, message: j.error.message };
  if (proofs.length) info.proofs = proofs;
  if (j.device) info.device = j.device;
  return info;
}

export function eventFromProto(e: PbJobEvent): JobEvent {
  if (e.event.case === 'phase') {
    const p = e.event.value;
    return { type: 'phase', jobId: e.jobId, at: num(e.atMs), phase: p.phase as Phase, partition: p.partition, ms: p.ms, bytes: opt(p.bytes) };
  }
  const ev: JobEvent = { type: 'state', jobId: e.jobId, at: num(e.atMs), state: stateFromProto(e.event.case === 'state' ? e.event.value : 0) };
  if (e.error) ev.error = { code: e.error.code, message: e.error.message };
  return ev;
}

export function keyFromProto(k: Key): KeyInfo {
  return {
    id: k.id, path: k.path, curve: k.curve as KeyInfo['curve'], nVars: k.nVars, nPublic: k.nPublic, domainSize: k.domainSize, bytes: num(k.bytes),
    residency: k.residency as KeyInfo['residency'], users: k.users, loadedAt: num(k.loadedAtMs), lastUsedAt: num(k.lastUsedAtMs),
  };
}

/** A daemon sharing a PostgreSQL queue, as its last heartbeat described it. */
export interface FleetDaemonStatus {
  id: string;
  address: string;
  backend: string;
  devices: { id: string; name: string; memoryTotal: number; memoryFree: number }[];
  keys: string[];
  budget: { host: { limit: number; used: number }; pinned: { limit: number; used: number }; gpu: { id: string; limit: number; used: number }[] };
  running: string[];
  startedAt: number;
  heartbeatAt: number;
  heartbeatAgeMs: number;
}

/** `daemonId` and `fleet` only with a PostgreSQL store (empty / [] with SQLite). */
/** GetStatus's DaemonIntake: the daemon's main-thread busy ms since start, its intake processes, and
 * the uploads and bytes they received since start. */
export interface DaemonIntakeStatus {
  mainThreadBusyMs: number;
  processes: number;
  uploads: number;
  bytes: number;
}

export type DaemonStatus = EngineStatus & { version: string; journal: Record<string, number>; daemonId: string; fleet: FleetDaemonStatus[]; intake?: DaemonIntakeStatus };

export function statusFromProto(s: GetStatusResponse): DaemonStatus {
  const use = (b: { limit: bigint; used: bigint; waiters: number } | undefined) => ({ limit: num(b?.limit ?? 0n), used: num(b?.used ?? 0n), waiters: b?.waiters ?? 0 });
  const t = s.totals;
  const pp = s.pinnedPool;
  return {
    backend: s.backend as EngineStatus['backend'],
    uptimeMs: num(s.uptimeMs),
    devices: s.devices.map((d) => ({ id: d.id, name: d.name, memoryTotal: num(d.memoryTotal), memoryFree: num(d.memoryFree), currentJob: d.currentJob || undefined, utilisation: d.utilisation ?? null, kernelMs: d.kernelMs ?? null, healthy: !d.unhealthyReason, ...(d.unhealthyReason ? { unhealthyReason: d.unhealthyReason } : {}) })),
    keys: s.keys.map(keyFromProto),
    queues: { critical: s.queues.critical ?? 0, high: s.queues.high ?? 0, normal: s.queues.normal ?? 0, low: s.queues.low ?? 0 },
    running: s.running,
    budget: { host: use(s.budget?.host), pinned: use(s.budget?.pinned), gpu: (s.budget?.gpu ?? []).map((g) => ({ id: g.id, ...use(g) })) },
    pinnedPool: {
      enabled: pp?.enabled ?? false, buffers: pp?.buffers ?? 0, bytes: num(pp?.bytes ?? 0n), inUse: pp?.inUse ?? 0, allocations: num(pp?.allocations ?? 0n), allocationsAfterWarmup: num(pp?.allocationsAfterWarmup ?? 0n),
      targetBytes: num(pp?.targetBytes ?? 0n), growing: pp?.growing ?? false, growState: growState(pp?.growState), pathAllocations: num(pp?.pathAllocations ?? 0n),
    },
    totals: { submitted: num(t?.submitted ?? 0n), completed: num(t?.completed ?? 0n), failed: num(t?.failed ?? 0n), cancelled: num(t?.cancelled ?? 0n), expired: num(t?.expired ?? 0n), proofs: num(t?.proofs ?? 0n) },
    draining: s.draining,
    paused: s.paused,
    version: s.version,
    journal: { ...s.journal },
    daemonId: s.daemonId,
    ...(s.intake ? { intake: { mainThreadBusyMs: s.intake.mainThreadBusyMs, processes: s.intake.processes, uploads: num(s.intake.uploads), bytes: num(s.intake.bytes) } } : {}),
    ...(s.witness ? { witness: { slots: s.witness.slots, wasmWorkers: s.witness.wasmWorkers, queued: s.witness.queued, busy: s.witness.busy, done: num(s.witness.done), failed: num(s.witness.failed), totalMs: s.witness.totalMs, processes: s.witness.processes } } : {}),
    fleet: s.fleet.map((m) => ({
      id: m.id, address: m.address, backend: m.backend, keys: [...m.keys], running: [...m.running],
      devices: m.devices.map((d) => ({ id: d.id, name: d.name, memoryTotal: num(d.memoryTotal), memoryFree: num(d.memoryFree) })),
      budget: { host: use(m.budget?.host), pinned: use(m.budget?.pinned), gpu: (m.budget?.gpu ?? []).map((g) => ({ id: g.id, ...use(g) })) },
      startedAt: num(m.startedAtMs), heartbeatAt: num(m.heartbeatAtMs), heartbeatAgeMs: num(m.heartbeatAgeMs),
    })),
  };
}

const FALLBACK: Partial<Record<Code, ErrorCode>> = {
  [Code.InvalidArgument]: 'E_INVALID_ARG',
  [Code.NotFound]: 'E_NOT_FOUND',
  [Code.Unauthenticated]: 'E_UNAUTHORIZED',
  [Code.ResourceExhausted]: 'E_OVERLOADED',
  [Code.DeadlineExceeded]: 'E_TIMEOUT',
  [Code.Aborted]: 'E_CANCELLED',
};

/** The error a caller sees: CuzkError with the daemon's code, or E_UNAVAILABLE naming the address. */
export function errorFromRpc(err: unknown, address: string): CuzkError {
  if (err instanceof CuzkError) return err;
  const ce = ConnectError.from(err);
  const header = ce.metadata.get('cuzk-error-code');
  const detail = ce.findDetails(ErrorDetailSchema)[0];
  const code = [header, detail?.code].find((c): c is ErrorCode => (ERROR_CODES as readonly string[]).includes(c ?? ''));
  if (code) {
    const details = detail?.details as Record<string, unknown> | undefined;
    return errorForCode(code, detail?.message || ce.rawMessage.replace(/^E_[A-Z_]+: /, ''), { details, cause: err });
  }
  if (/SSL routines|certificate|ERR_TLS|self[- ]signed|unable to verify/i.test(ce.rawMessage)) {
    return errorForCode('E_UNAUTHORIZED', `TLS with the cuzk daemon at ${address} failed (${/SSL routines:[^:]*:([^:]+)/.exec(ce.rawMessage)?.[1] ?? ce.rawMessage}): check --tls-ca, and --tls-cert/--tls-key where the daemon wants client certificates`, { cause: err });
  }
  if (/stream closed with error code|socket hang up|ECONNRESET/.test(ce.rawMessage)) {
    return errorForCode('E_UNAVAILABLE', `the cuzk daemon at ${address} closed the connection (${ce.rawMessage}): a TLS daemon needs --tls-ca (an https:// address)`, { cause: err });
  }
  if (ce.code === Code.Unavailable || /\b(ECONNREFUSED|ENOENT|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ETIMEDOUT|EAI_AGAIN|ENOTFOUND)\b/.test(ce.rawMessage)) {
    return errorForCode('E_UNAVAILABLE', `cannot reach the cuzk daemon at ${address} (${ce.rawMessage}): is \`cuzk serve\` running there?`, { cause: err });
  }
  if (ce.code === Code.ResourceExhausted && /message size|max ?bytes/i.test(ce.rawMessage)) {
    return errorForCode('E_INVALID_ARG', `message too large: ${ce.rawMessage}`, { cause: err });
  }
  return errorForCode(FALLBACK[ce.code] ?? 'E_INTERNAL', ce.rawMessage, { cause: err });
}
