// bench/RESULTS.md and the commit a run measured: what every `npm run bench` mode appends its table
// to, with the date, machine and commit in the heading.
import { execSync } from 'node:child_process';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function appendResults(root: string, note: string): void {
  const results = path.join(root, 'bench', 'RESULTS.md');
  if (!existsSync(results)) writeFileSync(results, '# Benchmark results\n\nAppended by `npm run bench`; newest last.\n');
  appendFileSync(results, note);
  console.log(`\nappended to ${path.relative(root, results)}`);
}

/** The short commit, or CUZK_COMMIT (the GPU machine's copy has no, or a stale, .git). */
export function commitOf(root: string): string {
  if (process.env.CUZK_COMMIT) return process.env.CUZK_COMMIT;
  try {
    return execSync('git rev-parse --short HEAD', { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'uncommitted';
  }
}
