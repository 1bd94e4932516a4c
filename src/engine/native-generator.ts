// One native witness generator process (native/witness/generator.cpp): spawned without a shell,
// with its own address-space limit, asked for one witness at a time over framed stdin/stdout. The
// process forks a child per witness, so a bad input, a circuit assertion or a crash fails only that
// witness; if the process itself dies or hangs past the time limit, the pending witness fails and
// the process is not reused (WitnessPool starts another).
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { CuzkError, errorForCode, type ErrorCode } from '../errors.js';

/** What the process says about its circuit when it starts. */
export interface GeneratorInfo {
  nVars: number;
  prime: bigint;
  inputs: number;
}

interface Answer {
  id: number;
  ok?: boolean;
  code?: ErrorCode;
  message?: string;
  nVars?: number;
  prime?: string;
  inputs?: number;
  /** Peak resident memory of the child that computed the witness. */
  rssBytes?: number;
}

/** Start-up allowance: the process maps its .dat and answers before any witness. */
const START_TIMEOUT_MS = 30_000;
/** The parent's watchdog beyond the process's own per-witness limit (it kills its child first). */
const WATCHDOG_SLACK_MS = 2_000;

export class NativeGenerator {
  readonly path: string;
  readonly #proc: ChildProcess;
  readonly #info: Promise<GeneratorInfo>;
  #buf: Buffer = Buffer.alloc(0);
  #pending: { id: number; resolve: (a: Answer) => void; reject: (e: Error) => void; timer?: NodeJS.Timeout } | undefined;
  #onHello!: { resolve: (a: Answer) => void; reject: (e: Error) => void };
  #seq = 0;
  #stderr = '';
  #dead: Error | undefined;

  /** `maxAddressSpaceBytes`: the process's RLIMIT_AS (0 = inherit the parent's). */
  constructor(path: string, maxAddressSpaceBytes: number) {
    this.path = path;
    const args = ['serve', ...(maxAddressSpaceBytes > 0 ? ['--max-address-space', String(Math.floor(maxAddressSpaceBytes))] : [])];
    // absolute: a bare name would be looked up on PATH
    // A bare environment: the daemon's own (its token, store password) is none of a generator's
    // business. glibc's malloc then backs circom's large per-witness arrays (40 B per signal) with
    // transparent huge pages: fewer page faults and TLB misses, 302 vs 332 ms per witness on a
    // 2^20 Poseidon chain (one at a time, this CI machine's kind).
    this.#proc = spawn(resolve(path), args, { stdio: ['pipe', 'pipe', 'pipe'], shell: false, env: { GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1', LC_ALL: 'C' } });
    this.#info = new Promise<Answer>((resolve, reject) => { this.#onHello = { resolve, reject }; }).then((a) => ({ nVars: a.nVars!, prime: BigInt(a.prime!), inputs: a.inputs! }));
    this.#info.catch(() => undefined);
    const hello = setTimeout(() => this.#fail(new CuzkError('E_TIMEOUT', `${path}: the witness generator did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
    hello.unref();
    this.#info.finally(() => clearTimeout(hello)).catch(() => undefined);
    this.#proc.stdout!.on('data', (d: Buffer) => this.#read(d));
    this.#proc.stderr!.on('data', (d: Buffer) => { if (this.#stderr.length < 4096) this.#stderr += d.toString('utf8'); });
    this.#proc.stdin!.on('error', () => undefined);
    this.#proc.on('error', (e: NodeJS.ErrnoException) => this.#fail(new CuzkError('E_INVALID_ARG', `${path}: cannot run the witness generator (${e.code ?? e.message})`)));
    this.#proc.on('exit', (code, signal) => {
      const why = this.#stderr.trim().split('\n').pop()?.replace(/^cuzk witness generator: /, '');
      const how = signal ? `was killed (${signal})` : `exited with status ${code}`;
      this.#fail(new CuzkError(code === 2 && why ? 'E_INVALID_ARG' : 'E_INTERNAL', `${path}: the witness generator ${how}${why ? `: ${why}` : ''}`));
    });
    this.unref();
  }

  /** Resolves when the process has mapped its circuit; rejects with the reason it could not. */
  info(): Promise<GeneratorInfo> {
    this.#proc.ref();
    return this.#info.finally(() => this.unref());
  }

  get alive(): boolean {
    return this.#dead === undefined;
  }

  get busy(): boolean {
    return this.#pending !== undefined;
  }

  get pid(): number | undefined {
    return this.#proc.pid;
  }

  /** Computes one witness into `outPath` (a .wtns file); rejects with the error naming the fault. */
  async compute(input: unknown, outPath: string, timeoutMs: number, name: string): Promise<{ rssBytes: number }> {
    await this.info();
    if (this.#dead) throw this.#dead;
    if (this.#pending) throw new CuzkError('E_INTERNAL', `${this.path}: generator process asked for two witnesses at once`);
    let json: string;
    try {
      json = JSON.stringify(input);
    } catch (cause) {
      throw new CuzkError('E_INVALID_ARG', `${name}: the input cannot be written as JSON (${(cause as Error).message})`);
    }
    const id = ++this.#seq;
    const out = Buffer.from(outPath, 'utf8');
    const body = Buffer.from(json, 'utf8');
    const head = Buffer.alloc(16);
    head.writeUInt32LE(12 + out.byteLength + body.byteLength, 0);
    head.writeUInt32LE(id, 4);
    head.writeUInt32LE(Math.min(0xffffffff, Math.max(0, Math.floor(timeoutMs))), 8);
    head.writeUInt32LE(out.byteLength, 12);
    this.#proc.ref();
    try {
      const a = await new Promise<Answer>((resolve, reject) => {
        this.#pending = { id, resolve, reject };
        if (timeoutMs > 0) {
          this.#pending.timer = setTimeout(() => {
            this.#fail(new CuzkError('E_TIMEOUT', `${name}: the witness generator ${this.path} did not answer within ${timeoutMs} ms`));
            this.#proc.kill('SIGKILL');
          }, timeoutMs + WATCHDOG_SLACK_MS);
        }
        this.#proc.stdin!.write(Buffer.concat([head, out, body]));
      });
      if (!a.ok) throw errorForCode(a.code ?? 'E_INTERNAL', `${name}: ${a.message ?? 'the witness generator failed'} (${this.path})`);
      return { rssBytes: a.rssBytes ?? 0 };
    } finally {
      this.unref();
    }
  }

  close(): void {
    this.#fail(new CuzkError('E_CANCELLED', `${this.path}: the witness generator was closed`));
    this.#proc.stdin!.end();
    this.#proc.kill('SIGKILL');
  }

  unref(): void {
    this.#proc.unref();
    (this.#proc.stdout as unknown as { unref?: () => void }).unref?.();
    (this.#proc.stderr as unknown as { unref?: () => void }).unref?.();
    (this.#proc.stdin as unknown as { unref?: () => void }).unref?.();
  }

  #read(d: Buffer): void {
    this.#buf = this.#buf.byteLength === 0 ? d : Buffer.concat([this.#buf, d]);
    while (this.#buf.byteLength >= 4) {
      const n = this.#buf.readUInt32LE(0);
      if (this.#buf.byteLength < 4 + n) return;
      const text = this.#buf.toString('utf8', 4, 4 + n);
      this.#buf = this.#buf.subarray(4 + n);
      let a: Answer;
      try {
        a = JSON.parse(text) as Answer;
      } catch {
        this.#fail(new CuzkError('E_INTERNAL', `${this.path}: the witness generator wrote a malformed answer`));
        this.#proc.kill('SIGKILL');
        return;
      }
      if (a.id === 0) this.#onHello.resolve(a);
      else if (this.#pending?.id === a.id) {
        const p = this.#pending;
        this.#pending = undefined;
        clearTimeout(p.timer);
        p.resolve(a);
      }
    }
  }

  #fail(e: Error): void {
    if (this.#dead) return;
    this.#dead = e;
    this.#onHello.reject(e);
    const p = this.#pending;
    this.#pending = undefined;
    if (p) {
      clearTimeout(p.timer);
      p.reject(e);
    }
    if (this.#proc.exitCode === null && this.#proc.signalCode === null) this.#proc.kill('SIGKILL');
  }
}
