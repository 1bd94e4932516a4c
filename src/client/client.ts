// CuzkClient: the typed SDK for a `cuzk serve` daemon, over gRPC (HTTP/2, default) or Connect
// (HTTP/1.1 JSON-capable), by TCP address or unix socket. Results are the engine contract's plain
// values (JobInfo, KeyInfo, ...); every failure is a CuzkError with the daemon's E_ code.
import net from 'node:net';
import { create } from '@bufbuild/protobuf';
import { createClient, type Client, type Interceptor, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import type { JobEvent, JobInfo, JobRequest, KeyInfo } from '../engine/api.js';
import { ProvingService, SubmitProofRequestSchema, type SubmitProofRequest } from '../rpc/gen/cuzk/v1/cuzk_pb.js';
import { InputError } from '../errors.js';
import { priorityToProto } from '../rpc/enums.js';
import { errorFromRpc, eventFromProto, jobFromProto, keyFromProto, statusFromProto, type DaemonStatus } from './convert.js';
import { uploadOverGrpc } from './grpc-upload.js';
import { uploadKeyOverH2, uploadKeyOverHttp } from './key-upload.js';
import { INLINE_MAX_BYTES, UPLOAD_CHUNK_BYTES, uploadOverHttp, type HttpTarget } from './upload.js';
import { withUploadBodies, type UploadBody, type UploadSource } from './upload-body.js';

export interface CuzkClientOptions {
  /** "host:port", "http://host:port", or "unix:/path/to.sock". Default "127.0.0.1:9820". */
  address?: string;
  /** Bearer token (the daemon's `token`); default $CUZK_TOKEN. */
  token?: string;
  /** 'grpc' (default) or 'connect' (Connect protocol over HTTP/1.1, binary). */
  protocol?: 'grpc' | 'connect';
  /** How witnesses too large to go inline are uploaded: 'post' (default), POST /v1/witnesses on a
   * connection of its own per witness, which the daemon hands to an intake process (received, hashed
   * and spooled off its main event loop, limits.intake_processes); 'stream' (gRPC only), the
   * UploadWitness RPC on the client's HTTP/2 connection, for a daemon reached through a gRPC-only
   * proxy (read by the daemon's main thread). */
  uploads?: 'post' | 'stream';
  /** Largest message sent or accepted, bytes (default 256 MiB, the daemon's default). */
  maxMessageBytes?: number;
  /** Witnesses up to this many bytes go inline in SubmitProof; larger ones, and every witness
   * given as a file, are streamed first (as `uploads` says). Default 256 KiB. */
  inlineWitnessBytes?: number;
  /** TLS (the address then defaults to https://): the CA that signed the daemon's certificate, and
   * for mTLS this client's certificate and key; PEM text or bytes. */
  tls?: { ca?: string | Uint8Array; cert?: string | Uint8Array; key?: string | Uint8Array };
}

const pem = (v: string | Uint8Array | undefined) => (v === undefined ? undefined : typeof v === 'string' ? v : Buffer.from(v));

/** A job to submit: JobRequest without the journal's own `id`; `witnesses` are .wtns bytes or
 * `{ file }`, a .wtns file on this machine streamed from disk (any size, never read whole);
 * `witnessFiles` are paths on the daemon's machine (inside its files.input_dirs), `witnessIds`
 * witnesses sent with uploadWitness(). */
export type SubmitRequest = Omit<JobRequest, 'id' | 'witnesses'> & { witnesses?: UploadSource[]; witnessIds?: string[] };

export class CuzkClient {
  readonly address: string;
  readonly #rpc: Client<typeof ProvingService>;
  readonly #inlineMax: number;
  readonly #chunk: number;
  readonly #http: HttpTarget;
  readonly #token: string | undefined;
  readonly #limit: number;
  /** gRPC: the one HTTP/2 connection, opened at the first call; uploads write to it directly. */
  readonly #session: Http2SessionManager | undefined;
  readonly #uploads: 'post' | 'stream';

  constructor(opts: CuzkClientOptions = {}) {
    this.address = opts.address ?? '127.0.0.1:9820';
    const token = opts.token ?? process.env.CUZK_TOKEN;
    const auth: Interceptor = (next) => (req) => {
      if (token) req.header.set('authorization', `Bearer ${token}`);
      return next(req);
    };
    const limit = opts.maxMessageBytes ?? 256 * 1024 * 1024;
    const unix = this.address.startsWith('unix:') ? this.address.slice(5) : undefined;
    const scheme = opts.tls ? 'https' : 'http';
    const baseUrl = unix ? `${scheme}://localhost` : /^https?:\/\//.test(this.address) ? this.address : `${scheme}://${this.address}`;
    const common = { baseUrl, interceptors: [auth], readMaxBytes: limit, writeMaxBytes: limit };
    const tls = opts.tls ? { ca: pem(opts.tls.ca), cert: pem(opts.tls.cert), key: pem(opts.tls.key) } : {};
    this.#inlineMax = opts.inlineWitnessBytes ?? INLINE_MAX_BYTES;
    this.#chunk = Math.max(4096, Math.min(UPLOAD_CHUNK_BYTES, limit - 1024));
    this.#http = { baseUrl, socketPath: unix, token, tls };
    this.#token = token;
    this.#limit = limit;
    if (opts.uploads !== undefined && opts.uploads !== 'post' && opts.uploads !== 'stream') throw new InputError('E_INVALID_ARG', `uploads must be 'post' or 'stream', got ${JSON.stringify(opts.uploads)}`);
    if (opts.uploads === 'stream' && opts.protocol === 'connect') throw new InputError('E_INVALID_ARG', "uploads: 'stream' needs protocol 'grpc' (Connect over HTTP/1.1 cannot stream a request)");
    this.#uploads = opts.uploads ?? 'post';
    let transport: Transport;
    if (opts.protocol === 'connect') {
      transport = createConnectTransport({ ...common, httpVersion: '1.1', useBinaryFormat: true, nodeOptions: unix ? { socketPath: unix, ...tls } : tls });
    } else {
      this.#session = new Http2SessionManager(baseUrl, undefined, unix ? { createConnection: () => net.connect(unix), ...tls } : tls);
      transport = createGrpcTransport({ ...common, sessionManager: this.#session });
    }
    this.#rpc = createClient(ProvingService, transport);
  }

  /** Witness id of `w`, streamed as the client's `uploads` option says. */
  async #upload(key: string, w: UploadBody): Promise<string> {
    if (!this.#session || this.#uploads === 'post') return uploadOverHttp(this.#http, key, w);
    return (await uploadOverGrpc({ session: this.#session, token: this.#token, readMaxBytes: this.#limit }, key, w, this.#chunk)).witnessId;
  }

  /** Witness ids of `ws`, uploaded at once, each on a connection of its own (so several intake
   * processes take a job's witnesses); every file is opened before a byte is sent, and closed once
   * all have settled. */
  #uploadAll(key: string, ws: readonly UploadSource[]): Promise<string[]> {
    return withUploadBodies(ws, 'witness', async (bodies) => {
      const ups = await Promise.allSettled(bodies.map((b) => this.#upload(key, b)));
      const failed = ups.find((u) => u.status === 'rejected');
      if (failed) throw failed.reason;
      return ups.map((u) => (u as PromiseFulfilledResult<string>).value);
    });
  }

  async #call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw errorFromRpc(err, this.address);
    }
  }

  /** Small witness bytes go inline; if any witness is large or a file, all are uploaded first. */
  async #request(req: SubmitRequest): Promise<SubmitProofRequest> {
    const ws = req.witnesses ?? [];
    const witnessIds: string[] = [...(req.witnessIds ?? [])];
    let inline: Uint8Array[] = [];
    if (ws.every((w): w is Uint8Array => ArrayBuffer.isView(w) && w.length <= this.#inlineMax)) inline = ws;
    else witnessIds.push(...(await this.#uploadAll(req.key, ws)));
    return create(SubmitProofRequestSchema, {
      key: req.key,
      witnesses: inline,
      witnessIds,
      witnessFiles: req.witnessFiles ?? [],
      inputs: (req.inputs ?? []) as SubmitProofRequest['inputs'],
      generator: req.generator ?? '',
      wasm: req.wasm ?? '',
      priority: priorityToProto(req.priority),
      requestId: req.requestId ?? '',
      deadlineMs: BigInt(req.deadlineMs ?? 0),
    });
  }

  /** Streams one .wtns (bytes, or `{ file }` on this machine, read from disk as it is sent) to the
   * daemon for a later submit({ witnessIds }); it is checked against `key` from its header and kept
   * for the daemon's limits.upload_ttl_s. A file that cannot be opened is E_INVALID_ARG, before
   * anything is sent. */
  uploadWitness(key: string, wtns: UploadSource): Promise<string> {
    return this.#call(async () => (await this.#uploadAll(key, [wtns]))[0]!);
  }

  /** Queues a job (journaled on the daemon before this resolves). Throws E_OVERLOADED when the queue is full. */
  submit(req: SubmitRequest): Promise<{ job: JobInfo; deduplicated: boolean }> {
    return this.#call(async () => {
      const r = await this.#rpc.submitProof(await this.#request(req));
      return { job: jobFromProto(r.job!), deduplicated: r.deduplicated };
    });
  }

  /** The job once terminal, or its current state after `timeoutMs` (default: the daemon's max_await_ms). */
  await(jobId: string, timeoutMs?: number): Promise<JobInfo> {
    return this.#call(async () => jobFromProto((await this.#rpc.awaitProof({ jobId, timeoutMs })).job!));
  }

  /** submit + await in one call. */
  prove(req: SubmitRequest, timeoutMs?: number): Promise<JobInfo> {
    return this.#call(async () => jobFromProto((await this.#rpc.prove({ job: await this.#request(req), timeoutMs })).job!));
  }

  cancel(jobId: string): Promise<JobInfo> {
    return this.#call(async () => jobFromProto((await this.#rpc.cancelProof({ jobId })).job!));
  }

  status(): Promise<DaemonStatus> {
    return this.#call(async () => statusFromProto(await this.#rpc.getStatus({})));
  }

  /** Holds the daemon's queue (jobs are accepted and queued, none starts) until resumeQueue(). */
  pauseQueue(): Promise<DaemonStatus> {
    return this.#call(async () => statusFromProto(await this.#rpc.pauseQueue({})));
  }

  resumeQueue(): Promise<DaemonStatus> {
    return this.#call(async () => statusFromProto(await this.#rpc.resumeQueue({})));
  }

  /** Prometheus text. */
  metrics(): Promise<string> {
    return this.#call(async () => (await this.#rpc.getMetrics({})).text);
  }

  /** Chrome/Perfetto trace JSON of the spans that started in the daemon's last `seconds` (1..600). */
  trace(seconds: number): Promise<string> {
    return this.#call(async () => Buffer.from((await this.#rpc.getTrace({ seconds })).traceJson).toString('utf8'));
  }

  /** Registers a key by `path` on the daemon's machine, or uploads one: `zkey` bytes, or `zkeyFile`,
   * a .zkey on this machine read from disk as it is sent (any size, never held whole). An upload is
   * POST /v1/keys on the client's connection, never one LoadKey message (the daemon would hold it
   * whole), within the daemon's limits.max_key_bytes. */
  loadKey(source: { path: string } | { zkey: Uint8Array } | { zkeyFile: string }, id?: string): Promise<KeyInfo> {
    if ('path' in source) return this.#call(async () => keyFromProto(await this.#rpc.loadKey({ source: { case: 'path', value: source.path }, id: id ?? '' })));
    const zkey = 'zkey' in source ? source.zkey : { file: source.zkeyFile };
    return this.#call(() => withUploadBodies([zkey], 'key', ([body]) => (this.#session ? uploadKeyOverH2({ session: this.#session, token: this.#token }, id ?? '', body!) : uploadKeyOverHttp(this.#http, id ?? '', body!))));
  }

  evictKey(id: string): Promise<void> {
    return this.#call(async () => void (await this.#rpc.evictKey({ id })));
  }

  listKeys(): Promise<KeyInfo[]> {
    return this.#call(async () => (await this.#rpc.listKeys({})).keys.map(keyFromProto));
  }

  /** Closes the client's HTTP/2 connection (gRPC; calls in flight fail). Idle, it does not keep the
   * process alive, and a later call opens a new one. */
  close(): void {
    this.#session?.abort();
  }

  /** The job's progress events, ending with its terminal state. */
  async *watch(jobId: string, signal?: AbortSignal): AsyncGenerator<JobEvent> {
    try {
      for await (const e of this.#rpc.watchJob({ jobId }, { signal })) yield eventFromProto(e);
    } catch (err) {
      throw errorFromRpc(err, this.address);
    }
  }
}
