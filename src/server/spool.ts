// The witness spool: every witness the daemon receives is written once, as it arrives, to a file in
// <data_dir>/spool (0600; the folder 0700), its sha256 computed on the way, fsynced before anyone is
// told it is stored. The journal keeps a file's path, size and hash, never its bytes; the engine
// reads the file straight into its pinned buffers. A file lives as long as its job (uploads no job
// has claimed yet: limits.upload_ttl_s); at start, files no journaled job names are removed.
import { createHash, randomUUID, type Hash } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { InputError, ResourceError } from '../errors.js';
import { checkWitnessMatchesKey, WTNS_PREFIX_BYTES, wtnsHeaderFromPrefix, type WtnsHeader } from '../formats/wtns.js';
import type { Logger } from '../log.js';

/** What a witness must match: the key's scalar field and wire count (KeyInfo and the zkey header). */
export interface KeyShape {
  id: string;
  curve: 'bn128' | 'bls12381';
  r: bigint;
  nVars: number;
}

/** A witness file the journal and the engine refer to. `owned`: in the spool, removed with its job. */
export interface SpooledWitness {
  path: string;
  size: number;
  sha256: string;
  owned: boolean;
}

interface Upload extends SpooledWitness {
  id: string;
  header: WtnsHeader;
  timer: NodeJS.Timeout;
}

const SUFFIX = '.wtns';

const FAULTS: Record<string, string> = {
  ENOSPC: 'the disk is full: free space on its file system (the witness was not stored)',
  EDQUOT: 'the disk quota is used up: free space (the witness was not stored)',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied: the daemon must own its data dir',
  EIO: 'an I/O error: check the disk',
};

/** A file system fault of the spool as E_UNAVAILABLE naming the folder (retryable once fixed). */
async function spoolIo<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const what = FAULTS[(err as NodeJS.ErrnoException).code ?? ''];
    if (!what) throw err;
    throw new ResourceError('E_UNAVAILABLE', `spool ${dir}: ${what}`, { retryable: true, cause: err });
  }
}
const PARTIAL = '.partial';

/** One witness arriving in chunks: header checked against the key from its first bytes (before the
 * rest is read), every byte written once, size checked against the one announced. */
export class SpoolWriter {
  #prefix: Uint8Array[] = [];
  #prefixBytes = 0;
  #file: FileHandle | undefined;
  #written = 0;
  #total = -1;
  #header: WtnsHeader | undefined;
  readonly #hash: Hash = createHash('sha256');
  readonly #partial: string;

  constructor(
    private readonly spool: WitnessSpool,
    readonly id: string,
    private readonly key: KeyShape,
    private readonly announced: number,
    private readonly name: string,
  ) {
    this.#partial = path.join(spool.dir, id + PARTIAL);
  }

  get header(): WtnsHeader | undefined {
    return this.#header;
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (chunk.length === 0) return;
    if (this.#header === undefined) {
      this.#prefix.push(chunk);
      this.#prefixBytes += chunk.length;
      if (this.#prefixBytes < WTNS_PREFIX_BYTES && this.#prefixBytes < this.announced) return;
      const head = Buffer.concat(this.#prefix);
      this.#prefix = [];
      this.#check(head);
      this.#file = await spoolIo(this.spool.dir, () => open(this.#partial, 'wx', 0o600));
      return this.#append(head);
    }
    return this.#append(chunk);
  }

  #check(head: Uint8Array): void {
    const { header, totalBytes } = wtnsHeaderFromPrefix(head, this.name);
    checkWitnessMatchesKey(header, this.key, this.name);
    if (totalBytes !== this.announced) throw new InputError('E_INVALID_ARG', `${this.name}: the .wtns header makes the file ${totalBytes} bytes, but ${this.announced} were announced`);
    this.#header = header;
    this.#total = totalBytes;
  }

  async #append(bytes: Uint8Array): Promise<void> {
    if (this.#written + bytes.length > this.#total) throw new InputError('E_INVALID_ARG', `${this.name}: more than the ${this.#total} bytes announced`);
    this.#hash.update(bytes);
    let o = 0;
    await spoolIo(this.spool.dir, async () => {
      while (o < bytes.length) o += (await this.#file!.write(bytes, o, bytes.length - o)).bytesWritten;
    });
    this.#written += bytes.length;
  }

  /** fsyncs and names the file; the witness is stored once this resolves. */
  async finish(): Promise<SpooledWitness> {
    if (this.#header === undefined) this.#check(Buffer.concat(this.#prefix)); // fails: too short
    if (this.#written !== this.#total) throw new InputError('E_INVALID_ARG', `${this.name}: ended after ${this.#written} of ${this.#total} bytes`);
    const final = path.join(this.spool.dir, this.id + SUFFIX);
    await spoolIo(this.spool.dir, async () => {
      await this.#file!.sync();
      await this.#file!.close();
      this.#file = undefined;
      await rename(this.#partial, final);
    });
    return { path: final, size: this.#total, sha256: this.#hash.digest('hex'), owned: true };
  }

  /** Removes whatever was written (a refused or broken upload keeps nothing). */
  async abort(): Promise<void> {
    await this.#file?.close().catch(() => undefined);
    this.#file = undefined;
    await rm(this.#partial, { force: true });
  }
}

export class WitnessSpool {
  readonly #uploads = new Map<string, Upload>();

  constructor(
    readonly dir: string,
    private readonly uploadTtlMs: number,
    private readonly log: Logger,
  ) {}

  /** Creates the folder (0700) and removes files that no journaled job names (said in the log). */
  async open(keep: ReadonlySet<string>): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    let removed = 0;
    for (const f of await readdir(this.dir)) {
      const p = path.join(this.dir, f);
      if (keep.has(p)) continue;
      await rm(p, { force: true });
      removed++;
    }
    if (removed > 0) this.log.warn({ dir: this.dir, removed }, 'spool files no journaled job names were removed (uploads never submitted, or left by a crash)');
  }

  /** A writer for one witness of `size` bytes for `key`; the caller ends it with finish() or abort(). */
  writer(key: KeyShape, size: number, name: string): SpoolWriter {
    return new SpoolWriter(this, randomUUID(), key, size, name);
  }

  /** Writes a witness that arrived whole (inline in SubmitProof). */
  async store(bytes: Uint8Array, key: KeyShape, name: string): Promise<SpooledWitness> {
    const w = this.writer(key, bytes.length, name);
    try {
      await w.write(bytes);
      return await w.finish();
    } catch (err) {
      await w.abort();
      throw err;
    }
  }

  /** An upload finished: kept for a job to claim until the upload TTL, then removed. */
  register(w: SpoolWriter, file: SpooledWitness): string {
    const timer = setTimeout(() => {
      this.#uploads.delete(w.id);
      void rm(file.path, { force: true });
      this.log.info({ witnessId: w.id }, 'uploaded witness removed: no job named it within limits.upload_ttl_s');
    }, this.uploadTtlMs).unref();
    this.#uploads.set(w.id, { ...file, id: w.id, header: w.header!, timer });
    return w.id;
  }

  /** Takes uploads for a job: each must exist and match the job's key. A job takes them whether it
   * is accepted or refused (then they are removed: the client uploads again to retry). */
  claim(ids: readonly string[], key: KeyShape): SpooledWitness[] {
    const ups = ids.map((id, i) => {
      const u = this.#uploads.get(id);
      if (!u) throw new InputError('E_NOT_FOUND', `witness_ids[${i}]: no uploaded witness ${id} (never uploaded, already used by a job, or older than limits.upload_ttl_s)`);
      checkWitnessMatchesKey(u.header, key, `witness_ids[${i}] (${id})`);
      return u;
    });
    if (new Set(ids).size !== ids.length) throw new InputError('E_INVALID_ARG', 'witness_ids: an uploaded witness can be used once per job');
    return ups.map((u) => {
      clearTimeout(u.timer);
      this.#uploads.delete(u.id);
      return { path: u.path, size: u.size, sha256: u.sha256, owned: true };
    });
  }

  /** Removes a job's own spool files (its end, a refusal, a duplicate request). */
  async release(files: readonly SpooledWitness[] | undefined): Promise<void> {
    for (const f of files ?? []) if (f.owned) await rm(f.path, { force: true });
  }

  close(): void {
    for (const u of this.#uploads.values()) clearTimeout(u.timer);
  }
}
