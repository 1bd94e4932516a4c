// The ProvingService handlers: proto in, engine/JobService calls, proto out. Every error leaves as
// a ConnectError built by status-map.ts, so the gRPC status, the HTTP status and the E_ code agree.
import path from 'node:path';
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import { InputError } from '../../errors.js';
import type { KeyInfo, ProvingEngine } from '../../engine/api.js';
import { checkKeyId } from '../../engine/key-ref.js';
import type { Logger } from '../../log.js';
import {
  EvictKeyResponseSchema, GetMetricsResponseSchema, GetTraceResponseSchema, JobReplySchema, ListKeysResponseSchema, ProvingService, WitnessUploadSchema, type GetStatusResponse, type SubmitProofRequest,
} from '../../rpc/gen/cuzk/v1/cuzk_pb.js';
import type { ServeConfig } from '../startup/config.js';
import { eventToProto, jobRequestFromProto, jobToProto, keyToProto, statusToProto } from './convert.js';
import type { DashboardAssets } from './dashboard/assets.js';
import { checkConfined } from '../intake/file-access.js';
import { loadUploadedKey } from './key-upload.js';
import type { JobService } from '../jobs/job-service.js';
import type { JobStore } from '../journal/job-store.js';
import { toConnectError } from './status-map.js';
import type { WitnessIntake } from '../intake/witness-intake.js';
import type { IntakeStats } from './intake-wire.js';

export interface RouteContext {
  cfg: ServeConfig;
  engine: ProvingEngine;
  jobs: JobService;
  intake: WitnessIntake;
  store: JobStore;
  log: Logger;
  version: string;
  /** Prometheus text: the engine's metrics and the journal's (GET /metrics serves the same). */
  metrics: () => Promise<string>;
  /** The dashboard's page and scripts, read at start. */
  dashboardAssets: DashboardAssets;
  /** The listener's intake processes (http.ts sets it once they exist). */
  intakeStats?: () => IntakeStats;
}

async function guarded<T>(fn: () => Promise<T>, jobId?: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toConnectError(err, jobId);
  }
}

function requireId(id: string, what: string): string {
  if (!id) throw new InputError('E_INVALID_ARG', `${what} is required`);
  return id;
}

async function loadKey(c: RouteContext, source: { case: 'path'; value: string } | { case: 'zkey'; value: Uint8Array } | { case: undefined; value?: undefined }, id: string): Promise<KeyInfo> {
  // an id that looks like a path is only ever the key's own path as written: the engine would
  // otherwise resolve the client's path (outside the key dirs, maybe) to compare files
  if (id) await checkKeyId(id, source.case === 'path' ? source.value : '', async (a, b) => b !== '' && path.resolve(a) === path.resolve(b));
  if (source.case === 'path') {
    const real = (await checkConfined(source.value, c.cfg.keyDirs, 'key')).path;
    // the id defaults to the path as the client wrote it (absolute); the engine opens the real path
    const info = await c.engine.loadKey(real, { id: id || path.resolve(source.value) });
    await c.store.putKey(info.id, info.path);
    return info;
  }
  if (source.case !== 'zkey') throw new InputError('E_INVALID_ARG', 'LoadKey needs path or zkey (the .zkey bytes)');
  return loadUploadedKey(c, [source.value], source.value.length, id);
}

/** GetStatus's answer: the engine's status with the daemon's version and journal counts (the
 * dashboard shows the same message). */
export async function statusMessage(c: RouteContext): Promise<GetStatusResponse> {
  return statusToProto(c.engine.status(), { version: c.version, journal: await c.store.counts(), daemonId: c.jobs.fleet?.id, fleet: await c.jobs.fleet?.members(), intake: c.intakeStats?.() });
}

export function provingService(c: RouteContext): ServiceImpl<typeof ProvingService> {
  const submit = async (m: SubmitProofRequest | undefined) => {
    if (!m) throw new InputError('E_INVALID_ARG', 'job is required');
    return c.jobs.submit(jobRequestFromProto(m));
  };
  const status = () => statusMessage(c);
  return {
    submitProof: (m) => guarded(async () => {
      const r = await submit(m);
      return create(JobReplySchema, { job: jobToProto(r.job), deduplicated: r.deduplicated });
    }),
    awaitProof: (m) => guarded(async () => create(JobReplySchema, { job: jobToProto(await c.jobs.await(requireId(m.jobId, 'job_id'), m.timeoutMs)) }), m.jobId),
    prove: (m) => guarded(async () => {
      const r = await submit(m.job);
      const job = await c.jobs.await(r.job.id, m.timeoutMs);
      return create(JobReplySchema, { job: jobToProto(job), deduplicated: r.deduplicated });
    }),
    cancelProof: (m) => guarded(async () => create(JobReplySchema, { job: jobToProto(await c.jobs.cancel(requireId(m.jobId, 'job_id'))) }), m.jobId),
    getStatus: () => guarded(status),
    getMetrics: () => guarded(async () => create(GetMetricsResponseSchema, { text: await c.metrics() })),
    getTrace: (m) => guarded(async () => create(GetTraceResponseSchema, { traceJson: Buffer.from(c.engine.trace(m.seconds)) })),
    loadKey: (m) => guarded(async () => {
      const info = await loadKey(c, m.source, m.id);
      c.log.info({ keyId: info.id, path: info.path, bytes: info.bytes }, 'key loaded');
      return keyToProto(info);
    }),
    evictKey: (m) => guarded(async () => {
      c.engine.evictKey(requireId(m.id, 'id'));
      await c.store.deleteKey(m.id);
      c.log.info({ keyId: m.id }, 'key evicted');
      return create(EvictKeyResponseSchema, {});
    }),
    uploadWitness: (chunks) => guarded(async () => {
      const it = chunks[Symbol.asyncIterator]();
      const first = await it.next();
      if (first.done) throw new InputError('E_INVALID_ARG', 'UploadWitness: no chunk arrived (the first names key and size)');
      const data = async function* () {
        yield first.value.data;
        for (let n = await it.next(); !n.done; n = await it.next()) yield n.value.data;
      };
      const size = first.value.size > BigInt(Number.MAX_SAFE_INTEGER) ? -1 : Number(first.value.size);
      // over gRPC upload-grpc.ts answers first; here the Connect protocol's streaming form. Each chunk's
      // bytes lie alone in the buffer Connect decoded its message from: moved, not copied
      const up = await c.intake.upload(first.value.key, size, data(), 'uploaded witness', true);
      c.log.debug({ witnessId: up.id, bytes: up.file.size }, 'witness uploaded');
      return create(WitnessUploadSchema, { witnessId: up.id, size: BigInt(up.file.size), sha256: up.file.sha256 });
    }),
    pauseQueue: () => guarded(async () => {
      c.engine.pause();
      return status();
    }),
    resumeQueue: () => guarded(async () => {
      c.engine.resume();
      return status();
    }),
    listKeys: () => guarded(async () => create(ListKeysResponseSchema, { keys: c.engine.listKeys().map(keyToProto) })),
    async *watchJob(m, ctx) {
      try {
        for await (const e of c.jobs.watch(requireId(m.jobId, 'job_id'), ctx.signal)) yield eventToProto(e);
      } catch (err) {
        throw toConnectError(err, m.jobId);
      }
    },
  };
}
