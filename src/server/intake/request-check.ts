// Validation of a job request before it reaches the journal or the engine (TGI: validate before the
// queue), once, into the one type the rest of the daemon uses (ValidJob): the shape, the sizes
// against the configured limits, normalised fields (deadline 0 = none, priority defaulted), and the
// paths it names, confined to the configured directories. Errors are E_INVALID_ARG naming the field
// and the limit (E_NOT_FOUND for a missing file). Witness contents are checked as they are stored
// (witness-intake.ts: header against the key); the engine checks the values.
import { InputError } from '../../errors.js';
import { PRIORITIES, type JobRequest, type Priority } from '../../engine/api.js';
import type { ServeConfig } from '../startup/config.js';
import { looksLikeKeyPath } from '../../engine/key-ref.js';
import { checkConfined } from './file-access.js';

/** A job as it arrives: the engine's request without its id, plus uploads named by witness id. */
export type JobSubmission = Omit<JobRequest, 'id'> & { witnessIds?: string[] };

export type WitnessSource =
  | { kind: 'bytes'; witnesses: Uint8Array[] }
  | { kind: 'uploads'; ids: string[] }
  | { kind: 'files'; paths: string[] }
  | { kind: 'inputs'; inputs: Record<string, unknown>[]; wasm: string };

export interface ValidJob {
  key: string;
  source: WitnessSource;
  partitions: number;
  priority: Priority;
  requestId?: string;
  /** Positive, or absent (0 on the wire means none). */
  deadlineMs?: number;
}

const WTNS_MAGIC = [0x77, 0x74, 0x6e, 0x73]; // "wtns"
const bad = (m: string) => new InputError('E_INVALID_ARG', m);

function strings(v: unknown, field: string, max: number): string[] {
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string' && s.length > 0 && s.length <= max)) throw bad(`${field}: a list of non-empty strings of at most ${max} characters`);
  return v;
}

function source(req: JobSubmission, cfg: Pick<ServeConfig, 'maxJobBytes'>): WitnessSource {
  const given = (['witnesses', 'witnessIds', 'witnessFiles', 'inputs'] as const).filter((f) => (req[f]?.length ?? 0) > 0);
  if (given.length !== 1) throw bad(`exactly one of witnesses, witness_ids, witness_files or inputs is required (got ${given.length ? given.join(', ') : 'none'})`);
  if (req.witnesses?.length) {
    let bytes = 0;
    req.witnesses.forEach((w, i) => {
      if (!(w instanceof Uint8Array) || w.length < 12 || WTNS_MAGIC.some((b, j) => w[j] !== b)) throw bad(`witnesses[${i}]: not a .wtns file (${w?.length ?? 0} bytes, no "wtns" magic)`);
      bytes += w.length;
    });
    if (bytes > cfg.maxJobBytes) throw bad(`job is ${bytes} bytes, more than limits.max_job_bytes ${cfg.maxJobBytes}`);
    return { kind: 'bytes', witnesses: req.witnesses };
  }
  if (req.witnessIds?.length) return { kind: 'uploads', ids: strings(req.witnessIds, 'witness_ids', 128) };
  if (req.witnessFiles?.length) return { kind: 'files', paths: strings(req.witnessFiles, 'witness_files', 4096) };
  const inputs = req.inputs!;
  // `generator` (or its alias `wasm`): journaled as the source's `wasm`, either kind of generator
  const generator = req.generator || req.wasm;
  if (!generator) throw bad('inputs need generator: the path of the circuit witness generator on the server (.wasm or native)');
  inputs.forEach((v, k) => { if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(`inputs[${k}] must be a JSON object`); });
  const bytes = JSON.stringify(inputs).length;
  if (bytes > cfg.maxJobBytes) throw bad(`job is ${bytes} bytes of inputs, more than limits.max_job_bytes ${cfg.maxJobBytes}`);
  return { kind: 'inputs', inputs, wasm: generator };
}

export function checkJobRequest(req: JobSubmission, cfg: Pick<ServeConfig, 'maxJobBytes' | 'maxPartitions'>): ValidJob {
  if (typeof req.key !== 'string' || req.key.trim() === '') throw bad('key is required: a key id from LoadKey or a .zkey path on the server');
  if (req.key.length > 4096) throw bad(`key is ${req.key.length} characters long (at most 4096)`);
  const src = source(req, cfg);
  const partitions = src.kind === 'bytes' ? src.witnesses.length : src.kind === 'uploads' ? src.ids.length : src.kind === 'files' ? src.paths.length : src.inputs.length;
  if (partitions > cfg.maxPartitions) throw bad(`${partitions} partitions is more than engine.max_partitions ${cfg.maxPartitions}`);
  if (req.priority !== undefined && !PRIORITIES.includes(req.priority)) throw bad(`priority must be one of ${PRIORITIES.join(', ')}`);
  if (req.requestId !== undefined && (typeof req.requestId !== 'string' || req.requestId.length === 0 || req.requestId.length > 256)) throw bad('request_id must be 1..256 characters');
  if (req.deadlineMs !== undefined && (!Number.isSafeInteger(req.deadlineMs) || req.deadlineMs < 0)) throw bad('deadline_ms must be a non-negative integer');
  const job: ValidJob = { key: req.key, source: src, partitions, priority: req.priority ?? 'normal' };
  if (req.requestId !== undefined) job.requestId = req.requestId;
  if (req.deadlineMs) job.deadlineMs = req.deadlineMs;
  return job;
}

/** A key that is not a loaded key id is a path when it looks like one (engine/key-ref.ts, the one rule). */
export { looksLikeKeyPath };

/** A key that is a path (not a loaded key id), as its real path inside files.key_dirs. */
export async function confineKey(key: string, cfg: Pick<ServeConfig, 'keyDirs'>, isKeyId: (key: string) => boolean): Promise<string> {
  return !isKeyId(key) && looksLikeKeyPath(key) ? (await checkConfined(key, cfg.keyDirs, 'key')).path : key;
}

/** A witness generator path (.wasm or native: native code, run only from where the operator put it),
 * as its real path inside files.input_dirs or files.key_dirs. */
export async function confineWasm(wasm: string, cfg: Pick<ServeConfig, 'inputDirs'> & Partial<Pick<ServeConfig, 'keyDirs'>>): Promise<string> {
  return (await checkConfined(wasm, [...cfg.inputDirs, ...(cfg.keyDirs ?? [])], 'generator')).path;
}

/**
 * The job with its key (when a path, not a loaded key id) and wasm replaced by their real paths,
 * each checked to be a regular file inside files.key_dirs / files.input_dirs; the engine then opens
 * exactly what was checked. Witness files are confined where they are opened (witness-intake.ts).
 */
export async function confineJobPaths(job: ValidJob, cfg: Pick<ServeConfig, 'keyDirs' | 'inputDirs'>, isKeyId: (key: string) => boolean): Promise<ValidJob> {
  const out = { ...job };
  out.key = await confineKey(job.key, cfg, isKeyId);
  if (job.source.kind === 'inputs') out.source = { ...job.source, wasm: await confineWasm(job.source.wasm, cfg) };
  return out;
}

/** A journaled job's key and wasm, confined again (their real paths replace them): the directories,
 * and the files in them, may have changed since it was accepted. */
export async function confineStored(s: { key: string; request?: { wasm?: string } }, cfg: Pick<ServeConfig, 'keyDirs' | 'inputDirs'>, isKeyId: (key: string) => boolean): Promise<void> {
  s.key = await confineKey(s.key, cfg, isKeyId);
  if (s.request?.wasm) s.request.wasm = await confineWasm(s.request.wasm, cfg);
}
