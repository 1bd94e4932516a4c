// What an upload sends (a witness, a key): bytes the caller holds, or a file on the client's machine
// read from disk part by part as the connection takes them, never whole (a 2^27-wire .wtns is over
// 4 GiB, more than one Uint8Array holds on Node 20; a 2^25 .zkey tens of GB). Every transport sends
// an UploadBody: its size (the file's from fstat, taken when opened) is the Content-Length or the
// first chunk's size, and exactly that many bytes follow.
import { open, type FileHandle } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { InputError } from '../errors.js';

/** Bytes in memory, sent from where they lie (leave them unchanged until the call settles), or
 * `{ file }`: a path on the client's machine, streamed from disk. */
export type UploadSource = Uint8Array | { file: string };

export interface UploadBody {
  /** What is sent: the array's length, or the file's size when it was opened. */
  readonly bytes: number;
  /** The caller's bytes (true) or a file's parts read as sent (false): sendBody waits for a full
   * connection to drain only before reading a file's next part; views of bytes the caller holds
   * anyway are handed over at once (waiting a drain per 1 MiB slowed a 32 MiB POST on loopback). */
  readonly inMemory: boolean;
  /** The bytes in order, in parts of at most `partBytes`: views of the caller's array, or a buffer
   * of its own per part read from the file (a written part may wait in a socket's queue). Throws
   * E_INVALID_ARG naming the file if it ends early or cannot be read. */
  parts(partBytes: number): AsyncGenerator<Uint8Array>;
  /** Closes the file (nothing for bytes); a read in flight finishes first, later ones throw. */
  close(): Promise<void>;
}

const cannotRead = (file: string, what: string, why: string, cause?: unknown) =>
  new InputError('E_INVALID_ARG', `${file}: cannot read the ${what} (${why})`, { cause });
const why = (cause: unknown) => String((cause as NodeJS.ErrnoException).code ?? cause);

function bytesBody(w: Uint8Array): UploadBody {
  return {
    bytes: w.length,
    inMemory: true,
    async *parts(partBytes) {
      for (let o = 0; o < w.length; o += partBytes) yield w.subarray(o, Math.min(w.length, o + partBytes));
    },
    close: async () => {},
  };
}

function fileBody(file: string, what: string, fh: FileHandle, size: number): UploadBody {
  let closed = false;
  return {
    bytes: size,
    inMemory: false,
    async *parts(partBytes) {
      for (let pos = 0; pos < size; ) {
        const part = Buffer.allocUnsafe(Math.min(partBytes, size - pos));
        for (let got = 0; got < part.length; ) {
          if (closed) throw cannotRead(file, what, `closed at ${pos + got} of ${size} bytes while sent`);
          const n = await fh.read(part, got, part.length - got, pos + got).then((r) => r.bytesRead, (cause: unknown) => {
            throw cannotRead(file, what, why(cause), cause);
          });
          if (n === 0) throw cannotRead(file, what, `it ended at ${pos + got} of the ${size} bytes it had when opened`);
          got += n;
        }
        pos += part.length;
        yield part;
      }
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await fh.close();
    },
  };
}

/** `src` ready to send: a file is opened and sized here, so a missing or unreadable one fails
 * before anything is sent (E_INVALID_ARG, one line naming the file and `what` it is). */
export async function openUploadBody(src: UploadSource, what: string): Promise<UploadBody> {
  if (ArrayBuffer.isView(src)) return bytesBody(src);
  const fh = await open(src.file, 'r').catch((cause: unknown) => {
    throw cannotRead(src.file, what, why(cause), cause);
  });
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw cannotRead(src.file, what, 'not a regular file');
    return fileBody(src.file, what, fh, st.size);
  } catch (err) {
    await fh.close();
    throw err instanceof InputError ? err : cannotRead(src.file, what, why(err), err);
  }
}

/** Runs `use` with every source opened (all of them before any byte is sent), and closes them once
 * it has settled. */
export async function withUploadBodies<T>(sources: readonly UploadSource[], what: string, use: (bodies: UploadBody[]) => Promise<T>): Promise<T> {
  const bodies: UploadBody[] = [];
  try {
    for (const s of sources) bodies.push(await openUploadBody(s, what));
    return await use(bodies);
  } finally {
    await Promise.all(bodies.map((b) => b.close()));
  }
}

/** Resolves once `out` wants more, or is gone. */
export function drained(out: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('close', done);
      resolve();
    };
    out.on('drain', done);
    out.on('close', done);
  });
}

/**
 * Writes `body` as the raw request body of `out` in `partBytes` parts, a file's waiting for 'drain'
 * whenever it is full (what is held is a part or two, whatever the size), and ends it. Stops
 * once `answered()` (a refusal came before the rest was sent) or `out` is gone; a part that
 * cannot be read goes to `fail` and `out` is destroyed.
 */
export function sendBody(out: Writable, body: UploadBody, partBytes: number, answered: () => boolean, fail: (err: unknown) => void): void {
  const open = () => !answered() && !out.destroyed && out.writable;
  void (async () => {
    for await (const part of body.parts(partBytes)) {
      if (!open()) return;
      if (!out.write(part) && !body.inMemory) await drained(out);
    }
    if (open()) out.end();
  })().catch((err: unknown) => {
    fail(err);
    out.destroy();
  });
}
