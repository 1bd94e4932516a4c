// The engine's public contract: what `createEngine()` returns and what the server, the SDK and
// `cuzk bench` program against. Types only; engine.ts implements it. Everything here is plain data
// (JSON-safe except the witness bytes), so the server can map it to gRPC/HTTP messages one to one.
import type { ProofJson } from '../formats/proof-json.js';
import type { WtnsLayout } from '../formats/wtns.js';
import type { ZkeyHeader } from '../formats/zkey.js';
import type { Logger } from '../log.js';

export const PRIORITIES = ['critical', 'high', 'normal', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const TERMINAL_STATES = ['completed', 'failed', 'cancelled', 'expired'] as const;
export type JobState = 'queued' | 'running' | (typeof TERMINAL_STATES)[number];

/** One proof request. A job with several witnesses is a multi-proof job: its partitions succeed or fail together. */
export interface JobRequest {
  /** A key id from loadKey(), or a .zkey path (loaded on first use, with the path as its id). */
  key: string;
  /** Witnesses as .wtns file bytes (one per partition). Exactly one of witnesses / witnessFiles / inputs. */
  witnesses?: Uint8Array[];
  /** Witnesses as .wtns files, read straight into the engine's pinned buffers when their proof
   * starts (the daemon's spool, or files the caller keeps unchanged until the job ends). */
  witnessFiles?: string[];
  /** Circuit inputs (one object per partition), witness computed by `generator` off the event loop. */
  inputs?: Record<string, unknown>[];
  /** The witness generator, required with `inputs`: circom's .wasm or a native generator built by
   * `cuzk witness build` (run as a child process). */
  generator?: string;
  /** Alias of `generator` (its name before native generators). */
  wasm?: string;
  priority?: Priority;
  /** Idempotency: the same id with the same content returns the same job; different content is rejected. */
  requestId?: string;
  /** The job expires (state 'expired') if not finished this many ms after submission. */
  deadlineMs?: number;
  /** Stable job id to use (a journal replaying jobs after a restart); default a fresh UUID. */
  id?: string;
}

/** What a witness must match: the key's scalar field and wire count (a .zkey header, KeyInfo). */
export type KeyShape = Pick<ZkeyHeader, 'curve' | 'r' | 'nVars'>;

/** A request as the engine checked it, frozen: `key` is the resolved key's id, `priority` defaulted,
 * a deadline of 0 dropped. Submit it as it is; a copy is checked again. */
export interface CheckedJob extends Readonly<JobRequest> {
  readonly key: string;
  readonly priority: Priority;
  readonly partitions: number;
}

/** What a caller has already read of a job, so that the check does not read it again (the daemon's
 * intake reads every witness's header as it stores it). Trusted as given: pass only what was read
 * from these very files (the witness files' sizes are still checked when their values are read). */
export interface KnownParts {
  /** The key's shape from its .zkey header, used while the key is not loaded. */
  key?: KeyShape;
  /** One layout per witness, in order (wtnsHeaderFromPrefix, WtnsFile.layout): those given are not
   * opened at check, nor parsed when their proofs start; an undefined entry's witness is read at check. */
  witnesses?: readonly (WtnsLayout | undefined)[];
}

/** Milliseconds per phase, summed over a job's partitions (spans.ts names the phases). */
export type PhaseTimings = Partial<Record<Phase, number>>;
export const PHASES = ['queue', 'witness', 'synthesis', 'h2d', 'ntt', 'msm', 'd2h', 'finalize', 'verify'] as const;
export type Phase = (typeof PHASES)[number];

export interface ProofOutput {
  proof: ProofJson;
  /** Decimal strings, as snarkjs's public.json. */
  publicSignals: string[];
}

export interface JobInfo {
  id: string;
  requestId?: string;
  key: string;
  priority: Priority;
  state: JobState;
  partitions: number;
  /** Epoch ms. */
  submittedAt: number;
  startedAt?: number;
  finishedAt?: number;
  /** Position in its priority queue while queued (0 = next). */
  queuePosition?: number;
  error?: { code: string; message: string };
  /** Present when completed: one entry per partition, in submission order. */
  proofs?: ProofOutput[];
  timings: PhaseTimings;
  /** Where the proofs ran: 'cpu' or 'gpu:N'. */
  device?: string;
}

export type JobEvent =
  | { type: 'state'; jobId: string; at: number; state: JobState; error?: { code: string; message: string } }
  | { type: 'phase'; jobId: string; at: number; phase: Phase; partition: number; ms: number; bytes?: number };

/** Where a key is: on a GPU with every set resident ('gpu'), on a GPU with some sets streamed from its
 * page-locked host memory per proof ('gpu-streamed', key-placement.ts), or in host memory only. */
export type Residency = 'gpu' | 'gpu-streamed' | 'pinned' | 'host';

/** A key's placement on one GPU (key-placement.ts). */
export interface KeyDevicePlacement {
  /** 'gpu:N' */
  device: string;
  mode: 'resident' | 'streamed';
  /** The sets read from host memory per proof ('a', 'b1', 'b2', 'c', 'h', 'coefs'). */
  streamed: string[];
  /** Device bytes uploaded once, of the key's keyBytes; staging rings' bytes; points per chunk (0:
   * whole-set MSMs); a proof's chunks (MSMs' and synthesis's) and its device scratch bytes. */
  residentBytes: number;
  keyBytes: number;
  stagingBytes: number;
  chunkPoints: number;
  chunks: number;
  scratchBytes: number;
}

export interface KeyInfo {
  id: string;
  path: string;
  curve: 'bn128' | 'bls12381';
  nVars: number;
  nPublic: number;
  domainSize: number;
  /** Host bytes the key holds (its points and coefficients). */
  bytes: number;
  residency: Residency;
  /** Its placement on each GPU it is on (absent in host memory only). */
  placements?: KeyDevicePlacement[];
  /** Jobs queued or running with this key. */
  users: number;
  loadedAt: number;
  lastUsedAt: number;
}

export interface DeviceStatus {
  /** 'cpu' or 'gpu:N' */
  id: string;
  name: string;
  /** Bytes: a GPU's memory (free as the driver reports it); for 'cpu', the host memory budget and what is not reserved in it. */
  memoryTotal: number;
  memoryFree: number;
  currentJob?: string;
  /** Fraction of wall time kernels were running since start (from device events); null on the CPU. */
  utilisation: number | null;
  /** Kernel ms since start (device events), cumulative; null on the CPU. */
  kernelMs: number | null;
  /** False once a proof on it failed with E_DEVICE_LOST: it gets no more work (for the life of the engine). */
  healthy: boolean;
  /** Why it was marked unhealthy (that error's message); absent while healthy. */
  unhealthyReason?: string;
}

export interface BudgetStatus {
  host: { limit: number; used: number; waiters: number };
  pinned: { limit: number; used: number; waiters: number };
  gpu: { id: string; limit: number; used: number; waiters: number }[];
}

export interface PinnedPoolStatus {
  enabled: boolean;
  buffers: number;
  bytes: number;
  inUse: number;
  /** Native pinned allocations ever made, and those made after warm-up. */
  allocations: number;
  allocationsAfterWarmup: number;
  /** The size background growth fills the pool to (EngineConfig.pinnedPool.targetBytes; 0 = on demand only). */
  targetBytes: number;
  /** A chunk is being added now (growState 'growing'). */
  growing: boolean;
  /** off (no target) | idle (not started) | growing | full (at the target) | blocked (the budget has no room now; retried). */
  growState: 'off' | 'idle' | 'growing' | 'full' | 'blocked';
  /** Allocations made on a checkout's path (a proof waited for them): none once the pool has room. */
  pathAllocations: number;
}

import type { WitnessOpener } from './witness-file.js';
import type { WitnessStats } from './witness-pool.js';

export interface EngineStatus {
  backend: 'cpu' | 'cuda';
  uptimeMs: number;
  devices: DeviceStatus[];
  keys: KeyInfo[];
  queues: Record<Priority, number>;
  running: number;
  budget: BudgetStatus;
  pinnedPool: PinnedPoolStatus;
  totals: { submitted: number; completed: number; failed: number; cancelled: number; expired: number; proofs: number };
  draining: boolean;
  /** pause() holds queued jobs until resume(). */
  paused: boolean;
  /** Witness generation for jobs with inputs, its own stage: waiting, computing, done, mean time. */
  witness?: WitnessStats;
}

/** The longest window trace() answers: the span ring is bounded, so an older window may be partial anyway. */
export const TRACE_MAX_SECONDS = 600;

export interface ProvingEngine {
  /** Validates a request once (fields, key, each witness's header against the key) without enqueuing
   * it, for a caller that has work to do between the check and submit (the daemon journals the job).
   * `known`: what the caller already read (the daemon's witness headers), not read again. Throws as
   * submit does, except E_OVERLOADED; E_FORMAT for a witness that is not a .wtns or not of the key. */
  check(req: JobRequest, known?: KnownParts): CheckedJob;
  /** Validates (a CheckedJob from this engine's check() is not validated again) and enqueues
   * (synchronously: a returned job is accepted). Throws CuzkError: E_INVALID_ARG (bad request, with
   * what is wrong), E_NOT_FOUND (unknown key), E_FORMAT (a witness not of the key), E_OVERLOADED (queue
   * full: `details` = { queued: Record<Priority, number>, maxQueue: number }; or draining),
   * E_INVALID_ARG for a requestId reused with other content ("same content" = requestDigest() in
   * scheduler.ts: key and witnesses or inputs; priority and deadline do not count). `known`: as
   * check()'s, for a request not checked yet. */
  submit(req: JobRequest | CheckedJob, known?: KnownParts): JobInfo;
  /** Resolves with the job when it is terminal, or with its current (non-terminal) state after timeoutMs. */
  await(id: string, timeoutMs?: number): Promise<JobInfo>;
  get(id: string): JobInfo | undefined;
  /** Cancels a queued job at once, a running one at its next phase boundary. Terminal jobs are returned unchanged. */
  cancel(id: string): JobInfo;
  /** Holds the queue (BullMQ's pause): jobs are still accepted and queued, cancels and deadlines still
   * apply, running jobs finish, but none starts until resume(). For maintenance, and for tests that
   * need a job to stay queued by construction rather than by the machine's speed. */
  pause(): void;
  resume(): void;
  /** Progress events of one job; returns the unsubscribe function. Terminal jobs get their final state event at once. */
  subscribe(id: string, fn: (e: JobEvent) => void): () => void;
  loadKey(path: string, opts?: { id?: string }): Promise<KeyInfo>;
  /** Starts growing the pinned pool to its configured size in the background (EngineConfig.pinnedPool);
   * resolves when its first chunk (at least one proof of the largest loaded key) is in, or at once
   * without a target. Call it after loading the keys the daemon serves. */
  growPool(): Promise<void>;
  /** Frees an idle key; throws E_INVALID_ARG while jobs use it. */
  evictKey(id: string): void;
  listKeys(): KeyInfo[];
  status(): EngineStatus;
  /** Prometheus text exposition of the engine's metrics. */
  metricsText(): Promise<string>;
  /** Chrome/Perfetto trace JSON of the spans that started in the last `seconds` (an integer
   * 1..TRACE_MAX_SECONDS, else E_INVALID_ARG), from the engine's bounded ring of recent spans. */
  trace(seconds: number): string;
  /** Stops intake (submit throws E_OVERLOADED 'draining'), waits for running jobs up to deadlineMs;
   * returns the jobs not finished: those still queued (they stay queued: await() on them resolves only
   * at close() or its timeout) and those running past the deadline, which are then stopped and end
   * 'cancelled' like a user cancel (a journal replays every job in `unfinished`). */
  drain(deadlineMs: number): Promise<{ unfinished: JobInfo[] }>;
  /** Cancels everything, frees keys, pinned and GPU memory. */
  close(): Promise<void>;
}

/** createEngine() options; every field has a default (detected from the machine where it can be). */
export interface EngineConfig {
  /** 'auto' (CUDA when a GPU is present), 'cpu', or 'cuda' (fail if no GPU). Default 'auto'. */
  backend?: 'auto' | 'cpu' | 'cuda';
  /** CPU core threads (0 = all cores). Default 0. */
  threads?: number;
  /** Byte limits of the one memory budget. Defaults: host 75% of RAM, pinned 50% of RAM, each GPU 90% of its memory. */
  memory?: { host?: number; pinned?: number; gpu?: number };
  /** How keys are placed on GPUs (key-placement.ts): `keyResidency` 'auto' (default: resident when the
   * key and a proof's scratch fit the GPU's budget, else its largest-working sets resident and the rest
   * streamed from page-locked host memory per proof, else the CPU core), 'resident' (never streamed),
   * 'streamed' (every set streamed: for tests and benchmarks); `streamChunkPoints` / `streamChunkRecords`
   * the chunk lengths (default from the budget). */
  gpu?: { keyResidency?: 'auto' | 'resident' | 'streamed'; streamChunkPoints?: number; streamChunkRecords?: number };
  /** Pinned pool on (default) or off (pageable heap buffers, to measure the difference). */
  pinned?: boolean;
  /** The pinned pool's size, grown in the background by growPool() in chunks of `chunkBytes` (at
   * least one proof's buffers each), within the pinned budget. Default 0: buffers allocated on demand.
   * `retryMs`: how often growth the budget has no room for is tried again (default 5000). */
  pinnedPool?: { targetBytes?: number; chunkBytes?: number; retryMs?: number };
  /** Queued jobs beyond this are refused with E_OVERLOADED. Default 1024. */
  maxQueue?: number;
  /** Partitions per job beyond this are refused. Default 64. */
  maxPartitions?: number;
  /** Verify every proof before returning it (default true). */
  verify?: boolean;
  /** Idle keys are evicted after this many ms (0 = only under memory pressure). Default 0. */
  keyIdleMs?: number;
  /** Witness generation for jobs with `inputs` (witness-pool.ts): `slots` witnesses at once (default
   * cores − 1 with a GPU, cores / 2 on the CPU core alone), of which `wasmWorkers` wasm (default
   * `slots`); per-witness `timeoutMs` (default 300 000); each native generator process's address-space
   * limit `maxAddressSpaceBytes` (default 16 GiB); `dir` where native witnesses are written (the
   * daemon's spool; default a temporary folder). */
  witness?: { slots?: number; wasmWorkers?: number; timeoutMs?: number; maxAddressSpaceBytes?: number; dir?: string };
  /** Write a Chrome/Perfetto trace of every span to this file on close(). */
  tracePath?: string;
  /** Opens a witness file (`witnessFiles`) when its proof starts; the engine owns the handle it
   * returns, a regular file or it is refused. Default: open non-blocking (witness-file.ts). The
   * daemon's confines the file to its directories at that moment, whatever changed since submit. */
  openWitness?: WitnessOpener;
  /** Test-only: fixed proof randomisers (proofs are then not zero-knowledge). */
  testRandomness?: { r: bigint; s: bigint };
  /** Test-only: awaited by every partition after phase 1, before its device phase, so a test can hold
   * a job in 'running' by construction (a stop aborts `signal`; the partition then ends cancelled). */
  testHooks?: {
    beforeDevicePhase?: (at: { jobId: string; partition: number }, signal: AbortSignal) => Promise<void>;
    /** Awaited before each chunk the pool's background growth reserves, so a test sees growth step by step. */
    beforePoolChunk?: (chunk: { index: number; bytes: number }) => Promise<void>;
    /** On a machine without a GPU, this many CPU-core lanes beside the first ('cpu:1', 'cpu:2', ...),
     * so that the multi-lane paths (a lost lane's work moving to another) run without a GPU. Default 0. */
    extraCpuLanes?: number;
  };
  /** Where the engine and the native loader log (a pino logger; its level is theirs). Default: the process's `log` (src/log.ts). */
  logger?: Logger;
}
