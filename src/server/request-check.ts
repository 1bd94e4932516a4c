// Validation of a job request before it reaches the journal or the engine (TGI: validate before the
// queue): the shape, the sizes against the configured limits, the witness headers, and the paths it
// names, confined to the configured directories. Errors are E_INVALID_ARG naming the field and the
// limit (E_NOT_FOUND for a missing file); the engine checks the rest (key match, satisfiability).
import { InputError } from '../errors.js';
import { PRIORITIES, type JobRequest } from '../engine/api.js';
import type { ServeConfig } from './config.js';
import { checkConfined } from './file-access.js';

const WTNS_MAGIC = [0x77, 0x74, 0x6e, 0x73]; // "wtns"

export function checkJobRequest(req: JobRequest, cfg: Pick<ServeConfig, 'maxJobBytes' | 'maxPartitions'>): void {
  if (typeof req.key !== 'string' || req.key.trim() === '') throw new InputError('E_INVALID_ARG', 'key is required: a key id from LoadKey or a .zkey path on the server');
  if (req.key.length > 4096) throw new InputError('E_INVALID_ARG', `key is ${req.key.length} characters long (at most 4096)`);
  const nw = req.witnesses?.length ?? 0;
  const ni = req.inputs?.length ?? 0;
  if ((nw > 0) === (ni > 0)) throw new InputError('E_INVALID_ARG', `exactly one of witnesses or inputs is required (got ${nw} witnesses and ${ni} inputs)`);
  if (ni > 0 && !req.wasm) throw new InputError('E_INVALID_ARG', 'inputs need wasm: the path of the circuit witness generator on the server');
  if (nw + ni > cfg.maxPartitions) throw new InputError('E_INVALID_ARG', `${nw + ni} partitions is more than max_partitions ${cfg.maxPartitions}`);
  let bytes = 0;
  req.witnesses?.forEach((w, i) => {
    if (w.length < 12 || WTNS_MAGIC.some((b, j) => w[j] !== b)) throw new InputError('E_INVALID_ARG', `witnesses[${i}]: not a .wtns file (${w.length} bytes, no "wtns" magic)`);
    bytes += w.length;
  });
  if (req.inputs) bytes += JSON.stringify(req.inputs).length;
  if (bytes > cfg.maxJobBytes) throw new InputError('E_INVALID_ARG', `job is ${bytes} bytes, more than max_job_bytes ${cfg.maxJobBytes}`);
  if (req.priority !== undefined && !PRIORITIES.includes(req.priority)) throw new InputError('E_INVALID_ARG', `priority must be one of ${PRIORITIES.join(', ')}`);
  if (req.requestId !== undefined && (req.requestId.length === 0 || req.requestId.length > 256)) throw new InputError('E_INVALID_ARG', 'request_id must be 1..256 characters');
  if (req.deadlineMs !== undefined && (!Number.isSafeInteger(req.deadlineMs) || req.deadlineMs < 0)) throw new InputError('E_INVALID_ARG', 'deadline_ms must be a non-negative integer');
}

/** A key that is not a loaded key id is a path when it looks like one (the key cache's rule). */
export const looksLikeKeyPath = (key: string): boolean => key.endsWith('.zkey') || key.includes('/');

/**
 * The request with its key (when a path, not a loaded key id) and wasm replaced by their real paths,
 * each checked to be a regular file inside files.key_dirs / files.input_dirs; the engine then opens
 * exactly what was checked. Call after checkJobRequest.
 */
export async function confineJobPaths(req: JobRequest, cfg: Pick<ServeConfig, 'keyDirs' | 'inputDirs'>, isKeyId: (key: string) => boolean): Promise<JobRequest> {
  const out = { ...req };
  if (!isKeyId(req.key) && looksLikeKeyPath(req.key)) out.key = (await checkConfined(req.key, cfg.keyDirs, 'key')).path;
  if (req.wasm !== undefined && req.inputs?.length) out.wasm = (await checkConfined(req.wasm, cfg.inputDirs, 'wasm')).path;
  return out;
}
