// Runs test files in a child node process under extra environment (e.g. CUZK_NO_ASM=1: the native
// core picks its arithmetic once at load, so another path needs another process), TAP on stdout.
import { spawnSync } from 'node:child_process';

export interface ChildRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The child's `not ok` lines, for the failure message. */
  failures: string;
}

export function runSuitesInChild(files: readonly string[], env: Record<string, string>): ChildRun {
  // without NODE_TEST_CONTEXT, which node sets for the files it runs: the child would otherwise
  // report to this process's runner instead of running its own
  const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=tap', ...files], {
    encoding: 'utf8',
    env: { ...inherited, ...env },
    maxBuffer: 1 << 26,
  });
  const failures = r.stdout.split('\n').filter((l) => /^\s*not ok /.test(l)).join('\n');
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, failures };
}
