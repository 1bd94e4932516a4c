// A job request checked once by the engine (JobChecker.check, behind ProvingEngine.check and submit),
// with what the check learnt: the key's cache entry and shape, and each witness's layout (its parsed
// header and where its values lie), so that nothing is parsed or resolved again on the way to the
// device; the witnesses are matched with the key here, once. Only a JobChecker makes a CheckedJob: it
// keeps the objects it made in a WeakMap, so a caller's object with the same fields (or one checked by
// another engine) is an ordinary JobRequest and is checked in full.
import { existsSync } from 'node:fs';
import { FormatError, InputError } from '../errors.js';
import { checkWitnessMatchesKey, WtnsFile, type WtnsLayout } from '../formats/wtns.js';
import { ZkeyFile, type ZkeyHeader } from '../formats/zkey.js';
import type { CheckedJob, JobRequest, KeyShape, KnownParts } from './api.js';
import { generatorKind } from './generator-file.js';
import { checkJobFields } from './job-check.js';
import type { KeyCache, KeyEntry } from './key-cache.js';
import { looksLikeKeyPath } from './key-ref.js';

/** What the engine keeps of a checked job, never handed to callers. */
export interface CheckedParts {
  readonly entry: KeyEntry;
  /** The shape the witnesses were matched with. */
  readonly keyShape: KeyShape;
  /** Per partition for `witnesses` or `witnessFiles`; undefined for `inputs` (computed when the job runs). */
  readonly witnesses?: readonly WtnsLayout[];
}

const bad = (m: string) => new InputError('E_INVALID_ARG', m);

function layoutOf(w: WtnsFile): WtnsLayout {
  try {
    return w.layout;
  } finally {
    w.close();
  }
}

function readKeyShape(path: string): KeyShape {
  const z = ZkeyFile.open(path);
  try {
    return z.header;
  } finally {
    z.close();
  }
}

export class JobChecker {
  readonly #made = new WeakMap<object, CheckedParts>();

  constructor(
    private readonly keys: KeyCache,
    private readonly maxPartitions: number,
  ) {}

  /** The parts of a job this checker made, or undefined for anything else. */
  parts(req: JobRequest | CheckedJob): CheckedParts | undefined {
    return this.#made.get(req);
  }

  /** Throws E_INVALID_ARG (a field, with what is wrong), E_NOT_FOUND (key or generator), E_FORMAT (a
   * witness that is not a .wtns or does not match the key). */
  check(req: JobRequest, known: KnownParts = {}): CheckedJob {
    if (typeof req !== 'object' || req === null) throw bad('a job request must be an object');
    const f = checkJobFields(req, { witnesses: req.witnesses, witnessFiles: req.witnessFiles, inputs: req.inputs }, { maxPartitions: this.maxPartitions });
    const given = known.witnesses;
    if (given !== undefined && (f.source === 'inputs' || given.length !== f.partitions)) throw bad(`${given.length} known witness layouts for ${f.partitions} ${f.source}`);
    let layouts: WtnsLayout[] | undefined;
    if (req.witnesses) layouts = req.witnesses.map((bytes, k) => {
      if (!(bytes instanceof Uint8Array)) throw bad(`witness ${k} is not bytes`);
      return given?.[k] ?? layoutOf(WtnsFile.fromBytes(bytes, `witness ${k}`));
    });
    if (req.witnessFiles) layouts = req.witnessFiles.map((file, k) => {
      if (typeof file !== 'string' || file.length === 0) throw bad(`witness file ${k} is not a path`);
      return given?.[k] ?? layoutOf(WtnsFile.open(file));
    });
    if (req.inputs) {
      const gen = req.generator ?? req.wasm;
      if (!gen || !existsSync(gen)) throw new InputError('E_NOT_FOUND', `generator: ${gen ?? '(none)'}: circuit inputs need the circuit's witness generator (.wasm or native)`);
      generatorKind(gen); // a truncated or foreign file is refused here, naming it
      req.inputs.forEach((v, k) => { if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(`input ${k} must be a JSON object`); });
    }
    if (looksLikeKeyPath(req.key) && !existsSync(req.key) && !this.keys.list().some((k) => k.id === req.key)) {
      throw new InputError('E_NOT_FOUND', `${req.key}: no such proving key file`);
    }
    const entry = this.keys.resolve(req.key);
    const keyShape = entry.key?.header ?? known.key ?? readKeyShape(entry.path);
    for (const l of layouts ?? []) checkWitnessMatchesKey(l.header, keyShape);

    const { deadlineMs: _asked, ...rest } = req;
    const job: { -readonly [K in keyof CheckedJob]: CheckedJob[K] } = { ...rest, key: this.keys.names(entry, req.key) ? req.key : entry.id, priority: f.priority, partitions: f.partitions };
    if (f.deadlineMs !== undefined) job.deadlineMs = f.deadlineMs;
    // copies, frozen: the caller's arrays stay theirs, and what was checked cannot change
    if (job.witnesses) job.witnesses = Object.freeze([...job.witnesses]) as Uint8Array[];
    if (job.witnessFiles) job.witnessFiles = Object.freeze([...job.witnessFiles]) as string[];
    if (job.inputs) job.inputs = Object.freeze([...job.inputs]) as Record<string, unknown>[];
    const out: CheckedJob = Object.freeze(job);
    this.#made.set(out, { entry, keyShape, witnesses: layouts && Object.freeze(layouts) });
    return out;
  }
}

/** The key a checked job runs with has the shape its witnesses were matched with (a key not loaded at
 * check is read when the job starts, and its file may have been replaced meanwhile). */
export function checkKeyUnchanged(checked: KeyShape, loaded: ZkeyHeader): void {
  if (checked === loaded || (checked.r === loaded.r && checked.nVars === loaded.nVars)) return;
  throw new FormatError(`${loaded.path}: the key has ${loaded.nVars} wires (${loaded.curve}) but the job's witnesses were checked against one of ${checked.nVars} (${checked.curve}): the .zkey file changed after the job was submitted`);
}
