// Validation of a job request before it reaches the journal or the engine (TGI: validate before the
// queue), once, into the one type the rest of the daemon uses (ValidJob): the fields every job has,
// by the engine's rules (engine/job-check.ts: deadline 0 = none, priority defaulted, partitions), the
// sizes against the configured limits, and the paths it names, confined to the configured
// directories. Errors are E_INVALID_ARG naming the field (E_NOT_FOUND for a missing file; E_LIMIT
// naming the limit and its option for a request over one). Witness contents are checked as they are stored
// (witness-intake.ts: header against the key); the engine checks the values.
import { InputError } from '../../errors.js';
import type { JobRequest, Priority } from '../../engine/api.js';
import { checkJobFields, WIRE_NAMES } from '../../engine/job-check.js';
import type { ServeConfig } from '../startup/config.js';
import { looksLikeKeyPath, MAX_KEY_CHARS } from '../../engine/key-ref.js';
import { checkConfined } from './file-access.js';
import type { SpooledWitness } from './spool.js';

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

/**
 * The E_LIMIT for `what` of `bytes` when limits.max_job_bytes is set and it is over, else undefined.
 * 0 (the default) sets none: a witness must match its key exactly (nWitness = nVars, the header's
 * size = the file's), so the key already bounds it, and a fixed default refused big keys' witnesses
 * (256 MiB: a 2^24 witness is 512 MiB); what one message carries is limits.max_message_bytes's.
 */
export function overJobLimit(what: string, bytes: number, cfg: Pick<ServeConfig, 'maxJobBytes'>): InputError | undefined {
  if (cfg.maxJobBytes === 0 || bytes <= cfg.maxJobBytes) return undefined;
  return new InputError('E_LIMIT', `${what} is ${bytes} bytes, more than limits.max_job_bytes ${cfg.maxJobBytes} (--max-job-bytes; 0 follows the keys)`);
}

function strings(v: unknown, field: string, max: number): string[] {
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string' && s.length > 0 && s.length <= max)) throw bad(`${field}: a list of non-empty strings of at most ${max} characters`);
  return v;
}

// a repeated field of the wire is never absent, only empty: empty counts as not given
const given = <T>(list: readonly T[] | undefined): readonly T[] | undefined => (list?.length ? list : undefined);

function source(req: JobSubmission, kind: 'witnesses' | 'witness_ids' | 'witness_files' | 'inputs', cfg: Pick<ServeConfig, 'maxJobBytes'>): WitnessSource {
  if (kind === 'witnesses') {
    let bytes = 0;
    req.witnesses!.forEach((w, i) => {
      if (!(w instanceof Uint8Array) || w.length < 12 || WTNS_MAGIC.some((b, j) => w[j] !== b)) throw bad(`witnesses[${i}]: not a .wtns file (${w?.length ?? 0} bytes, no "wtns" magic)`);
      bytes += w.length;
    });
    const over = overJobLimit('the job\'s witnesses', bytes, cfg);
    if (over) throw over;
    return { kind: 'bytes', witnesses: req.witnesses! };
  }
  if (kind === 'witness_ids') return { kind: 'uploads', ids: strings(req.witnessIds, 'witness_ids', 128) };
  if (kind === 'witness_files') return { kind: 'files', paths: strings(req.witnessFiles, 'witness_files', 4096) };
  const inputs = req.inputs!;
  // `generator` (or its alias `wasm`): journaled as the source's `wasm`, either kind of generator
  const generator = req.generator || req.wasm;
  if (!generator) throw bad('inputs need generator: the path of the circuit witness generator on the server (.wasm or native)');
  inputs.forEach((v, k) => { if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(`inputs[${k}] must be a JSON object`); });
  const bytes = JSON.stringify(inputs).length;
  const over = overJobLimit('the job\'s inputs (JSON)', bytes, cfg);
  if (over) throw over;
  return { kind: 'inputs', inputs, wasm: generator };
}

/** The engine's rules for every job (engine/job-check.ts), then the wire's own: sizes against the
 * configured limits, the shape of each witness source, the request id. */
export function checkJobRequest(req: JobSubmission, cfg: Pick<ServeConfig, 'maxJobBytes' | 'maxPartitions'>): ValidJob {
  const f = checkJobFields(req, {
    witnesses: given(req.witnesses), witness_ids: given(req.witnessIds), witness_files: given(req.witnessFiles), inputs: given(req.inputs),
  }, { maxPartitions: cfg.maxPartitions, names: WIRE_NAMES });
  if (req.key.length > MAX_KEY_CHARS) throw bad(`key is ${req.key.length} characters long (at most ${MAX_KEY_CHARS})`);
  if (req.requestId !== undefined && (typeof req.requestId !== 'string' || req.requestId.length === 0 || req.requestId.length > 256)) throw bad('request_id must be 1..256 characters');
  const job: ValidJob = { key: f.key, source: source(req, f.source, cfg), partitions: f.partitions, priority: f.priority };
  if (req.requestId !== undefined) job.requestId = req.requestId;
  if (f.deadlineMs !== undefined) job.deadlineMs = f.deadlineMs;
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

/** A journaled job's key, wasm and server witness files, confined again (their real paths replace
 * them): the directories, and the files in them, may have changed since it was accepted (the engine
 * reads a replayed job's witness headers at submit, before its own opener confines them). */
export async function confineStored(s: { key: string; request?: { wasm?: string; witnessFiles?: Pick<SpooledWitness, 'path' | 'owned'>[] } }, cfg: Pick<ServeConfig, 'keyDirs' | 'inputDirs'>, isKeyId: (key: string) => boolean): Promise<void> {
  s.key = await confineKey(s.key, cfg, isKeyId);
  if (s.request?.wasm) s.request.wasm = await confineWasm(s.request.wasm, cfg);
  for (const f of s.request?.witnessFiles ?? []) if (!f.owned) f.path = (await checkConfined(f.path, cfg.inputDirs, 'witness')).path;
}
