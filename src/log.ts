// The one logger: pino JSON lines on stderr (`{"level":30,"time","pid","name":"cuzk",...,"msg"}`), written
// synchronously (nothing lost on exit or crash; a few lines per job), apart from a command's output on stdout.
// Calls are pino-shaped, fields first: `log.info({ jobId }, 'msg')`; job lines carry `jobId`, key lines `keyId`.
// `log` is the process's logger at CUZK_LOG's level (default info); `cuzk serve` sets its log_level on it,
// and the engine logs through `EngineConfig.logger` (default `log`).
// pino (some 30 CommonJS files, ~25 ms of a `cuzk prove` process) is loaded on the first line `log`
// writes, not at import: a CLI command at its default level `warn` that has nothing to say never loads it.
import { createRequire } from 'node:module';
import type { DestinationStream, Logger } from 'pino';

export type { Logger };

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(s: string): s is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(s);
}

const require = createRequire(import.meta.url);
let pinoModule: typeof import('pino') | undefined;

/** A logger of the one shape at `level`, to `dest` (default: stderr, synchronous). */
export function createLogger(level: LogLevel, dest?: DestinationStream): Logger {
  const { pino } = (pinoModule ??= require('pino') as typeof import('pino'));
  return pino({ level, base: { pid: process.pid, name: 'cuzk' }, timestamp: pino.stdTimeFunctions.isoTime }, dest ?? pino.destination({ fd: 2, sync: true }));
}

// pino's numeric levels, for deciding whether a call writes a line without loading pino
const LEVEL_VALUE: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

/**
 * The process logger: a stand-in that holds the level and drops calls below it; the first call that
 * writes (or any use beyond level and the level methods: child, flush, ...) makes the pino logger
 * and hands everything to it from then on.
 */
function deferredLogger(initial: LogLevel): Logger {
  let level: string = initial;
  let real: Logger | undefined;
  const make = (): Logger => (real ??= createLogger(level as LogLevel));
  const drop = (): void => {};
  return new Proxy({} as Logger, {
    get(_target, prop) {
      if (!real) {
        if (prop === 'level') return level;
        if (prop === 'isLevelEnabled') return (l: string) => (LEVEL_VALUE[l] ?? Infinity) >= (LEVEL_VALUE[level] ?? Infinity);
        if (typeof prop === 'string' && prop in LEVEL_VALUE && prop !== 'silent' && LEVEL_VALUE[prop]! < LEVEL_VALUE[level]!) return drop;
      }
      const target = make();
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set(_target, prop, value) {
      if (!real && prop === 'level') return ((level = value as string), true);
      return Reflect.set(make(), prop, value);
    },
  });
}

const fromEnv = process.env.CUZK_LOG || undefined; // set but empty counts as unset

export const log: Logger = deferredLogger(fromEnv !== undefined && isLogLevel(fromEnv) ? fromEnv : 'info');
if (fromEnv !== undefined && !isLogLevel(fromEnv)) log.warn({ CUZK_LOG: fromEnv }, `CUZK_LOG must be one of ${LOG_LEVELS.join(', ')}: logging at info`);

/** Sets the process logger's level (the CLI's --verbose/--quiet, `cuzk serve`'s log_level). */
export function setLogLevel(level: LogLevel): void {
  log.level = level;
}
