// The one logger: pino JSON lines on stderr (`{"level":30,"time","pid","name":"cuzk",...,"msg"}`), written
// synchronously (nothing lost on exit or crash; a few lines per job), apart from a command's output on stdout.
// Calls are pino-shaped, fields first: `log.info({ jobId }, 'msg')`; job lines carry `jobId`, key lines `keyId`.
// `log` is the process's logger at CUZK_LOG's level (default info); `cuzk serve` sets its log_level on it,
// and the engine logs through `EngineConfig.logger` (default `log`).
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(s: string): s is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(s);
}

/** A logger of the one shape at `level`, to `dest` (default: stderr, synchronous). */
export function createLogger(level: LogLevel, dest?: DestinationStream): Logger {
  return pino({ level, base: { pid: process.pid, name: 'cuzk' }, timestamp: pino.stdTimeFunctions.isoTime }, dest ?? pino.destination({ fd: 2, sync: true }));
}

const fromEnv = process.env.CUZK_LOG || undefined; // set but empty counts as unset

export const log: Logger = createLogger(fromEnv !== undefined && isLogLevel(fromEnv) ? fromEnv : 'info');
if (fromEnv !== undefined && !isLogLevel(fromEnv)) log.warn({ CUZK_LOG: fromEnv }, `CUZK_LOG must be one of ${LOG_LEVELS.join(', ')}: logging at info`);

/** Sets the process logger's level (the CLI's --verbose/--quiet, `cuzk serve`'s log_level). */
export function setLogLevel(level: LogLevel): void {
  log.level = level;
}
