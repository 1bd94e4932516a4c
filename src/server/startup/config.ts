// `cuzk serve` configuration: defaults, then the TOML file (--config), then flags, each checked
// against config-options.ts (unknown keys and wrong types are errors naming the key). Zero config
// serves on 127.0.0.1 and leaves memory and devices to the engine's detection.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { errorMessage, InputError } from '../../errors.js';
import type { EngineConfig } from '../../engine/api.js';
import { isLogLevel, LOG_LEVELS, type LogLevel } from '../../log.js';
import { OPTIONS, type OptionDef } from './config-options.js';
import { parseStoreUrl, redactUrl } from '../journal/pg-faults.js';
import type { NotifyMode } from '../fleet/pg-notify.js';

export interface ServeConfig {
  listen: string;
  token: string;
  tokenFile: string;
  tlsCert: string;
  tlsKey: string;
  tlsClientCa: string;
  dataDir: string;
  storeUrl: string;
  leaseMs: number;
  storePoolSize: number;
  storeNotify: NotifyMode;
  advertise: string;
  witnessWaitMs: number;
  keyDirs: string[];
  inputDirs: string[];
  spoolDir: string;
  logLevel: LogLevel;
  maxMessageBytes: number;
  maxJobBytes: number;
  maxKeyBytes: number;
  uploadTtlS: number;
  maxAwaitMs: number;
  retentionS: number;
  drainTimeoutMs: number;
  takeover: boolean;
  takeoverTimeoutS: number;
  preload: string[];
  backend: string;
  threads: number;
  maxQueue: number;
  maxPartitions: number;
  verify: boolean;
  pinned: boolean;
  memoryHost: number;
  memoryPinned: number;
  pinnedPoolBytes: number;
  pinnedChunkBytes: number;
  memoryGpu: number;
  memoryWaitS: number;
  memoryWaitPolicy: 'start' | 'exit';
  keyIdleMs: number;
  tracePath: string;
  witnessSlots: number;
  witnessWasmWorkers: number;
  witnessTimeoutMs: number;
  witnessMaxAddressSpaceBytes: number;
  headersTimeoutMs: number;
  idleTimeoutMs: number;
  maxConnections: number;
  maxStreams: number;
  bodyTimeoutMs: number;
  maxUploadsPerConnection: number;
  maxJsonBytes: number;
  intakeProcesses: string;
}

export function defaultConfig(): ServeConfig {
  return Object.fromEntries(OPTIONS.map((o) => [o.name, Array.isArray(o.default) ? [...o.default] : o.default])) as unknown as ServeConfig;
}

/** An int option's inclusive bounds (config-options.ts). */
export const intBounds = (o: OptionDef): [number, number] => [o.min ?? 0, o.max ?? Number.MAX_SAFE_INTEGER];

function coerce(o: OptionDef, v: unknown, where: string): unknown {
  const bad = (want: string) => new InputError('E_INVALID_ARG', `${where}: ${o.toml} must be ${want}, got ${JSON.stringify(v)}`);
  switch (o.type) {
    case 'string':
      if (typeof v !== 'string') throw bad('a string');
      return v;
    case 'int': {
      const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : typeof v === 'bigint' ? Number(v) : v;
      const [min, max] = intBounds(o);
      if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min || n > max) throw bad(`an integer ${min}..${max}`);
      return n;
    }
    case 'bool':
      if (v === true || v === 'true') return true;
      if (v === false || v === 'false') return false;
      throw bad('true or false');
    case 'list':
      if (typeof v === 'string') return v.split(',').filter(Boolean);
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw bad('a list of strings');
      return v;
  }
}

function fromToml(file: string, cfg: ServeConfig): void {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (cause) {
    throw new InputError('E_INVALID_ARG', `${file}: ${errorMessage(cause).split('\n')[0]}`, { cause });
  }
  const flat = new Map<string, unknown>();
  const walk = (obj: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(obj)) {
      const key = prefix + k;
      if (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)) walk(v as Record<string, unknown>, key + '.');
      else flat.set(key, v);
    }
  };
  walk(doc, '');
  for (const [key, v] of flat) {
    const o = OPTIONS.find((x) => x.toml === key);
    if (!o) throw new InputError('E_INVALID_ARG', `${file}: unknown option "${key}" (run \`cuzk serve --help\` for the list)`);
    (cfg as unknown as Record<string, unknown>)[o.name] = coerce(o, v, file);
  }
}

/** Effective configuration: defaults < TOML file < $CUZK_TOKEN, $CUZK_LOG < flags. */
export function loadServeConfig(opts: { configPath?: string; flags?: Map<string, string | true>; env?: NodeJS.ProcessEnv } = {}): ServeConfig {
  const cfg = defaultConfig();
  if (opts.configPath) fromToml(opts.configPath, cfg);
  const env = opts.env ?? process.env;
  if (env.CUZK_TOKEN && !opts.flags?.has('token')) cfg.token = env.CUZK_TOKEN;
  // a CUZK_LOG that is no level is left out here: src/log.ts already warned and logs at info
  if (env.CUZK_LOG && isLogLevel(env.CUZK_LOG) && !opts.flags?.has('log-level')) cfg.logLevel = env.CUZK_LOG;
  for (const o of OPTIONS) {
    const v = opts.flags?.get(o.flag);
    if (v !== undefined) (cfg as unknown as Record<string, unknown>)[o.name] = coerce(o, v, `--${o.flag}`);
  }
  if (cfg.tokenFile) {
    try {
      cfg.token = readFileSync(cfg.tokenFile, 'utf8').trim();
    } catch (cause) {
      throw new InputError('E_INVALID_ARG', `token_file ${cfg.tokenFile}: cannot read (${(cause as NodeJS.ErrnoException).code ?? cause})`, { cause });
    }
  }
  if (Boolean(cfg.tlsCert) !== Boolean(cfg.tlsKey)) throw new InputError('E_INVALID_ARG', 'tls.cert and tls.key go together: set both or neither');
  if (cfg.tlsClientCa && !cfg.tlsCert) throw new InputError('E_INVALID_ARG', 'tls.client_ca (mTLS) needs tls.cert and tls.key');
  const home = (p: string) => p.replace(/^~(?=$|\/)/, os.homedir());
  cfg.dataDir = home(cfg.dataDir);
  cfg.keyDirs = (cfg.keyDirs.length > 0 ? cfg.keyDirs : [path.join(cfg.dataDir, 'keys')]).map((d) => path.resolve(home(d)));
  cfg.inputDirs = (cfg.inputDirs.length > 0 ? cfg.inputDirs : [path.join(cfg.dataDir, 'inputs')]).map((d) => path.resolve(home(d)));
  cfg.spoolDir = path.resolve(home(cfg.spoolDir || path.join(cfg.dataDir, 'spool')));
  if (!['auto', 'cpu', 'cuda'].includes(cfg.backend)) throw new InputError('E_INVALID_ARG', `backend must be auto, cpu or cuda, got "${cfg.backend}"`);
  if (!['start', 'exit'].includes(cfg.memoryWaitPolicy)) throw new InputError('E_INVALID_ARG', `engine.memory_wait_policy must be start or exit, got "${cfg.memoryWaitPolicy}"`);
  if (!isLogLevel(cfg.logLevel)) throw new InputError('E_INVALID_ARG', `log_level must be one of ${LOG_LEVELS.join(', ')}, got "${cfg.logLevel}"`);
  if (cfg.storeUrl) parseStoreUrl(cfg.storeUrl);
  const intake = cfg.intakeProcesses;
  if (!(intake === 'auto' || intake === 'off' || (/^\d+$/.test(intake) && Number(intake) >= 1 && Number(intake) <= 64))) throw new InputError('E_INVALID_ARG', `limits.intake_processes must be auto, off or 1..64, got "${intake}"`);
  if (!['auto', 'on', 'off'].includes(cfg.storeNotify)) throw new InputError('E_INVALID_ARG', `store.notify must be auto, on or off, got "${cfg.storeNotify}"`);
  if (cfg.advertise && !/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(cfg.advertise)) throw new InputError('E_INVALID_ARG', `store.advertise must be host:port (how the other daemons reach this one), got "${cfg.advertise}"`);
  return cfg;
}

export function journalPath(cfg: ServeConfig): string {
  return path.join(cfg.dataDir, 'journal.sqlite');
}

/** Where uploaded keys are stored (<data_dir>/keys/<sha256>.zkey), whatever key_dirs says. */
export function uploadedKeysDir(cfg: Pick<ServeConfig, 'dataDir'>): string {
  return path.join(cfg.dataDir, 'keys');
}

/** Where native generators write the witnesses they compute (<data_dir>/witness-gen): private data,
 * each file deleted once its proof has read it, the folder emptied at start (a killed daemon's). */
export function generatedWitnessDir(cfg: Pick<ServeConfig, 'dataDir'>): string {
  return path.join(cfg.dataDir, 'witness-gen');
}

export function toEngineConfig(cfg: ServeConfig): EngineConfig {
  const memory: EngineConfig['memory'] = {};
  if (cfg.memoryHost) memory.host = cfg.memoryHost;
  if (cfg.memoryPinned) memory.pinned = cfg.memoryPinned;
  if (cfg.memoryGpu) memory.gpu = cfg.memoryGpu;
  return {
    backend: cfg.backend as EngineConfig['backend'],
    threads: cfg.threads,
    memory,
    pinned: cfg.pinned,
    pinnedPool: { targetBytes: cfg.pinnedPoolBytes, chunkBytes: cfg.pinnedChunkBytes },
    maxQueue: cfg.maxQueue,
    maxPartitions: cfg.maxPartitions,
    verify: cfg.verify,
    keyIdleMs: cfg.keyIdleMs,
    tracePath: cfg.tracePath || undefined,
    witness: {
      ...(cfg.witnessSlots ? { slots: cfg.witnessSlots } : {}),
      ...(cfg.witnessWasmWorkers ? { wasmWorkers: cfg.witnessWasmWorkers } : {}),
      timeoutMs: cfg.witnessTimeoutMs,
      maxAddressSpaceBytes: cfg.witnessMaxAddressSpaceBytes,
      dir: generatedWitnessDir(cfg),
    },
  };
}

/** The effective configuration as a TOML file (the token and the store's password redacted). */
export function printConfig(cfg: ServeConfig): string {
  const doc: Record<string, Record<string, unknown>> = { '': {} };
  for (const o of OPTIONS) {
    let v = (cfg as unknown as Record<string, unknown>)[o.name];
    if (o.name === 'token' && v) v = '<redacted>';
    if (o.name === 'storeUrl' && v) v = redactUrl(String(v));
    const [section, key] = o.toml.includes('.') ? o.toml.split('.') as [string, string] : ['', o.toml];
    (doc[section] ??= {})[key] = v;
  }
  const { '': top, ...sections } = doc;
  return `# cuzk serve: effective configuration\n${stringifyToml({ ...top, ...sections })}\n`;
}

/** `cuzk serve --help` text for every option. */
export function optionsHelp(): string {
  const range = (o: OptionDef) => (o.type === 'int' ? `; ${intBounds(o)[0]}..${o.max ?? 'any'}` : '');
  return OPTIONS.map((o) => `  --${o.flag.padEnd(22)} ${o.toml.padEnd(26)} ${o.doc} (default: ${JSON.stringify(o.default)}${range(o)})`).join('\n');
}
