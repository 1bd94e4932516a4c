// Scratch directories and small tmpfs mounts for tests of file-system faults (a full disk, a read-only
// file system), removed and unmounted after the test file. Mounting needs root; tmpfs() says when it
// cannot (undefined), so a test can skip with the reason instead of passing without its fault.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { after } from 'node:test';
import { makeDataDir, removeDataDir } from './daemon.js';

const roots: string[] = [];
const mounts: string[] = [];
after(() => {
  for (const m of mounts.splice(0).reverse()) execFileSync('umount', ['-l', m]);
  for (const r of roots.splice(0)) removeDataDir(r);
});

/** A fresh directory, removed after the test file. */
export function scratch(): string {
  const r = makeDataDir();
  roots.push(r);
  return r;
}

/** A tmpfs of `size` (mount's syntax: bytes, or e.g. '1m') at a fresh directory, or undefined when this
 * process may not mount (not root); unmounted after the test file. */
export function tmpfs(size: number | string): string | undefined {
  const dir = path.join(scratch(), 'mnt');
  mkdirSync(dir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  mounts.push(dir);
  return dir;
}

/** Writes until the file system is full; returns the filler's path. */
export function fill(dir: string): string {
  const p = path.join(dir, 'filler');
  const fd = openSync(p, 'w');
  try {
    for (const chunk of [65536, 4096, 512, 1]) {
      const b = Buffer.alloc(chunk, 1);
      for (;;) {
        try {
          if (writeSync(fd, b) < chunk) break;
        } catch {
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return p;
}
