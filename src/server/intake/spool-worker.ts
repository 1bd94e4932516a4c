// A spool writer thread (spool.ts): hashes and writes witness bytes off the event loop, so a daemon
// taking in 15 witnesses of 32 MiB a second keeps its main thread for the network. Node modules only:
// the thread loads nothing of ours. Every message is answered { seq, sha256? , error? } in order.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../../errors.js';

export type SpoolOp =
  | { seq: number; op: 'open'; id: string; path: string }
  | { seq: number; op: 'write'; id: string; bytes: Uint8Array; recycle?: boolean }
  | { seq: number; op: 'finish'; id: string; final: string }
  | { seq: number; op: 'abort'; id: string; path: string }
  | { seq: number; op: 'ping' };

export interface SpoolReply {
  seq: number;
  sha256?: string;
  error?: { code?: string; message: string };
  /** A write's buffer moved back, empty, for the next batch (when the write asked to recycle it). */
  recycled?: Uint8Array;
}

const files = new Map<string, { fd: number; hash: Hash }>();

function run(m: SpoolOp): string | undefined {
  switch (m.op) {
    case 'open':
      files.set(m.id, { fd: openSync(m.path, 'wx', 0o600), hash: createHash('sha256') });
      return undefined;
    case 'write': {
      const f = files.get(m.id)!;
      f.hash.update(m.bytes);
      for (let o = 0; o < m.bytes.length; ) o += writeSync(f.fd, m.bytes, o);
      return undefined;
    }
    case 'finish': {
      const f = files.get(m.id)!;
      files.delete(m.id);
      fsyncSync(f.fd);
      closeSync(f.fd);
      renameSync(`${m.final}.partial`, m.final);
      return f.hash.digest('hex');
    }
    case 'ping':
      return undefined;
    case 'abort': {
      const f = files.get(m.id);
      files.delete(m.id);
      if (f) closeSync(f.fd);
      try {
        unlinkSync(m.path);
      } catch {
        // never created, or already gone
      }
      return undefined;
    }
  }
}

parentPort?.on('message', (m: SpoolOp) => {
  let reply: SpoolReply;
  try {
    reply = { seq: m.seq, sha256: run(m) };
  } catch (err) {
    reply = { seq: m.seq, error: { code: (err as NodeJS.ErrnoException).code, message: errorMessage(err) } };
  }
  if (m.op === 'write' && m.recycle && m.bytes.buffer instanceof ArrayBuffer) {
    reply.recycled = m.bytes;
    parentPort!.postMessage(reply, [m.bytes.buffer]);
  } else parentPort!.postMessage(reply);
});
