// Per-test temporary directories under os.tmpdir(), removed in afterEach so failed tests leave nothing behind.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach } from 'node:test';

/** Registers hooks in the calling suite; the returned function gives the current test's directory. */
export function useTmpDir(prefix = 'cuzk-test-'): () => string {
  let dir: string | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return () => {
    if (!dir) throw new Error('useTmpDir: no temporary directory outside a test');
    return dir;
  };
}
