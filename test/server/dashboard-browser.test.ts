// The dashboard in a real headless Chromium against a `cuzk serve` child (CPU core, token): the page
// loads with no console error, shows the id of a job proved a moment before and its phases on the
// timeline, and its queue and budget numbers are GetStatus's; the login form takes the token into
// sessionStorage and no request URL or rendered link ever holds it. Screenshots go to
// test-artifacts/. Without Chromium the tests skip loudly, and fail under CI=true.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { CuzkClient } from '../../src/client/index.js';
import { chromiumProblem, launchChromium } from '../helpers/chromium.js';
import { removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const TOKEN = 'browser-test-token-93ad';
const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-artifacts');
const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const job = () => ({ key: vectorFile(bnMult, 'circuit.zkey'), witnesses: [new Uint8Array(readFileSync(vectorFile(bnMult, 'witness.wtns')))] });

const problem = await chromiumProblem();
// under CI a missing browser is a failure, not a skip
const skip = problem !== undefined && process.env.CI !== 'true' ? problem : false;

let d: DaemonProcess;
let client: CuzkClient;
let browser: Browser;
before(async () => {
  if (skip) return;
  if (problem) throw new Error(`dashboard browser tests cannot run: ${problem}`);
  mkdirSync(ARTIFACTS, { recursive: true });
  d = await startDaemon({ args: [...vectorDirArgs(), '--token', TOKEN, '--backend', 'cpu'] });
  client = new CuzkClient({ address: d.address, token: TOKEN });
  browser = await launchChromium();
});
after(async () => {
  if (skip) return;
  await browser?.close();
  if (client) await client.resumeQueue().finally(() => client.close());
  if (d) {
    assert.equal(await d.stop('SIGTERM'), 0, d.logs());
    removeDataDir(d.dataDir);
  }
});

/** Console errors and failed page scripts, as they happen. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  return errors;
}

const statValue = (page: Page, stat: string) => page.getAttribute(`[data-stat="${stat}"]`, 'data-value').then(Number);

describe('dashboard in Chromium', { skip }, () => {
  it('loads without console errors, shows the job just proved on the timeline, queue and budget as GetStatus says', async () => {
    const proved = await client.prove(job());
    assert.equal(proved.state, 'completed', JSON.stringify(proved.error));
    // hold two jobs queued so the queue numbers are not all zero
    await client.pauseQueue();
    await client.submit(job());
    await client.submit({ ...job(), priority: 'low' });
    const rpc = await client.status();
    const context = await browser.newContext({ extraHTTPHeaders: { authorization: `Bearer ${TOKEN}` }, viewport: { width: 1400, height: 1300 } });
    const page = await context.newPage();
    const errors = watchErrors(page);
    const res = await page.goto(`${d.url}/`);
    assert.equal(res?.status(), 200);
    await page.waitForSelector(`td[data-stat="job-id"]:text-is("${proved.id}")`, { timeout: 15_000 });
    await page.waitForSelector(`#gantt rect[data-job="${proved.id}"]`);
    const phases = await page.$$eval(`#gantt rect[data-job="${proved.id}"]`, (rs) => rs.map((r) => `${r.getAttribute('data-lane')}/${r.getAttribute('data-phase')}`));
    for (const p of ['synthesis/synthesis', 'cpu NTT/ntt', 'cpu MSM/msm', 'finalize/finalize']) assert.ok(phases.includes(p), `timeline lacks ${p}: ${phases.join(', ')}`);
    for (const p of ['critical', 'high', 'normal', 'low'] as const) assert.equal(await statValue(page, `queue.${p}`), rpc.queues[p], `queue ${p}`);
    assert.deepEqual([rpc.queues.normal, rpc.queues.low], [1, 1]);
    for (const pool of ['host', 'pinned'] as const) {
      assert.equal(await statValue(page, `budget.${pool}.used`), rpc.budget[pool].used, `${pool} used`);
      assert.equal(await statValue(page, `budget.${pool}.limit`), rpc.budget[pool].limit, `${pool} limit`);
    }
    assert.equal(await statValue(page, 'pool.bytes'), rpc.pinnedPool.bytes);
    // the witness stage, its own table, as GetStatus says (slots from the sizing rule: at least 1)
    assert.ok(rpc.witness && rpc.witness.slots >= 1, `GetStatus witness stage: ${JSON.stringify(rpc.witness)}`);
    assert.equal(await statValue(page, 'witness.slots'), rpc.witness.slots);
    assert.equal(await statValue(page, 'witness.done'), rpc.witness.done);
    assert.equal(await page.textContent('#connection'), 'live');
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await client.resumeQueue();
    await context.close();
  });

  it('the login form keeps the token in sessionStorage and sends it only as a header: no URL holds it', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    const page = await context.newPage();
    const errors = watchErrors(page);
    const urls: string[] = [];
    const headers: string[] = [];
    page.on('request', (r) => {
      urls.push(r.url());
      if (r.url().endsWith('/dashboard/events')) headers.push(r.headers().authorization ?? '');
    });
    const res = await page.goto(`${d.url}/`);
    assert.equal(res?.status(), 401, 'the page without the token');
    await page.waitForSelector('#login:not([hidden])');
    await page.fill('#token', TOKEN);
    await page.click('#login button[type=submit]');
    await page.waitForSelector('#board:not([hidden]) td[data-stat="job-id"]', { timeout: 15_000 });
    assert.equal(await page.evaluate(() => sessionStorage.getItem('cuzk.token')), TOKEN);
    assert.ok(headers.includes(`Bearer ${TOKEN}`), `the feed was not asked with the token: ${JSON.stringify(headers)}`);
    const refs = await page.$$eval('[href], [src], [action]', (els) => els.map((e) => e.getAttribute('href') ?? e.getAttribute('src') ?? e.getAttribute('action') ?? ''));
    for (const u of [...urls, ...refs, page.url()]) assert.ok(!u.includes(TOKEN), `the token is in ${u}`);
    await page.screenshot({ path: path.join(ARTIFACTS, 'dashboard-login.png'), fullPage: true });
    // what the browser logs itself before the login: the page's own 401, and the feed's first try
    // without a token (its 401 is what shows the form); nothing after
    assert.deepEqual(errors.filter((e) => !/status of 401/.test(e)), []);
    assert.equal(errors.length, 2, errors.join('\n'));
    await context.close();
  });
});
