// Witnesses into files, before a job is journaled: bytes sent inline are spooled, uploads are
// claimed, paths on the server are confined (files.input_dirs) and their headers read. Each witness's header is checked
// against the job's key before its values are read or stored, so a witness that cannot match is
// refused having cost a header's worth of bytes. Uploads (UploadWitness, POST /v1/witnesses) arrive
// here chunk by chunk.
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { InputError } from '../../errors.js';
import type { KeyInfo, KnownParts, ProvingEngine } from '../../engine/api.js';
import { curveByName } from '../../formats/curves.js';
import { checkWitnessMatchesKey, WTNS_PREFIX_BYTES, wtnsHeaderFromPrefix } from '../../formats/wtns.js';
import { ZkeyFile } from '../../formats/zkey.js';
import type { ServeConfig } from '../startup/config.js';
import { openConfined } from './file-access.js';
import { confineKey, looksLikeKeyPath, overJobLimit, type ValidJob } from './request-check.js';
import type { KeyShape, SpooledWitness, WitnessSpool } from './spool.js';

export class WitnessIntake {
  constructor(
    private readonly engine: ProvingEngine,
    readonly spool: WitnessSpool,
    private readonly cfg: Pick<ServeConfig, 'maxJobBytes' | 'inputDirs' | 'keyDirs'>,
  ) {}

  /** What the witnesses of a job naming `key` must match: a loaded key's, or a .zkey's header. */
  async keyShape(key: string): Promise<KeyShape & KeySize> {
    return this.#shape(key, this.#loaded(key));
  }

  /**
   * A job's or an upload's key, resolved once: a loaded key's id as it is; else a .zkey path confined
   * to files.key_dirs (as confineKey does), then a key loaded from that real path, or the file's
   * header. Pass the result on to files() and, through knownParts(), to engine.check(), so that
   * nothing resolves or reads the key again.
   */
  async resolveKey(name: string): Promise<ResolvedKey> {
    const keys = this.engine.listKeys();
    const byId = keys.find((k) => k.id === name);
    if (byId) return { ...(await this.#shape(name, byId)), name };
    const real = await confineKey(name, this.cfg, () => false);
    return { ...(await this.#shape(real, keys.find((k) => k.id === real || k.path === real))), name: real };
  }

  #loaded(key: string): KeyInfo | undefined {
    return this.engine.listKeys().find((k) => k.id === key || k.path === key);
  }

  async #shape(key: string, loaded: KeyInfo | undefined): Promise<KeyShape & KeySize> {
    if (loaded) return { id: loaded.id, curve: loaded.curve, r: curveByName(loaded.curve)!.r, nVars: loaded.nVars, domainSize: loaded.domainSize, bytes: loaded.bytes };
    if (!looksLikeKeyPath(key)) throw new InputError('E_NOT_FOUND', `unknown key "${key}": load it first (LoadKey) or pass the path of a .zkey file`);
    const st = await stat(key).catch(() => {
      throw new InputError('E_NOT_FOUND', `${key}: no such proving key file`);
    });
    const z = ZkeyFile.open(key);
    try {
      // a key not loaded yet: its file's size stands for the host bytes it will hold
      return { id: key, curve: z.header.curve, r: z.header.r, nVars: z.header.nVars, domainSize: z.header.domainSize, bytes: st.size };
    } finally {
      z.close();
    }
  }

  /** The job's witnesses as files (none for an inputs job), checked against `key`. */
  async files(job: ValidJob, key: KeyShape): Promise<SpooledWitness[] | undefined> {
    const src = job.source;
    if (src.kind === 'inputs') return undefined;
    if (src.kind === 'uploads') return this.spool.claim(src.ids, key);
    if (src.kind === 'files') return this.#byPath(src.paths, key);
    const out: SpooledWitness[] = [];
    try {
      for (const [i, w] of src.witnesses.entries()) out.push(await this.spool.store(w, key, `witnesses[${i}]`));
    } catch (err) {
      await this.spool.release(out);
      throw err;
    }
    return out;
  }

  /** Witness files on the server: regular files whose header matches the key; not owned (kept). */
  async #byPath(paths: readonly string[], key: KeyShape): Promise<SpooledWitness[]> {
    const out: SpooledWitness[] = [];
    let total = 0;
    for (const [i, p] of paths.entries()) {
      const name = `witness_files[${i}] ${p}`;
      const f = await openConfined(p, this.cfg.inputDirs, `witness_files[${i}]`);
      try {
        const prefix = new Uint8Array(Math.min(WTNS_PREFIX_BYTES, f.size));
        await f.handle.read(prefix, 0, prefix.length, 0);
        const layout = wtnsHeaderFromPrefix(prefix, name);
        checkWitnessMatchesKey(layout.header, key, name);
        if (layout.totalBytes !== f.size) throw new InputError('E_INVALID_ARG', `${name}: the .wtns header makes the file ${layout.totalBytes} bytes, but it has ${f.size}`);
        const st = await f.handle.stat();
        total += f.size;
        // identifies the content for request ids without reading it: path, size and modification time
        out.push({ path: f.path, size: f.size, sha256: `file:${st.mtimeMs}`, owned: false, layout });
      } finally {
        await f.handle.close();
      }
    }
    const over = overJobLimit('the job\'s witness files', total, this.cfg);
    if (over) throw over;
    return out;
  }

  /** Receives one uploaded witness chunk by chunk; resolves with its id once stored. */
  async upload(keyName: string, size: number, chunks: AsyncIterable<Uint8Array>, where: string, ownsChunks = false): Promise<{ id: string; file: SpooledWitness }> {
    const sink = await this.begin(keyName, size, where, ownsChunks);
    try {
      for await (const c of chunks) await sink.write(c);
      return await sink.finish();
    } catch (err) {
      await sink.abort();
      throw err;
    }
  }

  /** The checks of an upload before any of its bytes is read (here, or for an intake process:
   * intake-processes.ts): key and size given, the size within the job limit, the key resolved. */
  async uploadKey(keyName: string, size: number, where: string): Promise<ResolvedKey> {
    if (!keyName) throw new InputError('E_INVALID_ARG', `${where}: the key is required (the first chunk's key, or ?key=)`);
    if (!Number.isSafeInteger(size) || size <= 0) throw new InputError('E_INVALID_ARG', `${where}: the witness size is required (the first chunk's size, or Content-Length)`);
    const over = overJobLimit(`${where}: the witness`, size, this.cfg);
    if (over) throw over;
    return this.resolveKey(keyName);
  }

  /** An upload pushed chunk by chunk (a reader that parses its own framing: upload-grpc.ts). The
   * key and size are checked first; the caller ends it with finish() or abort(). */
  async begin(keyName: string, size: number, where: string, ownsChunks = false): Promise<UploadSink> {
    const key = await this.uploadKey(keyName, size, where);
    const w = this.spool.writer(key, size, where, ownsChunks);
    return {
      write: (c) => w.write(c),
      finish: async () => {
        const file = await w.finish();
        return { id: this.spool.register(w.id, file), file };
      },
      abort: () => w.abort(),
    };
  }
}

/** What the intake has read of a job's witnesses and key, for engine.check() (or submit): the
 * engine then opens no witness file to check the job, and parses none when its proofs start. A file
 * without a layout (a job read back from the journal, whose rows keep none) is checked from the file. */
export function knownParts(files: readonly SpooledWitness[] | undefined, key?: KeyShape): KnownParts {
  const known: KnownParts = {};
  if (key) known.key = key;
  if (files?.some((f) => f.layout)) known.witnesses = files.map((f) => f.layout);
  return known;
}

/** A key as resolveKey() found it: its shape and size, and `name`, what the job keeps (and
 * journals) for it: the key id as given, else the key file's confined real path. */
export type ResolvedKey = KeyShape & KeySize & { name: string };

/** What a key costs a daemon, for a job's MemoryNeed (job-need.ts). */
export interface KeySize {
  domainSize: number;
  bytes: number;
}

export interface UploadSink {
  write(chunk: Uint8Array): Promise<void>;
  /** Stored (fsynced): the upload's id and file. */
  finish(): Promise<{ id: string; file: SpooledWitness }>;
  /** Removes whatever was written. */
  abort(): Promise<void>;
}

/** What a job asks for, for request ids: the key, each witness's hash (or file identity), the inputs. */
export function jobFingerprint(job: ValidJob, files: readonly SpooledWitness[] | undefined): string {
  const h = createHash('sha256');
  h.update(`key:${job.key}\n`);
  for (const f of files ?? []) h.update(`w:${f.owned ? '' : f.path}:${f.size}:${f.sha256}\n`);
  if (job.source.kind === 'inputs') {
    for (const i of job.source.inputs) h.update(`i:${JSON.stringify(i)}\n`);
    h.update(`wasm:${job.source.wasm}`);
  }
  return h.digest('hex');
}
