// A real headless Chromium for the dashboard's tests: Debian's `chromium` package driven by
// playwright-core (a devDependency; no browser download). Where either is missing the tests say so
// loudly and skip, except under CI=true, where they fail: .ci/run installs the package.
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

const CANDIDATES = [process.env.CUZK_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => !!p);

export const chromiumPath = (): string | undefined => CANDIDATES.find((p) => existsSync(p));

/** Why Chromium cannot be driven here (undefined: it can). */
export async function chromiumProblem(): Promise<string | undefined> {
  let problem: string | undefined;
  if (!chromiumPath()) problem = `Chromium is not installed (none of ${CANDIDATES.join(', ')}): apt-get install -y chromium (.ci/run does this)`;
  else {
    try {
      await import('playwright-core');
    } catch (err) {
      problem = `playwright-core cannot be loaded (${(err as Error).message.split('\n')[0]}): npm install (it is a devDependency)`;
    }
  }
  if (problem) process.stderr.write(`\n!!! dashboard browser tests ${process.env.CI === 'true' ? 'FAIL (CI=true)' : 'NOT RUN'}: ${problem}\n\n`);
  return problem;
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
  return chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}
