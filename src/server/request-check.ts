// Validation of a job request before it reaches the journal or the engine (TGI: validate before the
// queue): the shape, the sizes against the configured limits, and the witness headers. Errors are
// E_INVALID_ARG naming the field and the limit; the engine checks the rest (key match, satisfiability).
import { InputError } from '../errors.js';
import { PRIORITIES, type JobRequest } from '../engine/api.js';
import type { ServeConfig } from './config.js';

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
