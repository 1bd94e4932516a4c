// Files of gigabytes that cost no disk: a real header, then a hole (ftruncate), for tests that a
// file is streamed, never read whole (and sizes past 2 and 4 GiB are carried exactly).
import { closeSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';

/** `file`: `head`, then zeros up to `bytes` (a hole: nothing is written). */
export function sparseFile(file: string, head: Uint8Array, bytes: number): string {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, head);
    ftruncateSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  return file;
}

/** A .wtns of `nWitness` values with a valid header (`like`'s, a snarkjs .wtns of the same field,
 * resized): 76 + 32 × nWitness bytes, all values zero. */
export function sparseWitness(file: string, like: string, nWitness: number): string {
  const head = Buffer.from(readFileSync(like).subarray(0, 76));
  head.writeUInt32LE(nWitness, 60); // section 1: n8 (4), prime (32), nWitness (4)
  head.writeBigUInt64LE(BigInt(nWitness) * 32n, 68); // section 2's size
  return sparseFile(file, head, 76 + nWitness * 32);
}
