// GetTrace on a real `cuzk serve` child with a token: the trace of a window holds the spans of a job
// proved inside it and none older, over gRPC and Connect; a window out of range and a missing token
// are refused with their codes; `cuzk trace` saves a file that `cuzk report` reads.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { CuzkClient } from '../../src/client/index.js';
import { removeDataDir, runChild, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';
import { rejects } from '../helpers/rejects.js';

const TOKEN = 'trace-test-token';
const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const job = () => ({ key: vectorFile(bnMult, 'circuit.zkey'), witnesses: [new Uint8Array(readFileSync(vectorFile(bnMult, 'witness.wtns')))] });

interface TraceEvent { name: string; ph: string; ts?: number; args?: { job?: string } }
interface Trace { traceEvents: TraceEvent[]; otherData: { startedAt: string } }

/** Epoch ms at which each span of the trace started, by job id and phase name. */
function spanStarts(t: Trace): { job: string; phase: string; atMs: number }[] {
  const origin = Date.parse(t.otherData.startedAt);
  return t.traceEvents.filter((e) => (e.ph === 'X' || e.ph === 'b') && e.args?.job).map((e) => ({ job: e.args!.job!, phase: e.name, atMs: origin + e.ts! / 1000 }));
}


let d: DaemonProcess;
let grpc: CuzkClient;
let connect: CuzkClient;
const tmp = mkdtempSync(path.join(tmpdir(), 'cuzk-trace-'));
before(async () => {
  d = await startDaemon({ args: [...vectorDirArgs(), '--token', TOKEN, '--backend', 'cpu'] });
  grpc = new CuzkClient({ address: d.address, token: TOKEN });
  connect = new CuzkClient({ address: d.address, token: TOKEN, protocol: 'connect' });
});
after(async () => {
  grpc.close();
  assert.equal(await d.stop('SIGTERM'), 0, d.logs());
  removeDataDir(d.dataDir);
  rmSync(tmp, { recursive: true, force: true });
});

describe('GetTrace', () => {
  it('the window holds the job proved in it, with its synthesis span, and nothing older (gRPC and Connect)', async () => {
    const old = await grpc.prove(job());
    assert.equal(old.state, 'completed', JSON.stringify(old.error));
    // every span of `old` started before this sleep; the window below is shorter than the sleep plus
    // the time `fresh` takes, so it ends before `old` by construction, whatever the machine's speed
    await sleep(2000);
    const t0 = performance.now();
    const fresh = await grpc.prove(job());
    assert.equal(fresh.state, 'completed', JSON.stringify(fresh.error));
    // a window that reaches back past t0 (so it holds `fresh` from its submission on), at most
    // 1.5 s longer than that: it stops short of `old`
    const seconds = Math.ceil((performance.now() - t0) / 1000 + 0.5);
    const calledAt = Date.now();
    const traces = (await Promise.all([grpc.trace(seconds), connect.trace(seconds)])).map((text) => JSON.parse(text) as Trace);
    for (const [i, t] of traces.entries()) {
      const via = i === 0 ? 'gRPC' : 'Connect';
      const spans = spanStarts(t);
      assert.ok(spans.some((s) => s.job === fresh.id && s.phase === 'synthesis'), `${via}: no synthesis span of ${fresh.id} in the last ${seconds} s: ${JSON.stringify(spans)}`);
      assert.ok(!spans.some((s) => s.job === old.id), `${via}: the trace of the last ${seconds} s holds job ${old.id}, proved more than ${seconds} s before`);
      // 2 ms: the trace rounds times to µs, and Date and performance clocks may differ by a little
      for (const s of spans) assert.ok(s.atMs >= calledAt - seconds * 1000 - 2, `${via}: a ${s.phase} span of ${s.job} started ${calledAt - s.atMs} ms before the call, outside the ${seconds} s window`);
    }
    // the longest window holds both
    const all = spanStarts(JSON.parse(await connect.trace(600)) as Trace);
    assert.ok(all.some((s) => s.job === old.id && s.phase === 'synthesis'), 'trace(600) lacks the older job');
  });

  it('seconds out of 1..600 is E_INVALID_ARG, one line naming it', async () => {
    for (const seconds of [0, 601]) {
      for (const c of [grpc, connect]) {
        const err = await rejects(c.trace(seconds), 'E_INVALID_ARG');
        assert.match(err.message, /trace seconds must be an integer 1\.\.600/);
        assert.ok(!err.message.includes('\n'), err.message);
      }
    }
  });

  it('without the token: E_UNAUTHORIZED (gRPC and Connect)', async () => {
    for (const protocol of ['grpc', 'connect'] as const) {
      const anon = new CuzkClient({ address: d.address, token: '', protocol });
      await rejects(anon.trace(60), 'E_UNAUTHORIZED');
      const wrong = new CuzkClient({ address: d.address, token: 'not-the-token', protocol });
      await rejects(wrong.trace(60), 'E_UNAUTHORIZED');
      anon.close();
      wrong.close();
    }
  });

  it('`cuzk trace --seconds N out.json` writes a trace that `cuzk report` turns into a page (exit 0)', async () => {
    const proved = await grpc.prove(job());
    assert.equal(proved.state, 'completed');
    const out = path.join(tmp, 'out.json');
    const html = path.join(tmp, 'report.html');
    const traced = await runChild(['trace', '--remote', d.address, '--token', TOKEN, '--seconds', '600', out]);
    assert.equal(traced.code, 0, traced.stderr);
    const spans = spanStarts(JSON.parse(readFileSync(out, 'utf8')) as Trace);
    assert.ok(spans.some((s) => s.job === proved.id && s.phase === 'synthesis'), `the saved trace lacks job ${proved.id}`);
    const reported = await runChild(['report', out, html]);
    assert.equal(reported.code, 0, reported.stderr);
    assert.ok(existsSync(html) && readFileSync(html, 'utf8').includes('<html'), 'no report page written');
    const bad = await runChild(['trace', '--remote', d.address, '--token', TOKEN, '--seconds', '9999', path.join(tmp, 'bad.json')]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /E_INVALID_ARG/);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
    assert.ok(!existsSync(path.join(tmp, 'bad.json')), 'a refused trace left a file');
  });
});
