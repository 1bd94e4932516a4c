// CLI output: results on stdout (JSON with --json), progress and notes on stderr, errors as one line
// with the code and what to do next, exit statuses from the error code.
import { accessSync, constants, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CuzkError, errorMessage, InputError } from '../errors.js';

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether `err` is a terminal: progress is drawn only there. */
  readonly errIsTTY?: boolean;
}

export const PROCESS_IO: CliIo = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
  get errIsTTY() {
    return process.stderr.isTTY === true;
  },
};

const drawsProgress = (ctx: CliContext) => ctx.io.errIsTTY === true && !ctx.json && !ctx.quiet;

export interface CliContext {
  json: boolean;
  verbose: boolean;
  quiet: boolean;
  io: CliIo;
}

/** Exit statuses: 0 ok, 1 failed (or proof invalid; or over a daemon's limit, E_LIMIT: not the input's fault), 2 bad input. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof CuzkError && ['E_INVALID_ARG', 'E_FORMAT', 'E_NOT_FOUND'].includes(err.code)) return 2;
  return 1;
}

export function reportError(err: unknown, ctx: CliContext): void {
  if (err instanceof CuzkError) {
    ctx.io.err(`cuzk: ${err.code}: ${err.message}\n`);
  } else {
    ctx.io.err(`cuzk: E_INTERNAL: ${errorMessage(err)} (a bug: please report it with --verbose output)\n`);
  }
  if (ctx.verbose && err instanceof Error) {
    ctx.io.err(`${err.stack ?? ''}\n`);
    if (err.cause) ctx.io.err(`cause: ${err.cause instanceof Error ? err.cause.stack : String(err.cause)}\n`);
  }
}

export function note(ctx: CliContext, text: string): void {
  if (!ctx.quiet && !ctx.json) ctx.io.err(`${text}\n`);
}

/** A one-line progress bar on a terminal; silent when stderr is not a TTY or with --json/--quiet. */
export function progress(ctx: CliContext): (phase: string, done: number, total: number) => void {
  const tty = drawsProgress(ctx);
  let last = 0;
  return (phase, done, total) => {
    if (!tty) return;
    const now = Date.now();
    if (done < total && now - last < 100) return;
    last = now;
    const pct = total > 0 ? Math.floor((100 * done) / total) : 100;
    const width = 24;
    const bar = '#'.repeat(Math.round((width * pct) / 100)).padEnd(width, '.');
    ctx.io.err(`\r${phase.padEnd(18)} [${bar}] ${String(pct).padStart(3)}%${done >= total ? '\n' : ''}`);
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * One live line on a terminal for a long command: the phases so far with their times, then the
 * current one with its elapsed time (and percentage when it reports one), redrawn every 250 ms and
 * cleared at the end (the result line says the totals). Silent off a TTY and with --json/--quiet.
 */
export class PhaseLine {
  readonly #ctx: CliContext;
  readonly #tty: boolean;
  readonly #done: string[] = [];
  #current: { name: string; t0: number; pct?: number } | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(ctx: CliContext) {
    this.#ctx = ctx;
    this.#tty = drawsProgress(ctx);
  }

  /** Ends the current phase (its time joins the line) and starts `name`. */
  phase(name: string): void {
    if (!this.#tty) return;
    this.#close();
    this.#current = { name, t0: performance.now() };
    this.#draw();
    this.#timer ??= setInterval(() => this.#draw(), 250).unref();
  }

  /** Progress of the current phase (the key-load callback's shape). */
  readonly progress = (_phase: string, done: number, total: number): void => {
    if (!this.#current) return;
    this.#current.pct = total > 0 ? Math.floor((100 * done) / total) : 100;
  };

  /** Stops the clock and clears the line. Idempotent. */
  end(): void {
    this.#close();
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#current) this.#ctx.io.err('\r\x1b[K');
    this.#current = undefined;
  }

  #close(): void {
    if (this.#current) this.#done.push(`${this.#current.name} ${seconds(performance.now() - this.#current.t0)}`);
  }

  #draw(): void {
    const c = this.#current;
    if (!c) return;
    const now = `${c.name}${c.pct !== undefined ? ` ${c.pct}%` : ''} ${seconds(performance.now() - c.t0)}...`;
    this.#ctx.io.err(`\r\x1b[K${[...this.#done, now].join(' | ')}`);
  }
}

export function printResult(ctx: CliContext, result: Record<string, unknown>, human: string): void {
  if (ctx.json) ctx.io.out(JSON.stringify(result, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) + '\n');
  else if (!ctx.quiet) ctx.io.out(human + '\n');
}

const ioError = (file: string, what: string, cause: unknown) =>
  new InputError('E_INVALID_ARG', `${file}: cannot write the ${what} (${(cause as NodeJS.ErrnoException).code ?? String(cause)}${(cause as NodeJS.ErrnoException).code === 'ENOENT' ? `: no directory ${path.dirname(path.resolve(file))}` : ''})`, { cause });

/**
 * Throws E_INVALID_ARG (exit 2) for the first output file that cannot be written: its directory
 * missing or not writable, or the path a directory. Run before the work, so a long proof is not
 * computed for nothing; writeOutput still reports what only the write can find (a full disk).
 */
export function checkOutputPaths(files: Record<string, string>): void {
  for (const [what, file] of Object.entries(files)) {
    try {
      const dir = path.dirname(path.resolve(file));
      if (!statSync(dir).isDirectory()) throw Object.assign(new Error(`${dir} is not a directory`), { code: 'ENOTDIR' });
      accessSync(dir, constants.W_OK);
      const st = statSync(file, { throwIfNoEntry: false });
      if (st?.isDirectory()) throw Object.assign(new Error(`${file} is a directory`), { code: 'EISDIR' });
      if (st) accessSync(file, constants.W_OK);
    } catch (cause) {
      throw ioError(file, what, cause);
    }
  }
}

/** writeFileSync with an I/O error as one line naming the file (E_INVALID_ARG), not an internal error. */
export function writeOutput(file: string, data: string | Uint8Array, what: string): void {
  try {
    writeFileSync(file, data);
  } catch (cause) {
    throw ioError(file, what, cause);
  }
}
