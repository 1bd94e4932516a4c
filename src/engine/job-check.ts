// The rules for a job's fields, one copy for every way a job arrives: the engine's API (checked-job.ts)
// and the daemon's wire (server/intake/request-check.ts, which adds what only the wire has: witness
// ids, byte limits, path confinement). A deadline absent or 0 means none, else it is a positive safe
// integer of ms; exactly one witness source, of 1..maxPartitions entries. Errors are E_INVALID_ARG
// naming each field as its caller spells it (the API's camelCase, the wire's snake_case).
import { InputError } from '../errors.js';
import { PRIORITIES, type Priority } from './api.js';

/** How a caller spells the fields its messages name. */
export interface FieldNames {
  deadlineMs: string;
  /** The setting that bounds partitions per job. */
  maxPartitions: string;
}

export const API_NAMES: FieldNames = { deadlineMs: 'deadlineMs', maxPartitions: 'maxPartitions' };
export const WIRE_NAMES: FieldNames = { deadlineMs: 'deadline_ms', maxPartitions: 'engine.max_partitions' };

/** A job's fields once checked: priority defaulted, a deadline of 0 dropped. */
export interface JobFields<S extends string> {
  key: string;
  priority: Priority;
  /** Positive ms, or absent: none. */
  deadlineMs?: number;
  /** The witness source given, and its length. */
  source: S;
  partitions: number;
}

const bad = (m: string) => new InputError('E_INVALID_ARG', m);

/** A deadline as the engine keeps it: undefined for none (absent or 0), else positive integer ms. */
export function checkDeadline(ms: unknown, field = API_NAMES.deadlineMs): number | undefined {
  if (ms === undefined || ms === 0) return undefined;
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0) throw bad(`${field} must be 0 (none) or a positive integer of milliseconds, got ${String(ms)}`);
  return ms;
}

/**
 * Checks the fields every job has. `sources` maps each witness source the caller knows, in its
 * spelling, to what the request holds there (undefined when not given): exactly one must be given.
 */
export function checkJobFields<S extends string>(
  req: { key?: unknown; priority?: unknown; deadlineMs?: unknown },
  sources: Readonly<Record<S, unknown>>,
  limits: { maxPartitions: number; names?: FieldNames },
): JobFields<S> {
  const names = limits.names ?? API_NAMES;
  if (typeof req.key !== 'string' || req.key.trim() === '') throw bad('key is required: a loaded key id or the path of a .zkey file');
  if (req.priority !== undefined && !PRIORITIES.includes(req.priority as Priority)) throw bad(`priority must be one of ${PRIORITIES.join(', ')}`);
  const deadlineMs = checkDeadline(req.deadlineMs, names.deadlineMs);
  const all = Object.keys(sources) as S[];
  const given = all.filter((s) => sources[s] !== undefined);
  if (given.length !== 1) {
    const list = `${all.slice(0, -1).join(', ')} or ${all[all.length - 1]}`;
    throw bad(`a job needs exactly one of ${list} (got ${given.length ? given.join(', ') : 'none'})`);
  }
  const source = given[0]!;
  const items = sources[source];
  if (!Array.isArray(items) || items.length === 0) throw bad(`${source}: a job needs at least one witness or input`);
  const n = items.length;
  if (n > limits.maxPartitions) throw bad(`a job may have at most ${limits.maxPartitions} partitions (${names.maxPartitions}), this one has ${n}`);
  const out: JobFields<S> = { key: req.key, priority: (req.priority as Priority | undefined) ?? 'normal', source, partitions: n };
  if (deadlineMs !== undefined) out.deadlineMs = deadlineMs;
  return out;
}
