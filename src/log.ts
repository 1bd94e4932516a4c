// Structured logging: one JSON object per line on stderr, so logs can be parsed by machines and
// kept apart from a command's real output on stdout. Level from CUZK_LOG (debug|info|warn|error|silent).

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

let threshold: LogLevel = (process.env.CUZK_LOG as LogLevel | undefined) ?? 'info';
if (!(threshold in ORDER)) threshold = 'info';

export function setLogLevel(level: LogLevel): void {
  threshold = level;
}

function emit(level: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>): void {
  if (ORDER[level] < ORDER[threshold]) return;
  const line = { time: new Date().toISOString(), level, msg, ...fields };
  process.stderr.write(JSON.stringify(line, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) + '\n');
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => emit('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => emit('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => emit('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => emit('error', msg, fields),
};
