// Witness uploads received beyond the main event loop: child processes (intake-process.ts) to which
// the front door hands each connection whose first request is POST /v1/witnesses. Every byte of a
// witness once crossed the main thread (HTTP framing, a JS callback per socket read, a copy into
// the spool's batches): on 2 cores ~1.3-1.7 ms of it per MiB, a ceiling of ~0.8-0.95 GB/s on the
// H200 machine against the engine's 1.55. Here the main process reads a connection's first bytes,
// answers the upload's checks (WitnessIntake.uploadKey) and keeps the stored file (the spool's
// uploads, claimed by jobs as before); the bytes, hashing and fsync happen in the children.
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type net from 'node:net';
import os from 'node:os';
import { rm } from 'node:fs/promises';
import { errorMessage, errorToWire, ResourceError } from '../../errors.js';
import type { Logger, LogLevel } from '../../log.js';
import type { WitnessIntake } from '../intake/witness-intake.js';
import type { ServeConfig } from '../startup/config.js';
import type { FromIntake, IntakeSettings, IntakeStats, ToIntake } from './intake-wire.js';
import { WITNESS_UPLOAD_PATH } from './upload-http.js';

/** How many intake processes `limits.intake_processes` asks for: auto is three quarters of the cores,
 * at most 16 (16 cores, spool on a tmpfs, 16 clients: 8 processes took in 2.5-2.7 GB/s, 12 2.9-3.2,
 * 16 2.7-3.1; each spends ~3.5-4 ms of CPU a MiB, and sits idle between uploads),
 * at least 1; off is none (the main thread takes every upload, as with TLS, where the main process
 * holds the connection's keys). */
export function intakeProcessCount(cfg: Pick<ServeConfig, 'intakeProcesses' | 'tlsCert'>): number {
  if (cfg.tlsCert || cfg.intakeProcesses === 'off') return 0;
  if (cfg.intakeProcesses === 'auto') return Math.max(1, Math.min(16, Math.floor((os.availableParallelism() * 3) / 4)));
  return Number(cfg.intakeProcesses);
}

const REQUEST_LINE = Buffer.from(`POST ${WITNESS_UPLOAD_PATH}`);

/** A connection's first bytes start a witness upload (POST /v1/witnesses or /v1/witnesses?...). */
export function startsWitnessUpload(head: Uint8Array): boolean {
  if (head.length <= REQUEST_LINE.length) return false;
  const next = head[REQUEST_LINE.length];
  return Buffer.from(head.buffer, head.byteOffset, REQUEST_LINE.length).equals(REQUEST_LINE) && (next === 0x3f || next === 0x20); // '?' or ' '
}

/** /metrics lines of the intake processes (all 0 when there are none: off, or TLS). */
export function intakeMetricsLines(uploads: number, bytes: number, processes: number): string[] {
  return [
    '# HELP cuzk_intake_process_uploads_total Witness uploads received by intake processes (off the main event loop).',
    '# TYPE cuzk_intake_process_uploads_total counter',
    `cuzk_intake_process_uploads_total ${uploads}`,
    '# HELP cuzk_intake_process_bytes_total Witness bytes received by intake processes.',
    '# TYPE cuzk_intake_process_bytes_total counter',
    `cuzk_intake_process_bytes_total ${bytes}`,
    '# HELP cuzk_intake_processes Intake processes running (limits.intake_processes).',
    '# TYPE cuzk_intake_processes gauge',
    `cuzk_intake_processes ${processes}`,
  ];
}

interface Child {
  proc: ChildProcess;
  /** Connections handed to it and not yet closed. */
  open: number;
  /** Uploads it began and has not stored or given up: their files are removed if it dies. */
  begun: Set<string>;
  ready: boolean;
}

export class IntakeProcesses {
  readonly #children: Child[] = [];
  #closing = false;
  #uploads = 0;
  #bytes = 0;

  constructor(
    count: number,
    private readonly intake: WitnessIntake,
    private readonly cfg: ServeConfig,
    private readonly log: Logger,
    /** Told whenever the connections held by the children change (the front door's cap counts them). */
    private readonly onOpenChange: (open: number) => void = () => {},
  ) {
    for (let i = 0; i < count; i++) this.#children.push(this.#start());
  }

  /** Connections the children hold. */
  get open(): number {
    return this.#children.reduce((n, c) => n + c.open, 0);
  }

  /** Uploads stored by the children and their bytes, since start (GetStatus's intake). */
  stats(): IntakeStats {
    return { processes: this.#children.filter((c) => c.ready).length, uploads: this.#uploads, bytes: this.#bytes };
  }

  /** The same, for /metrics. */
  metricsLines(): string[] {
    const s = this.stats();
    return intakeMetricsLines(s.uploads, s.bytes, s.processes);
  }

  #start(): Child {
    const fromSource = import.meta.url.endsWith('.ts');
    const proc = fork(new URL(`./intake-process.${fromSource ? 'ts' : 'js'}`, import.meta.url), [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const child: Child = { proc, open: 0, begun: new Set(), ready: false };
    const settings: IntakeSettings = {
      token: this.cfg.token, headersTimeoutMs: this.cfg.headersTimeoutMs, idleTimeoutMs: this.cfg.idleTimeoutMs, bodyTimeoutMs: this.cfg.bodyTimeoutMs,
      maxConnections: this.cfg.maxConnections, maxStreams: this.cfg.maxStreams, spoolDir: this.intake.spool.dir, logLevel: this.cfg.logLevel as LogLevel,
    };
    proc.send({ op: 'start', settings } satisfies ToIntake);
    proc.on('message', (m: FromIntake) => void this.#onMessage(child, m));
    proc.once('exit', (code, signal) => void this.#onExit(child, code, signal));
    proc.on('error', (err) => this.log.error({ pid: proc.pid, err: errorMessage(err) }, 'intake process: IPC failed'));
    return child;
  }

  async #onMessage(child: Child, m: FromIntake): Promise<void> {
    const reply = (r: Omit<Extract<ToIntake, { op: 'reply' }>, 'op'>) => child.proc.connected && child.proc.send({ op: 'reply', ...r } satisfies ToIntake);
    switch (m.op) {
      case 'ready':
        child.ready = true;
        return;
      case 'begin':
        try {
          const key = await this.intake.uploadKey(m.key, m.size, m.where);
          const id = randomUUID();
          child.begun.add(id);
          // the shape alone: what the writer checks the header against
          reply({ seq: m.seq, id, key: { id: key.id, curve: key.curve, r: key.r, nVars: key.nVars } });
        } catch (err) {
          reply({ seq: m.seq, error: errorToWire(err) });
        }
        return;
      case 'stored':
        if (this.#closing || !child.begun.delete(m.id)) {
          reply({ seq: m.seq, error: errorToWire(new ResourceError('E_UNAVAILABLE', 'uploaded witness: the daemon is stopping')) });
          return void this.#remove(m.id);
        }
        this.intake.spool.register(m.id, { ...m.file, path: this.intake.spool.paths(m.id).final, owned: true });
        this.#uploads++;
        this.#bytes += m.file.size;
        reply({ seq: m.seq });
        return;
      case 'ended':
        child.begun.delete(m.id);
        return this.#remove(m.id);
      case 'closed':
        child.open--;
        this.onOpenChange(this.open);
        return;
    }
  }

  async #remove(id: string): Promise<void> {
    const { final, partial } = this.intake.spool.paths(id);
    await Promise.all([rm(final, { force: true }), rm(partial, { force: true })]);
  }

  async #onExit(child: Child, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    const i = this.#children.indexOf(child);
    if (i >= 0) this.#children.splice(i, 1);
    child.open = 0;
    this.onOpenChange(this.open);
    for (const id of child.begun) await this.#remove(id);
    if (this.#closing) return;
    if (!child.ready) {
      // it never started: starting another would loop; uploads stay with the main thread (handOff finds none)
      this.log.error({ pid: child.proc.pid, code, signal }, 'intake process failed to start: the main thread takes its share of uploads');
      return;
    }
    this.log.error({ pid: child.proc.pid, code, signal, uploadsLost: child.begun.size }, 'intake process exited: its uploads in flight failed; another is started');
    this.#children.push(this.#start());
  }

  /** Hands `socket` (its first bytes `head`, read by the front door) to the least busy child;
   * false when none can take it (the caller serves it itself). */
  handOff(socket: net.Socket, head: Uint8Array): boolean {
    if (this.#closing || !startsWitnessUpload(head)) return false;
    const child = this.#children.filter((c) => c.ready && c.proc.connected).sort((a, b) => a.open - b.open)[0];
    if (!child) return false;
    // nothing more is read here: what the kernel holds goes to the child with the socket (the
    // IPC send drops what this handle would read after), and what was read goes with `head`
    (socket as unknown as { _handle?: { readStop?(): number } })._handle?.readStop?.();
    const rest = socket.readableLength > 0 ? (socket.read() as Buffer | null) : null;
    const bytes = rest ? Buffer.concat([head, rest]) : head;
    child.open++;
    this.onOpenChange(this.open);
    child.proc.send({ op: 'conn', head: bytes } satisfies ToIntake, socket, { keepOpen: false }, (err) => {
      if (!err) return;
      // never reached the child: its count back, the connection dropped (the client retries)
      child.open--;
      this.onOpenChange(this.open);
      socket.destroy();
    });
    return true;
  }

  /** Stops the children: their uploads in flight fail (files removed); stored ones stay with the spool. */
  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all(this.#children.map((c) => new Promise<void>((resolve) => {
      if (c.proc.exitCode !== null || c.proc.signalCode !== null) return resolve();
      const kill = setTimeout(() => c.proc.kill('SIGKILL'), 6000).unref();
      c.proc.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      if (c.proc.connected) c.proc.send({ op: 'stop' } satisfies ToIntake);
      else c.proc.kill('SIGTERM');
    })));
  }
}
