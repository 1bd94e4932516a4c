// What hostile clients do to a `cuzk serve` child (issue #27), shared by the hostile tests: raw
// connections the test can cut or leave stalled, an UploadWitness cut short, a witness file swapped
// after submit, and the daemon's spool as a test sees it.
import { copyFileSync, readdirSync, symlinkSync, unlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import http2 from 'node:http2';
import net from 'node:net';
import path from 'node:path';
import { create, toBinary } from '@bufbuild/protobuf';
import type { CuzkClient } from '../../src/client/index.js';
import type { JobInfo } from '../../src/engine/api.js';
import { WitnessChunkSchema } from '../../src/rpc/gen/cuzk/v1/cuzk_pb.js';
import type { DaemonProcess } from './daemon.js';

export const UPLOAD_WITNESS = '/cuzk.v1.ProvingService/UploadWitness';

/** Resolves true once `s` closes, false if it is still open after `ms`. */
export const closedWithin = (s: { once(e: 'close', f: () => void): unknown; destroyed: boolean }, ms: number) =>
  new Promise<boolean>((resolve) => {
    if (s.destroyed) return resolve(true);
    const t = setTimeout(() => resolve(false), ms);
    s.once('close', () => (clearTimeout(t), resolve(true)));
  });

/** The first 8 KB of an UploadWitness of `wtns` for `key` (a valid first chunk, its message cut short). */
export function uploadHead(key: string, wtns: Uint8Array): Buffer {
  const msg = toBinary(WitnessChunkSchema, create(WitnessChunkSchema, { key, size: BigInt(wtns.length), data: wtns }));
  const env = Buffer.alloc(5);
  env.writeUInt32BE(msg.length, 1);
  return Buffer.concat([env, msg]).subarray(0, 8192);
}

export function tcp(address: string): Promise<net.Socket> {
  const i = address.lastIndexOf(':');
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(address.slice(i + 1)), address.slice(0, i), () => resolve(s));
    s.once('error', reject);
  });
}

/** An h2 session over a socket the test can destroy (what a client that crashes does). */
export async function h2Over(d: DaemonProcess): Promise<{ session: http2.ClientHttp2Session; socket: net.Socket }> {
  const socket = await tcp(d.address);
  socket.on('error', () => {});
  const session = http2.connect(d.url, { createConnection: () => socket });
  session.on('error', () => {});
  return { session, socket };
}

/** An UploadWitness stream that sends `head` and then nothing more. */
export function startUpload(session: http2.ClientHttp2Session, head: Buffer): http2.ClientHttp2Stream {
  const st = session.request({ ':method': 'POST', ':path': UPLOAD_WITNESS, 'content-type': 'application/grpc', te: 'trailers' });
  st.on('error', () => {});
  st.resume();
  st.write(head);
  return st;
}

export const spoolFiles = (d: DaemonProcess): string[] => readdirSync(path.join(d.dataDir, 'spool'));

/** Waits (up to `ms`) until `done()` holds; answers whether it did. */
export async function settles(done: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; !done(); await new Promise((r) => setTimeout(r, 100))) if (Date.now() > end) return false;
  return true;
}

/** Submits the witness file `p` (a copy of `wtnsPath`) for `key` while the queue is paused, lets
 * `swap` replace it, resumes, and returns the job once it ends (or what it was after 15 s). */
export async function swappedWitness(client: CuzkClient, key: string, wtnsPath: string, p: string, swap: (p: string) => void): Promise<JobInfo> {
  copyFileSync(wtnsPath, p);
  await client.pauseQueue();
  const { job } = await client.submit({ key, witnessFiles: [p] });
  swap(p);
  await client.resumeQueue();
  return client.await(job.id, 15_000);
}

export const toFifo = (p: string): void => {
  unlinkSync(p);
  execFileSync('mkfifo', [p]);
};

export const toSymlink = (target: string) => (p: string): void => {
  unlinkSync(p);
  symlinkSync(target, p);
};
