// The witness spool: every witness the daemon receives is written once, as it arrives, to a file in
// <data_dir>/spool (0600; the folder 0700), its sha256 computed on the way, fsynced before anyone is
// told it is stored. The journal keeps a file's path, size and hash, never its bytes; the engine
// reads the file straight into its pinned buffers. A file lives as long as its job (uploads no job
// has claimed yet: limits.upload_ttl_s); at start, files no journaled job names are removed.
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import type { Worker } from 'node:worker_threads';
import path from 'node:path';
import type { KeyShape as EngineKeyShape } from '../../engine/api.js';
import { startModuleWorker } from '../../engine/module-worker.js';
import { CuzkError, InputError, ResourceError } from '../../errors.js';
import { checkWitnessMatchesKey, WTNS_PREFIX_BYTES, wtnsHeaderFromPrefix, type WtnsHeader, type WtnsLayout } from '../../formats/wtns.js';
import type { Logger } from '../../log.js';
import type { SpoolOp, SpoolReply } from './spool-worker.js';

/** What a witness must match (the engine's KeyShape: the key's scalar field and wire count, from
 * KeyInfo or the zkey header), and the name the job keeps for the key. */
export interface KeyShape extends EngineKeyShape {
  id: string;
}

/** A witness file the journal and the engine refer to. `owned`: in the spool, removed with its job.
 * `layout`: its header as the intake read it, for the engine's check (KnownParts), so the file is not
 * parsed again; never journaled (job-row.ts), so a job read back from the journal has none. */
export interface SpooledWitness {
  path: string;
  size: number;
  sha256: string;
  owned: boolean;
  layout?: WtnsLayout;
}

interface Upload extends SpooledWitness {
  id: string;
  layout: WtnsLayout;
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

const PARTIAL = '.partial'; // spool-worker.ts renames <final>.partial to <final>
/** Threads hashing and writing spool files: two keep up with 15 witnesses of 32 MiB a second. */
const SPOOL_THREADS = 2;

/** Small chunks (a socket's 64 KiB reads) are gathered into buffers of this size, moved to a spool
 * thread and moved back empty: one postMessage per MiB, no structured-clone copy per chunk. */
const BATCH_BYTES = 1 << 20;
/** Empty batch buffers kept for reuse (warm pages, no allocation per MiB); more are left to the GC. */
const BATCH_POOL_MAX = 16;

/** Creates the spool folder (0700) or checks an existing one: files.spool_dir may name any folder, but
 * only one of this daemon's own may hold private witnesses (and have its unknown files removed at
 * start), never a shared one such as /dev/shm itself. Called at start before the engine, so a bad
 * folder costs nothing, and again by open(). */
export async function prepareSpoolDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await stat(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0) {
    throw new InputError('E_INVALID_ARG', `files.spool_dir ${dir}: must be a folder of this daemon's own (owned by its user, mode 0700; it is ${st.isDirectory() ? `owned by uid ${st.uid}, mode ${(st.mode & 0o7777).toString(8)}` : 'not a folder'}): name a new folder (it is created 0700) or chmod 700 it`);
  }
}

/** Threads that hash and write spool files (spool-worker.ts); each writer keeps to one of them. */
class SpoolThreads {
  readonly #threads: { worker: Worker; pending: Map<number, { resolve: (r: SpoolReply) => void }> }[] = [];
  readonly #batches: Uint8Array[] = [];
  #seq = 0;
  #next = 0;

  constructor(private readonly count: number) {}

  /** A thread for one file, round robin (started on first use; only an operation in flight keeps the process up). */
  pick(): number {
    if (this.#threads.length < this.count) this.#start();
    return this.#next++ % this.#threads.length;
  }

  /** Every thread started and its module loaded (answered a ping), so the first upload finds them warm. */
  async warm(): Promise<void> {
    while (this.#threads.length < this.count) this.#start();
    await Promise.all(this.#threads.map((_, i) => this.send(i, { op: 'ping' })));
  }

  #start(): void {
    const worker = startModuleWorker(import.meta.url, 'spool-worker');
    const t = { worker, pending: new Map<number, { resolve: (r: SpoolReply) => void }>() };
    worker.on('message', (r: SpoolReply) => {
      if (r.recycled) this.#recycle(r.recycled);
      t.pending.get(r.seq)?.resolve(r);
      t.pending.delete(r.seq);
      if (t.pending.size === 0) worker.unref();
    });
    worker.on('error', (err) => {
      for (const p of t.pending.values()) p.resolve({ seq: -1, error: { message: `spool thread failed: ${err.message}` } });
      t.pending.clear();
    });
    worker.unref();
    this.#threads.push(t);
  }

  /** An empty batch buffer of BATCH_BYTES. */
  batch(): Uint8Array {
    return this.#batches.pop() ?? new Uint8Array(BATCH_BYTES);
  }

  #recycle(b: Uint8Array): void {
    if (b.buffer.byteLength === BATCH_BYTES && this.#batches.length < BATCH_POOL_MAX) this.#batches.push(new Uint8Array(b.buffer));
  }

  /** Posts one operation (bytes not in `transfer` are copied to the thread) and resolves with its answer. */
  send(thread: number, op: DistributiveOmit<SpoolOp, 'seq'>, transfer: ArrayBuffer[] = []): Promise<SpoolReply> {
    const t = this.#threads[thread]!;
    const seq = ++this.#seq;
    return new Promise((resolve) => {
      if (t.pending.size === 0) t.worker.ref(); // an operation in flight keeps the process up
      t.pending.set(seq, { resolve });
      t.worker.postMessage({ ...op, seq }, transfer);
    });
  }

  close(): void {
    for (const t of this.#threads) void t.worker.terminate();
    this.#threads.length = 0;
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** Bytes posted to a spool thread but not yet written, per writer, before write() waits. */
const IN_FLIGHT_BYTES = 8 << 20;

/** One witness arriving in chunks: header checked against the key from its first bytes (before the
 * rest is read), every byte written once (hashed and written by a spool thread), size checked
 * against the one announced. */
export class SpoolWriter {
  #prefix: Uint8Array[] = [];
  #prefixBytes = 0;
  #thread = -1;
  #written = 0;
  #total = -1;
  #layout: WtnsLayout | undefined;
  readonly #inFlight: { bytes: number; reply: Promise<SpoolReply> }[] = [];
  /** Chunks not moved as they are are copied here, then the batch is moved to the thread when full. */
  #batch: Uint8Array | undefined;
  #batchLen = 0;
  #inFlightBytes = 0;
  readonly #partial: string;
  readonly #final: string;

  constructor(
    private readonly spool: WitnessSpool,
    private readonly threads: SpoolThreads,
    readonly id: string,
    private readonly key: KeyShape,
    private readonly announced: number,
    private readonly name: string,
    /** The chunks' buffers are this writer's to give away (moved to the spool thread, not copied). */
    private readonly ownsChunks: boolean,
  ) {
    ({ final: this.#final, partial: this.#partial } = spool.paths(id));
  }

  get header(): WtnsHeader | undefined {
    return this.#layout?.header;
  }

  async write(chunk: Uint8Array): Promise<void> {
    if (chunk.length === 0) return;
    if (this.#layout === undefined) {
      this.#prefix.push(chunk);
      this.#prefixBytes += chunk.length;
      if (this.#prefixBytes < WTNS_PREFIX_BYTES && this.#prefixBytes < this.announced) return;
      // one chunk (the usual case) is written as it is; several are joined into a buffer of our own
      const single = this.#prefix.length === 1;
      const head = single ? this.#prefix[0]! : Buffer.concat(this.#prefix);
      this.#prefix = [];
      this.#check(head);
      this.#thread = this.threads.pick();
      await this.#expect(this.threads.send(this.#thread, { op: 'open', id: this.id, path: this.#partial }));
      return this.#append(head, single ? this.ownsChunks : true);
    }
    return this.#append(chunk, this.ownsChunks);
  }

  #check(head: Uint8Array): void {
    const layout = wtnsHeaderFromPrefix(head, this.name);
    checkWitnessMatchesKey(layout.header, this.key, this.name);
    if (layout.totalBytes !== this.announced) throw new InputError('E_INVALID_ARG', `${this.name}: the .wtns header makes the file ${layout.totalBytes} bytes, but ${this.announced} were announced`);
    this.#layout = layout;
    this.#total = layout.totalBytes;
  }

  async #expect(reply: Promise<SpoolReply>): Promise<SpoolReply> {
    const r = await reply;
    if (r.error) {
      const what = FAULTS[r.error.code ?? ''];
      if (what) throw new ResourceError('E_UNAVAILABLE', `spool ${this.spool.dir}: ${what}`);
      throw new CuzkError('E_INTERNAL', `spool ${this.spool.dir}: ${r.error.message}`);
    }
    return r;
  }

  async #append(bytes: Uint8Array, give: boolean): Promise<void> {
    if (this.#written + bytes.length > this.#total) throw new InputError('E_INVALID_ARG', `${this.name}: more than the ${this.#total} bytes announced`);
    this.#written += bytes.length;
    // a big buffer of our own (a gRPC message) is moved as it is; anything else is copied into a batch
    if (give && this.#batchLen === 0 && bytes.length >= BATCH_BYTES / 2 && bytes.buffer instanceof ArrayBuffer) {
      return this.#post(bytes, [bytes.buffer], false);
    }
    for (let o = 0; o < bytes.length; ) {
      this.#batch ??= this.threads.batch();
      const n = Math.min(bytes.length - o, BATCH_BYTES - this.#batchLen);
      this.#batch.set(bytes.subarray(o, o + n), this.#batchLen);
      this.#batchLen += n;
      o += n;
      if (this.#batchLen === BATCH_BYTES) await this.#flush();
    }
  }

  async #flush(): Promise<void> {
    const b = this.#batch;
    if (!b || this.#batchLen === 0) return;
    const bytes = b.subarray(0, this.#batchLen);
    this.#batch = undefined;
    this.#batchLen = 0;
    await this.#post(bytes, [b.buffer as ArrayBuffer], true);
  }

  async #post(bytes: Uint8Array, transfer: ArrayBuffer[], recycle: boolean): Promise<void> {
    this.#inFlight.push({ bytes: bytes.length, reply: this.threads.send(this.#thread, { op: 'write', id: this.id, bytes, recycle }, transfer) });
    this.#inFlightBytes += bytes.length;
    // back-pressure: the network waits for the disk, not memory for both
    while (this.#inFlightBytes > IN_FLIGHT_BYTES) await this.#settleOne();
  }

  async #settleOne(): Promise<void> {
    const w = this.#inFlight.shift()!;
    this.#inFlightBytes -= w.bytes;
    await this.#expect(w.reply);
  }

  /** fsyncs and names the file; the witness is stored once this resolves. */
  async finish(): Promise<SpooledWitness> {
    if (this.#layout === undefined) this.#check(Buffer.concat(this.#prefix)); // fails: too short
    if (this.#written !== this.#total) throw new InputError('E_INVALID_ARG', `${this.name}: ended after ${this.#written} of ${this.#total} bytes`);
    await this.#flush();
    while (this.#inFlight.length > 0) await this.#settleOne();
    const r = await this.#expect(this.threads.send(this.#thread, { op: 'finish', id: this.id, final: this.#final }));
    this.#thread = -1;
    return { path: this.#final, size: this.#total, sha256: r.sha256!, owned: true, layout: this.#layout! };
  }

  /** Removes whatever was written (a refused or broken upload keeps nothing). */
  async abort(): Promise<void> {
    this.#batch = undefined; // never posted: nothing of it reaches the file
    this.#batchLen = 0;
    await Promise.allSettled(this.#inFlight.map((w) => w.reply));
    this.#inFlight.length = 0;
    if (this.#thread >= 0) await this.threads.send(this.#thread, { op: 'abort', id: this.id, path: this.#partial });
    this.#thread = -1;
  }
}

export class WitnessSpool {
  readonly #uploads = new Map<string, Upload>();
  readonly #threads = new SpoolThreads(SPOOL_THREADS);

  constructor(
    readonly dir: string,
    private readonly uploadTtlMs: number,
    private readonly log: Logger,
  ) {}

  /** Starts the spool threads now (an intake process, before it says it is ready), not on the first upload. */
  warm(): Promise<void> {
    return this.#threads.warm();
  }

  /** Creates the folder (0700) and removes files that no journaled job names (said in the log). */
  async open(keep: ReadonlySet<string>): Promise<void> {
    await prepareSpoolDir(this.dir);
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
  /** `ownsChunks`: the chunks' buffers hold nothing else and are not used after write() (a decoded
   * gRPC message's bytes): they are moved to the spool thread instead of copied. */
  /** `id`: the file's name, when the daemon's main process chose it for an intake process's upload. */
  writer(key: KeyShape, size: number, name: string, ownsChunks = false, id: string = randomUUID()): SpoolWriter {
    return new SpoolWriter(this, this.#threads, id, key, size, name, ownsChunks);
  }

  /** The path of upload `id`'s file once stored, and while it is written. */
  paths(id: string): { final: string; partial: string } {
    const final = path.join(this.dir, id + SUFFIX);
    return { final, partial: final + PARTIAL };
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
  /** `id`: the writer's (here, or in an intake process: intake-processes.ts). */
  register(id: string, file: SpooledWitness): string {
    const timer = setTimeout(() => {
      this.#uploads.delete(id);
      void rm(file.path, { force: true });
      this.log.info({ witnessId: id }, 'uploaded witness removed: no job named it within limits.upload_ttl_s');
    }, this.uploadTtlMs).unref();
    this.#uploads.set(id, { ...file, id, layout: file.layout!, timer });
    return id;
  }

  /** Takes uploads for a job: each must exist and match the job's key. A job takes them whether it
   * is accepted or refused (then they are removed: the client uploads again to retry). */
  claim(ids: readonly string[], key: KeyShape): SpooledWitness[] {
    const ups = ids.map((id, i) => {
      const u = this.#uploads.get(id);
      if (!u) throw new InputError('E_NOT_FOUND', `witness_ids[${i}]: no uploaded witness ${id} (never uploaded, already used by a job, or older than limits.upload_ttl_s)`);
      checkWitnessMatchesKey(u.layout.header, key, `witness_ids[${i}] (${id})`);
      return u;
    });
    if (new Set(ids).size !== ids.length) throw new InputError('E_INVALID_ARG', 'witness_ids: an uploaded witness can be used once per job');
    return ups.map((u) => {
      clearTimeout(u.timer);
      this.#uploads.delete(u.id);
      return { path: u.path, size: u.size, sha256: u.sha256, owned: true, layout: u.layout };
    });
  }

  /** Removes a job's own spool files (its end, a refusal, a duplicate request). */
  async release(files: readonly SpooledWitness[] | undefined): Promise<void> {
    for (const f of files ?? []) if (f.owned) await rm(f.path, { force: true });
  }

  close(): void {
    for (const u of this.#uploads.values()) clearTimeout(u.timer);
    this.#threads.close();
  }
}
