// The daemon's logs: pino JSON lines on stderr (or a given stream). Job lines come from
// `jobLogger(id)`, a child logger, so every line about a job carries its `jobId`.
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, dest?: DestinationStream): Logger {
  return pino({ level, base: { pid: process.pid, name: 'cuzk' }, timestamp: pino.stdTimeFunctions.isoTime }, dest ?? pino.destination({ fd: 2, sync: false }));
}
