// The daemon's logs: pino JSON lines on stderr, written synchronously (a few lines per job; nothing
// is lost on exit or crash), or to a given stream. Every line about a job carries
// its `jobId` field (job-service.ts), so `jq 'select(.jobId == "...")'` gives a job's history.
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, dest?: DestinationStream): Logger {
  return pino({ level, base: { pid: process.pid, name: 'cuzk' }, timestamp: pino.stdTimeFunctions.isoTime }, dest ?? pino.destination({ fd: 2, sync: true }));
}
