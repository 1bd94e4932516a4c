// The capture-and-replay road of the GPU machine's dashboard screenshot, on a CPU-core `cuzk serve`
// child with a token: the capture fetches /dashboard/snapshot with the token (a wrong one gets only
// 401s, no frame), keeps the newest frames, and writes them as JSON; scripts/dashboard-replay.mjs
// replays them through the daemon's dashboard handler into a real Chromium, saves a PNG, and what it
// reads from the page's DOM is the last frame's: each device lane's busy % over the last 10 whole
// seconds, queue and budget, job ids, timeline spans. Without Chromium it skips loudly (fails under CI=true).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CuzkClient } from '../../src/client/index.js';
import { benchFixture, type Fixture } from '../../src/dev/bench-fixture.js';
import { captureDashboard, writeCapture } from '../../src/dev/dashboard-capture.js';
import type { Snapshot } from '../../src/server/transport/dashboard/snapshot.js';
import { chromiumProblem } from '../helpers/chromium.js';
import { removeDataDir, startDaemon, type DaemonProcess } from '../helpers/daemon.js';

const TOKEN = 'capture-test-token-5e1c';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const problem = await chromiumProblem();
const skip = problem !== undefined && process.env.CI !== 'true' ? problem : false;

let work: string;
let fx: Fixture;
let d: DaemonProcess;
let client: CuzkClient;
before(async () => {
  if (skip) return;
  if (problem) throw new Error(`dashboard replay test cannot run: ${problem}`);
  work = mkdtempSync(path.join(tmpdir(), 'cuzk-capture-'));
  fx = await benchFixture(work, 'bn128', 12, () => {});
  d = await startDaemon({ args: ['--key-dirs', path.dirname(fx.zkey), '--token', TOKEN, '--backend', 'cpu', '--threads', '2'] });
  client = new CuzkClient({ address: d.address, token: TOKEN });
});
after(async () => {
  if (skip) return;
  client?.close();
  if (d) {
    assert.equal(await d.stop('SIGTERM'), 0, d.logs());
    removeDataDir(d.dataDir);
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The page's rule (static/dashboard/charts.js recentBusy), written again in its order of operations
 * (mean first, then 100·mean to 0.1: 100·sum/n rounds differently at a .x5 boundary): mean busy % of
 * the newest 10 whole 1 s bins. */
function recentBusy(f: Snapshot): Record<string, number> {
  const whole = f.series.t.filter((t) => t + 1000 <= f.at).length;
  return Object.fromEntries(f.series.busy.map((b) => {
    const ys = b.y.slice(Math.max(0, whole - 10), whole);
    const mean = ys.length ? ys.reduce((a, y) => a + y, 0) / ys.length : 0;
    return [b.lane, +(100 * mean).toFixed(1)];
  }));
}

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600 && !cond(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(cond(), what);
}

function replay(file: string, png: string, json: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'dashboard-replay.mjs'), file, png, '--json', json], { cwd: root, env: { ...process.env, CUZK_LOG: 'warn' } });
    let out = '';
    p.stdout.on('data', (x) => (out += x));
    p.stderr.on('data', (x) => (out += x));
    p.on('exit', (code) => resolve({ code, out }));
  });
}

describe('dashboard capture and replay', { skip }, () => {
  it('a wrong token captures no frame, only the 401', async () => {
    const cap = captureDashboard({ address: d.address, token: 'not-the-token', everyMs: 50 });
    await until(() => cap.seen.problems.length > 0, 'no answer seen');
    const c = await cap.stop();
    assert.deepEqual([c.fetched, c.frames.length], [0, 0]);
    assert.match(c.problems[0]!, /answered 401/);
  });

  it('frames of a daemon that proved, replayed into Chromium: the page shows the last frame\'s numbers', async () => {
    const key = await client.loadKey({ path: fx.zkey });
    const witness = new Uint8Array(readFileSync(fx.wtns));
    for (let i = 0; i < 3; i++) assert.equal((await client.prove({ key: key.id, witnesses: [witness] })).state, 'completed');
    const cap = captureDashboard({ address: d.address, token: TOKEN, everyMs: 100, maxFrames: 3 });
    // the proofs' second becomes a whole bin within a second: wait for a frame that shows it
    const lastBusy = () => (cap.seen.frames.length ? recentBusy(JSON.parse(cap.seen.frames.at(-1)!) as Snapshot).cpu ?? 0 : 0);
    await until(() => cap.seen.fetched >= 4 && lastBusy() > 0, 'no frame with the proofs\' busy time');
    const c = await cap.stop();
    assert.equal(c.frames.length, 3, 'the newest maxFrames kept');
    assert.deepEqual(c.problems, []);
    const frames = c.frames.map((t) => JSON.parse(t) as Snapshot);
    assert.ok(frames[0]!.at < frames[1]!.at && frames[1]!.at < frames[2]!.at, 'oldest first');
    const file = path.join(work, 'frames.json');
    assert.equal(writeCapture(file, 'test', c), 3);

    const png = path.join(work, 'dashboard.png');
    const json = path.join(work, 'shown.json');
    const r = await replay(file, png, json);
    assert.equal(r.code, 0, r.out);
    const shown = JSON.parse(readFileSync(json, 'utf8')) as { frameAt: number; busy: Record<string, number>; stats: Record<string, string>; jobIds: string[]; ganttSpans: number; errors: string[] };
    const last = frames.at(-1)!;
    const status = last.status as { queues?: Record<string, number>; running?: number; budget?: Record<string, { used?: string; limit?: string }> };
    assert.equal(shown.frameAt, last.at);
    assert.deepEqual(shown.errors, []);
    assert.deepEqual(shown.busy, recentBusy(last));
    assert.ok(shown.busy.cpu! > 0, `busy ${shown.busy.cpu}`);
    assert.match(r.out, new RegExp(`cpu busy over the last 10 s, as the page shows it: ${shown.busy.cpu!.toFixed(1)} %`));
    for (const p of ['critical', 'high', 'normal', 'low']) assert.equal(Number(shown.stats[`queue.${p}`]), status.queues?.[p] ?? 0, p);
    for (const pool of ['host', 'pinned']) {
      assert.equal(Number(shown.stats[`budget.${pool}.used`]), Number(status.budget?.[pool]?.used ?? 0), `${pool} used`);
      assert.equal(Number(shown.stats[`budget.${pool}.limit`]), Number(status.budget?.[pool]?.limit ?? 0), `${pool} limit`);
    }
    assert.ok(Number(shown.stats['budget.host.limit']) > 0);
    assert.deepEqual(shown.jobIds, last.jobs.map((j) => j.id));
    assert.equal(shown.jobIds.length, 3);
    assert.equal(shown.ganttSpans, last.gantt.spans.length);
    assert.ok(shown.ganttSpans > 0);
    assert.deepEqual([...readFileSync(png).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG');
  });
});
