// The dashboard without a browser, on a real `cuzk serve` child with a token: / and the feed refuse
// a request without the token (401), the page's files hold no data and no token, the live feed
// (SSE) sends frame after frame that name a job proved a moment before with its phases, and a
// frame's status is GetStatus's.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { CuzkClient } from '../../src/client/index.js';
import { removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const TOKEN = 'dashboard-test-token-5f1c';
const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const job = () => ({ key: vectorFile(bnMult, 'circuit.zkey'), witnesses: [new Uint8Array(readFileSync(vectorFile(bnMult, 'witness.wtns')))] });

interface Got { status: number; headers: http.IncomingHttpHeaders; body: string }

function get(url: string, headers: Record<string, string> = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    }).on('error', reject);
  });
}

const auth = { authorization: `Bearer ${TOKEN}` };

interface Frame {
  at: number;
  status: { queues?: Record<string, number>; budget?: { host?: { used?: string; limit?: string } } };
  jobs: { id: string; state: string; timings: Record<string, number> }[];
  gantt: { lanes: string[]; spans: { job: string; phase: string; lane: string }[] };
  series: { t: number[]; busy: { lane: string; y: number[] }[] };
}

/** The first `n` frames of the live feed, and everything it sent up to then. */
function readFeed(url: string, n: number): Promise<{ status: number; frames: Frame[]; raw: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/dashboard/events`, { headers: auth }, (res) => {
      let raw = '';
      const frames: Frame[] = [];
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        raw += d;
        for (const m of raw.matchAll(/event: frame\ndata: (.*)\n\n/g)) if (frames.length < n && !frames.some((f) => JSON.stringify(f) === m[1])) frames.push(JSON.parse(m[1]!) as Frame);
        if (frames.length >= n) {
          req.destroy();
          resolve({ status: res.statusCode!, frames, raw });
        }
      });
    });
    req.on('error', reject);
  });
}

let d: DaemonProcess;
let client: CuzkClient;
before(async () => {
  d = await startDaemon({ args: [...vectorDirArgs(), '--token', TOKEN, '--backend', 'cpu'] });
  client = new CuzkClient({ address: d.address, token: TOKEN });
});
after(async () => {
  client.close();
  assert.equal(await d.stop('SIGTERM'), 0, d.logs());
  removeDataDir(d.dataDir);
});

describe('dashboard (HTTP)', () => {
  it('/ is 401 without the token (the page with its login form), 200 with it; the frame and the feed are 401 without it', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }] as Record<string, string>[]) {
      const page = await get(`${d.url}/`, headers);
      assert.equal(page.status, 401);
      assert.match(String(page.headers['www-authenticate']), /^Bearer/);
      assert.match(page.body, /<form id="login"/);
      for (const p of ['/dashboard/events', '/dashboard/snapshot']) {
        const r = await get(`${d.url}${p}`, headers);
        assert.equal(r.status, 401, p);
        assert.equal((JSON.parse(r.body) as { error: { code: string } }).error.code, 'E_UNAUTHORIZED');
      }
    }
    const ok = await get(`${d.url}/`, auth);
    assert.equal(ok.status, 200);
    assert.match(String(ok.headers['content-security-policy']), /script-src 'self'/);
    assert.equal(ok.headers['referrer-policy'], 'no-referrer');
    assert.equal((await get(`${d.url}/dashboard/nope.js`)).status, 404);
    assert.equal((await get(`${d.url}/dashboard/index.html`)).status, 404, 'the page is only at /, behind the token');
  });

  it('no link, script or form the page renders carries the token or any query string; its files do not hold it', async () => {
    const page = (await get(`${d.url}/`, auth)).body;
    const refs = [...page.matchAll(/\b(?:href|src|action)="([^"]*)"/g)].map((m) => m[1]!);
    assert.ok(refs.filter((r) => r.startsWith('/dashboard/')).length >= 6, `too few asset references: ${refs.join(' ')}`);
    for (const r of refs) {
      assert.ok(r === 'data:,' || /^\/dashboard\/[\w.]+$/.test(r), `reference ${r} is not a plain asset path`);
      const file = await get(`${d.url}${r.startsWith('/') ? r : '/'}`);
      if (r.startsWith('/')) {
        assert.equal(file.status, 200, `${r} without the token`);
        assert.ok(!file.body.includes(TOKEN), `${r} holds the token`);
      }
    }
    // the scripts build no URL from the token: it goes only into the authorization header
    const authJs = (await get(`${d.url}/dashboard/auth.js`)).body;
    assert.match(authJs, /headers\.set\('authorization', 'Bearer ' \+ t\)/);
    for (const name of ['app.js', 'auth.js', 'tables.js', 'gantt.js', 'charts.js']) {
      const js = (await get(`${d.url}/dashboard/${name}`)).body;
      assert.ok(!/[?&]token=|location\.(?:href|search)\s*=|searchParams/.test(js), `${name} may put something in a URL`);
    }
  });

  it('the feed sends frames, each newer, naming the job just proved with its phases; a frame has no token in it', async () => {
    const proved = await client.prove(job());
    assert.equal(proved.state, 'completed', JSON.stringify(proved.error));
    const { status, frames, raw } = await readFeed(d.url, 2);
    assert.equal(status, 200);
    assert.ok(frames[1]!.at > frames[0]!.at, `frames not newer: ${frames[0]!.at} then ${frames[1]!.at}`);
    assert.ok(!raw.includes(TOKEN));
    const f = frames[1]!;
    const row = f.jobs.find((j) => j.id === proved.id);
    assert.ok(row, `job ${proved.id} not among the recent jobs ${JSON.stringify(f.jobs.map((j) => j.id))}`);
    assert.equal(row.state, 'completed');
    for (const p of ['synthesis', 'ntt', 'msm', 'finalize']) assert.equal(typeof row.timings[p], 'number', `no ${p} time: ${JSON.stringify(row.timings)}`);
    const phases = new Set(f.gantt.spans.filter((s) => s.job === proved.id).map((s) => `${s.lane}/${s.phase}`));
    for (const p of ['synthesis/synthesis', 'cpu NTT/ntt', 'cpu MSM/msm', 'finalize/finalize']) assert.ok(phases.has(p), `timeline lacks ${p} of the job: ${[...phases].join(', ')}`);
    assert.deepEqual(f.gantt.lanes.slice(0, 1), ['synthesis'], 'the CPU stages come first');
    const cpu = f.series.busy.find((b) => b.lane === 'cpu');
    assert.ok(cpu && cpu.y.some((y) => y > 0), `no busy bin on the cpu lane: ${JSON.stringify(f.series.busy)}`);
    assert.equal(cpu.y.length, f.series.t.length);
  });

  it("a frame's queue and budget are GetStatus's (queue held by pause, two jobs waiting)", async () => {
    await client.pauseQueue();
    try {
      const a = await client.submit(job());
      const b = await client.submit({ ...job(), priority: 'high' });
      const rpc = await client.status();
      const frame = JSON.parse((await get(`${d.url}/dashboard/snapshot`, auth)).body) as Frame;
      assert.deepEqual({ normal: 1, high: 1 }, { normal: rpc.queues.normal, high: rpc.queues.high });
      assert.deepEqual(frame.status.queues, Object.fromEntries(Object.entries(rpc.queues).map(([k, v]) => [k, v])));
      assert.equal(Number(frame.status.budget?.host?.used ?? 0), rpc.budget.host.used);
      assert.equal(Number(frame.status.budget?.host?.limit ?? 0), rpc.budget.host.limit);
      assert.ok(rpc.budget.host.limit > 0);
      await client.resumeQueue();
      for (const j of [a, b]) assert.equal((await client.await(j.job.id)).state, 'completed');
    } finally {
      await client.resumeQueue();
    }
  });
});
