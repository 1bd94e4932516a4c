// Every `cuzk serve` option once: its TOML key, its flag, its type, its default and what it does.
// config.ts reads TOML and flags through this table, `--print-config` and `cuzk serve --help` print
// it, and a test checks each option has a reader. One import of no imports (the budget's default
// shares), so the CLI parser can load it cheaply.
import { DEFAULT_SHARES, percent } from '../../engine/memory-shares.js';

export interface OptionDef {
  /** camelCase name in ServeConfig. */
  name: string;
  /** Dotted TOML key (section.key). */
  toml: string;
  flag: string;
  type: 'string' | 'int' | 'bool' | 'list';
  default: string | number | boolean | string[];
  doc: string;
  /** Bounds of an int (inclusive; defaults 0 and Number.MAX_SAFE_INTEGER): timers stay within what
   * setTimeout keeps (2^31 - 1 ms; longer ones fire at once), counts within what the engine can hold. */
  min?: number;
  max?: number;
}

/** The longest delay a Node.js timer keeps (longer ones fire after 1 ms). */
export const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_TIMER_S = Math.floor(MAX_TIMER_MS / 1000);
/** One message's bytes: what the RPC library's length prefix can carry. */
const MAX_MESSAGE = 2 ** 32 - 1;

const MiB = 1024 * 1024;

export const OPTIONS: readonly OptionDef[] = [
  { name: 'listen', toml: 'listen', flag: 'listen', type: 'string', default: '127.0.0.1:9820', doc: 'host:port, or unix:/path/to.sock; a non-loopback address needs a token' },
  { name: 'token', toml: 'token', flag: 'token', type: 'string', default: '', doc: 'bearer token clients must send (also $CUZK_TOKEN); required off loopback' },
  { name: 'tokenFile', toml: 'token_file', flag: 'token-file', type: 'string', default: '', doc: 'read the token from this file instead' },
  { name: 'tlsCert', toml: 'tls.cert', flag: 'tls-cert', type: 'string', default: '', doc: 'PEM certificate chain: serve TLS (HTTP/2 and HTTP/1.1 by ALPN)' },
  { name: 'tlsKey', toml: 'tls.key', flag: 'tls-key', type: 'string', default: '', doc: 'PEM private key of tls.cert' },
  { name: 'tlsClientCa', toml: 'tls.client_ca', flag: 'tls-client-ca', type: 'string', default: '', doc: 'PEM CA: require client certificates it signed (mTLS; stands in for the token)' },
  { name: 'dataDir', toml: 'data_dir', flag: 'data-dir', type: 'string', default: '~/.cuzk', doc: 'journal (journal.sqlite) and uploaded keys (keys/)' },
  { name: 'storeUrl', toml: 'store.url', flag: 'store', type: 'string', default: '', doc: 'postgres://USER@HOST:PORT/DB: journal jobs in PostgreSQL, a queue daemons on one database share (the password from $PGPASSWORD, ~/.pgpass or the URL; not in a --store flag: the command line is readable by every local user, and serve warns); empty: <data_dir>/journal.sqlite' },
  { name: 'leaseMs', toml: 'store.lease_ms', flag: 'lease-ms', type: 'int', default: 30_000, doc: 'with a PostgreSQL store: a claimed job is this daemon\'s for this long, renewed by heartbeats every third of it; a dead daemon\'s jobs are requeued this long after its last heartbeat (at least 1000)', min: 1000, max: MAX_TIMER_MS },
  { name: 'storePoolSize', toml: 'store.pool_size', flag: 'store-pool-size', type: 'int', default: 6, doc: 'with a PostgreSQL store: connections this daemon keeps to it (plus one for LISTEN unless notices are off); N daemons need N x (pool_size + 1) of the server\'s max_connections', min: 1, max: 65535 },
  { name: 'storeNotify', toml: 'store.notify', flag: 'store-notify', type: 'string', default: 'auto', doc: 'with a PostgreSQL store: auto (a probe at start: LISTEN/NOTIFY if a notification comes back) | on | off (no LISTEN connection, no pg_notify: idle daemons claim by their 1 s timer, cancels and job ends reach other daemons by a store read once a second; for CockroachDB, or YugabyteDB without LISTEN/NOTIFY)' },
  { name: 'advertise', toml: 'store.advertise', flag: 'advertise', type: 'string', default: '', doc: 'with a PostgreSQL store: host:port at which the other daemons reach this one (they fetch the witnesses spooled here over it, with the token); empty: the address it listens on, which must then not be 0.0.0.0 or ::' },
  { name: 'witnessWaitMs', toml: 'store.witness_wait_ms', flag: 'witness-wait-ms', type: 'int', default: 30_000, doc: 'with a PostgreSQL store: how long a claimed job\'s witnesses are retried from the daemon that spooled them before the job ends failed (E_UNAVAILABLE)', min: 0, max: MAX_TIMER_MS },
  { name: 'keyDirs', toml: 'files.key_dirs', flag: 'key-dirs', type: 'list', default: [], doc: 'directories whose .zkey files clients may name by path (LoadKey, a job\'s key); empty: <data_dir>/keys' },
  { name: 'inputDirs', toml: 'files.input_dirs', flag: 'input-dirs', type: 'list', default: [], doc: 'directories whose files clients may name by path (a job\'s circuit wasm); empty: <data_dir>/inputs' },
  { name: 'spoolDir', toml: 'files.spool_dir', flag: 'spool-dir', type: 'string', default: '', doc: 'where uploaded witnesses are written and fsynced until their job ends; empty: <data_dir>/spool. The durable intake rate is this disk\'s write rate: put it on the fastest one (a tmpfs, e.g. /dev/shm/cuzk, trades durability across a reboot for memory speed). A folder of this daemon\'s own: created 0700, an existing one must be its user\'s and closed to others' },
  { name: 'logLevel', toml: 'log_level', flag: 'log-level', type: 'string', default: 'info', doc: 'debug | info | warn | error | silent (also $CUZK_LOG; JSON lines on stderr)' },
  { name: 'maxMessageBytes', toml: 'limits.max_message_bytes', flag: 'max-message-bytes', type: 'int', default: 256 * MiB, doc: 'largest request or response message (witnesses, uploaded keys)', min: 1, max: MAX_MESSAGE },
  { name: 'maxJobBytes', toml: 'limits.max_job_bytes', flag: 'max-job-bytes', type: 'int', default: 0, doc: 'largest total witness (or inputs) bytes of one job; 0 = follow the keys: every witness must be its key\'s size exactly (checked from its header), so a job of any loaded key\'s witnesses is accepted, up to engine.max_partitions of them (inline witnesses and inputs stay within limits.max_message_bytes)', min: 0 },
  { name: 'maxKeyBytes', toml: 'limits.max_key_bytes', flag: 'max-key-bytes', type: 'int', default: 256 * MiB, doc: 'largest uploaded .zkey: POST /v1/keys (the SDK\'s and `cuzk keys load --upload-key`\'s road) streams it to disk, at any size; LoadKey with the bytes in its message is also held to limits.max_message_bytes', min: 1 },
  { name: 'uploadTtlS', toml: 'limits.upload_ttl_s', flag: 'upload-ttl-s', type: 'int', default: 600, doc: 'an uploaded witness (UploadWitness, POST /v1/witnesses) no job names within this many seconds is deleted', min: 1, max: MAX_TIMER_S },
  { name: 'maxAwaitMs', toml: 'limits.max_await_ms', flag: 'max-await-ms', type: 'int', default: 300_000, doc: 'longest an AwaitProof/Prove call waits before returning the current state', min: 0, max: MAX_TIMER_MS },
  { name: 'retentionS', toml: 'jobs.result_retention_s', flag: 'result-retention-s', type: 'int', default: 86_400, doc: 'finished results stay fetchable this long', min: 1, max: MAX_TIMER_S },
  { name: 'drainTimeoutMs', toml: 'jobs.drain_timeout_ms', flag: 'drain-timeout-ms', type: 'int', default: 30_000, doc: 'on SIGTERM, how long running proofs may finish before they are requeued', min: 0, max: MAX_TIMER_MS },
  { name: 'takeover', toml: 'jobs.takeover', flag: 'takeover', type: 'bool', default: false, doc: 'a daemon already running on this data dir is sent SIGTERM (it drains) and this one starts when its journal is free' },
  { name: 'takeoverTimeoutS', toml: 'jobs.takeover_timeout_s', flag: 'takeover-timeout-s', type: 'int', default: 120, doc: 'with takeover: how long to wait for the old daemon to drain and release the journal', min: 0, max: MAX_TIMER_S },
  { name: 'preload', toml: 'jobs.preload_keys', flag: 'preload-key', type: 'list', default: [], doc: '.zkey paths loaded at start (id = path; allowed outside key_dirs); comma-separated as a flag' },
  { name: 'backend', toml: 'engine.backend', flag: 'backend', type: 'string', default: 'auto', doc: 'auto (CUDA when a GPU is present) | cpu | cuda' },
  { name: 'threads', toml: 'engine.threads', flag: 'threads', type: 'int', default: 0, doc: 'CPU threads (0 = all cores)', min: 0, max: 4096 },
  { name: 'maxQueue', toml: 'engine.max_queue', flag: 'max-queue', type: 'int', default: 1024, doc: 'queued jobs beyond this are refused (RESOURCE_EXHAUSTED / HTTP 429)', min: 1, max: 10000000 },
  { name: 'maxPartitions', toml: 'engine.max_partitions', flag: 'max-partitions', type: 'int', default: 64, doc: 'witnesses per job beyond this are refused', min: 1, max: 65536 },
  { name: 'verify', toml: 'engine.verify', flag: 'verify', type: 'bool', default: true, doc: 'verify every proof before returning it' },
  { name: 'pinned', toml: 'engine.pinned', flag: 'pinned', type: 'bool', default: true, doc: 'pinned host memory pool (CUDA)' },
  { name: 'memoryHost', toml: 'engine.memory_host_bytes', flag: 'memory-host-bytes', type: 'int', default: 0, doc: `host memory budget (0 = ${percent(DEFAULT_SHARES.host)} of RAM)` },
  { name: 'memoryPinned', toml: 'engine.memory_pinned_bytes', flag: 'memory-pinned-bytes', type: 'int', default: 0, doc: `pinned memory budget (0 = ${percent(DEFAULT_SHARES.pinned)} of RAM)` },
  { name: 'memoryWaitS', toml: 'engine.memory_wait_s', flag: 'memory-wait-s', type: 'int', default: 120, doc: 'a configured (non-zero) host or pinned budget above MemAvailable is waited for this long at start, progress logged (a stopped daemon\'s pinned memory returns as the driver frees it); 0 = do not wait; default budgets never wait', min: 0, max: MAX_TIMER_S },
  { name: 'memoryWaitPolicy', toml: 'engine.memory_wait_policy', flag: 'memory-wait-policy', type: 'string', default: 'start', doc: 'when the wait ends short: start (budgets lowered to what is available, logged) | exit (exit 2 naming the budget)' },
  { name: 'pinnedPoolBytes', toml: 'engine.pinned_pool_bytes', flag: 'pinned-pool-bytes', type: 'int', default: 0, doc: 'pinned pool size, grown in the background after start in chunks (within the pinned budget): proofs find their buffers pinned already; ready once the first chunk is in; 0 = buffers pinned on demand, on a proof\'s path' },
  { name: 'pinnedChunkBytes', toml: 'engine.pinned_chunk_bytes', flag: 'pinned-chunk-bytes', type: 'int', default: 1 << 30, doc: 'bytes pinned per background step (at least one proof\'s buffers; ~0.5-0.8 s/GiB on an H200 host)', min: 1048576 },
  { name: 'memoryGpu', toml: 'engine.memory_gpu_bytes', flag: 'memory-gpu-bytes', type: 'int', default: 0, doc: `per-GPU memory budget (0 = ${percent(DEFAULT_SHARES.gpu)} of each GPU)` },
  { name: 'keyIdleMs', toml: 'engine.key_idle_ms', flag: 'key-idle-ms', type: 'int', default: 0, doc: 'evict keys idle this long (0 = only under memory pressure)', min: 0, max: MAX_TIMER_MS },
  { name: 'tracePath', toml: 'engine.trace_path', flag: 'trace-path', type: 'string', default: '', doc: 'write a Perfetto trace of every span here on shutdown' },
  { name: 'witnessSlots', toml: 'witness.slots', flag: 'witness-slots', type: 'int', default: 0, doc: 'witnesses computed at once for jobs with inputs (0 = the sizing rule: cores - 1 with a GPU, cores / 2 on the CPU core alone); each also reserves its memory from the host budget', min: 0, max: 4096 },
  { name: 'witnessWasmWorkers', toml: 'witness.wasm_workers', flag: 'witness-wasm-workers', type: 'int', default: 0, doc: 'of those, wasm witnesses at once (0 = all slots)', min: 0, max: 4096 },
  { name: 'witnessTimeoutMs', toml: 'witness.timeout_ms', flag: 'witness-timeout-ms', type: 'int', default: 300_000, doc: 'one witness longer than this fails its job with E_TIMEOUT (its generator process or wasm worker killed); 0 = no limit', min: 0, max: MAX_TIMER_MS },
  { name: 'witnessMaxAddressSpaceBytes', toml: 'witness.max_address_space_bytes', flag: 'witness-max-address-space-bytes', type: 'int', default: 16 * 1024 * MiB, doc: 'RLIMIT_AS of each native witness generator process (a witness beyond it fails with E_HOST_OOM); 0 = inherit', min: 0 },
  { name: 'headersTimeoutMs', toml: 'limits.headers_timeout_ms', flag: 'headers-timeout-ms', type: 'int', default: 10_000, doc: 'a connection must send a request\'s headers within this, or it is closed (0 = no limit)', min: 0, max: MAX_TIMER_MS },
  { name: 'idleTimeoutMs', toml: 'limits.idle_timeout_ms', flag: 'idle-timeout-ms', type: 'int', default: 60_000, doc: 'a connection with no request in flight is closed after this (0 = never)', min: 0, max: MAX_TIMER_MS },
  { name: 'maxConnections', toml: 'limits.max_connections', flag: 'max-connections', type: 'int', default: 512, doc: 'open connections beyond this are closed at once (0 = no limit)', min: 0, max: 1000000 },
  { name: 'maxStreams', toml: 'limits.max_streams_per_connection', flag: 'max-streams-per-connection', type: 'int', default: 100, doc: 'concurrent HTTP/2 streams (RPCs) one connection may open', min: 1, max: 10000 },
  { name: 'bodyTimeoutMs', toml: 'limits.body_timeout_ms', flag: 'body-timeout-ms', type: 'int', default: 30_000, doc: 'a request body (an upload\'s included) with no byte for this long is ended: the HTTP/2 stream reset, the HTTP/1.1 connection closed, a partial upload removed (0 = no limit)', min: 0, max: MAX_TIMER_MS },
  { name: 'maxUploadsPerConnection', toml: 'limits.max_uploads_per_connection', flag: 'max-uploads-per-connection', type: 'int', default: 8, doc: 'witness uploads (UploadWitness, POST /v1/witnesses) one connection may have in flight, each holding a spool file; more are refused (RESOURCE_EXHAUSTED / HTTP 429; 0 = no limit)', min: 0, max: 1000000 },
  { name: 'intakeProcesses', toml: 'limits.intake_processes', flag: 'intake-processes', type: 'string', default: 'auto', doc: 'child processes that receive, hash and spool witness uploads (POST /v1/witnesses, the SDK\'s road) off the main event loop, each connection handed over by its first request: auto (three quarters of the cores, 1..16: each is idle between uploads)  | 1..64 | off (the main thread takes every upload; always so with TLS)' },
  { name: 'maxJsonBytes', toml: 'limits.max_json_bytes', flag: 'max-json-bytes', type: 'int', default: 8 * MiB, doc: 'largest request in JSON (Connect JSON, witnesses and keys as base64), decoded on the event loop (~7 ms per MiB): larger go as binary protobuf (gRPC, application/proto) or UploadWitness / POST /v1/witnesses (0 = limits.max_message_bytes)', min: 0, max: MAX_MESSAGE },
];

/** Flags of `cuzk serve` and the remote commands that take a value (for the argv parser). */
export const SERVE_VALUE_FLAGS: readonly string[] = [...OPTIONS.filter((o) => o.type !== 'bool').map((o) => o.flag), 'config'];
