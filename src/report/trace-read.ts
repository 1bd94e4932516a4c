// Reads a Chrome/Perfetto trace (the JSON that SpanRecorder.traceJson() writes: "X" complete events
// on named threads, the queue as "b"/"e" async pairs) back into spans on named tracks. Anything that
// is not such a trace is one FormatError naming the file and what is wrong, never a crash.
import { readFileSync, statSync } from 'node:fs';
import { errorMessage, FormatError, InputError } from '../errors.js';

/** One interval on a track, in ms from the trace's time origin. */
export interface TraceSpan {
  name: string;
  track: string;
  start: number;
  end: number;
  job?: string;
  bytes?: number;
  args: Record<string, unknown>;
}

/** JSON.parse holds the whole text as one string: V8's string limit is ~512 MiB. */
const MAX_TRACE_BYTES = 512 * 1024 * 1024;

type RawEvent = Record<string, unknown>;

export function readTraceFile(file: string): TraceSpan[] {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new InputError('E_INVALID_ARG', `${file}: not a regular file`);
    size = st.size;
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError('E_NOT_FOUND', `${file}: cannot read the trace (${(err as NodeJS.ErrnoException).code ?? String(err)})`, { cause: err });
  }
  if (size > MAX_TRACE_BYTES) throw new FormatError(`${file}: trace of ${size} bytes is over the ${MAX_TRACE_BYTES} byte limit`);
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    // V8's message can quote the text, newlines included: keep the error one line
    throw new FormatError(`${file}: not JSON (${errorMessage(err).replace(/\s+/g, ' ').slice(0, 200)})`, { cause: err });
  }
  return parseTrace(doc, file);
}

/** Spans of a parsed trace document (an object with `traceEvents`, or the bare array form). */
export function parseTrace(doc: unknown, file: string): TraceSpan[] {
  const events = Array.isArray(doc) ? doc : (doc as { traceEvents?: unknown } | null)?.traceEvents;
  if (!Array.isArray(events)) throw new FormatError(`${file}: not a Chrome trace (no traceEvents array)`);
  const bad = (i: number, what: string) => new FormatError(`${file}: traceEvents[${i}] ${what}`);
  const threadNames = new Map<string, string>();
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as RawEvent;
    if (typeof e !== 'object' || e === null || Array.isArray(e)) throw bad(i, 'is not an object');
    if (typeof e.ph !== 'string') throw bad(i, 'has no "ph" phase string');
    if (e.ph === 'M' && e.name === 'thread_name') {
      const name = (e.args as { name?: unknown } | undefined)?.name;
      if (typeof name === 'string') threadNames.set(`${String(e.pid)}/${String(e.tid)}`, name);
    }
  }
  const trackOf = (e: RawEvent) => threadNames.get(`${String(e.pid)}/${String(e.tid)}`) ?? `tid ${String(e.tid)}`;
  const num = (e: RawEvent, i: number, key: string): number => {
    const v = e[key];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw bad(i, `("${String(e.name)}") has no numeric "${key}"`);
    return v;
  };

  const spans: TraceSpan[] = [];
  const open = new Map<string, { e: RawEvent; ts: number }>();
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as RawEvent;
    if (e.ph === 'X') {
      const ts = num(e, i, 'ts');
      const dur = num(e, i, 'dur');
      if (dur < 0) throw bad(i, `("${String(e.name)}") has a negative duration`);
      spans.push(span(e, trackOf(e), ts, ts + dur));
    } else if (e.ph === 'b' || e.ph === 'e') {
      const key = `${String(e.cat)}/${String(e.id)}/${String(e.name)}`;
      const ts = num(e, i, 'ts');
      if (e.ph === 'b') open.set(key, { e, ts });
      else {
        const b = open.get(key);
        if (!b) continue; // its begin fell out of the recorder's ring
        open.delete(key);
        spans.push(span(b.e, trackOf(b.e), b.ts, Math.max(ts, b.ts)));
      }
    }
  }
  if (spans.length === 0) throw new FormatError(`${file}: empty trace (no "X" spans or "b"/"e" pairs in ${events.length} events)`);
  return spans;
}

function span(e: RawEvent, track: string, tsUs: number, endUs: number): TraceSpan {
  const args = (typeof e.args === 'object' && e.args !== null ? e.args : {}) as Record<string, unknown>;
  const s: TraceSpan = { name: typeof e.name === 'string' ? e.name : '(unnamed)', track, start: tsUs / 1000, end: endUs / 1000, args };
  if (typeof args.job === 'string') s.job = args.job;
  else if (typeof e.id === 'string') s.job = e.id;
  if (typeof args.bytes === 'number' && Number.isFinite(args.bytes)) s.bytes = args.bytes;
  return s;
}
