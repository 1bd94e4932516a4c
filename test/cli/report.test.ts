// `cuzk report`: the line naming the largest idle gap (a trace built with known gaps), the HTML page
// (self-contained; its utilisation, phase and bandwidth tables), a real trace from `cuzk bench`, and
// bad input as one line and exit 2.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../helpers/capture.js';
import { syntheticTrace } from '../helpers/synthetic-trace.js';

const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-report-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The cells of each body row of the table with this id. */
function tableRows(html: string, id: string): string[][] {
  const m = new RegExp(`<table id="${id}">[\\s\\S]*?<tbody>([\\s\\S]*?)</tbody>`).exec(html);
  assert.ok(m, `no table #${id}`);
  return [...m[1]!.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) => [...r[1]!.matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) => c[1]!));
}

function synthetic(queueHoleMs: number): string {
  const file = path.join(dir, `synthetic-${queueHoleMs}.json`);
  syntheticTrace(file, queueHoleMs);
  return file;
}

describe('cuzk report', () => {
  it('names the largest idle gap, its lane, size, time and cause', async () => {
    const out = path.join(dir, 'a.html');
    let r = await runCli(['report', synthetic(200), out]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'largest idle gap: gpu:0 300 ms at 0.53 s, waiting for synthesis\n');
    assert.equal(r.stderr, '');
    r = await runCli(['report', synthetic(450), out]);
    assert.equal(r.stdout, 'largest idle gap: gpu:0 450 ms at 1.03 s, waiting for the queue (no job waiting for a device)\n');
    r = await runCli(['report', synthetic(450), out, '--json']);
    assert.deepEqual(JSON.parse(r.stdout).largestGap, { lane: 'gpu:0', ms: 450, atMs: 1030, cause: 'queue' });
  });

  it('writes one self-contained page with the utilisation, gap, phase and bandwidth tables', async () => {
    const out = path.join(dir, 'b.html');
    const r = await runCli(['report', synthetic(200), out]);
    assert.equal(r.code, 0, r.stderr);
    const html = readFileSync(out, 'utf8');
    assert.doesNotMatch(html, /<script[^>]*\bsrc\s*=/i, 'no external script');
    assert.doesNotMatch(html, /<link\b/i, 'no linked stylesheet');
    assert.doesNotMatch(html, /@import|url\(\s*['"]?(https?:)?\/\//i, 'no imported style or font');
    assert.doesNotMatch(html, /(src|href)\s*=\s*["']?(https?:)?\/\//i, 'nothing fetched');
    assert.match(html, /new uPlot\(/, 'the charts are drawn');
    assert.match(html, /var uPlot=function/, 'with the chart library inlined');
    // every inline script at least parses
    for (const m of html.matchAll(/<script>([\s\S]*?)<\/script>/g)) assert.doesNotThrow(() => new Function(m[1]!));

    assert.deepEqual(tableRows(html, 'utilisation'), [['gpu:0', '800.0', '55.2%', '650.0', '4', '300.0 ms at 0.53 s, waiting for synthesis']]);
    assert.deepEqual(tableRows(html, 'gaps').map((g) => g.slice(0, 4)), [
      ['gpu:0', '0.53', '300.0', 'waiting for synthesis'],
      ['gpu:0', '1.03', '200.0', 'waiting for the queue (no job waiting for a device)'],
      ['gpu:0', '0.00', '130.0', 'waiting for synthesis'],
      ['gpu:0', '1.43', '20.0', 'waiting for the queue (no job waiting for a device)'],
    ]);
    const phases = new Map(tableRows(html, 'phases').map((p) => [p[0], p.slice(1)]));
    assert.deepEqual(phases.get('msm'), ['gpu:0', '3', '500.0', '100.0', '300.0', '300.0']);
    assert.deepEqual(phases.get('synthesis'), ['synthesis', '3', '840.0', '100.0', '700.0', '700.0']);
    assert.deepEqual(phases.get('h2d'), ['gpu:0:copy', '3', '50.0', '20.0', '20.0', '20.0']);
    assert.deepEqual(tableRows(html, 'bandwidth'), [['3', '429.2', '9.00', '10.00', '15.00', '15.00']]);
    assert.match(html, /Pinned vs pageable: not in the trace/);
  });

  it('escapes names from the trace', async () => {
    const file = path.join(dir, 'hostile.json');
    writeFileSync(file, JSON.stringify({ traceEvents: [
      { name: 'thread_name', ph: 'M', pid: 1, tid: 1, args: { name: 'cpu' } },
      { name: '<img src=x onerror=alert(1)>', ph: 'X', pid: 1, tid: 1, ts: 0, dur: 1000, args: {} },
    ] }));
    const out = path.join(dir, 'hostile.html');
    assert.equal((await runCli(['report', file, out])).code, 0);
    const html = readFileSync(out, 'utf8');
    assert.ok(!html.includes('<img'), 'the span name is escaped');
    assert.ok(html.includes('&#60;img src=x'));
  });

  it('reports a real trace from `cuzk bench --backend cpu --trace`', async () => {
    const trace = path.join(dir, 'bench.json');
    const b = await runCli(['bench', '--size', '12', '--jobs', '4', '--warmup', '1', '--backend', 'cpu', '--threads', '2', '--trace', trace, '--json']);
    assert.equal(b.code, 0, b.stderr);
    const out = path.join(dir, 'bench.html');
    const r = await runCli(['report', trace, out]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^largest idle gap: cpu \d+(\.\d)? ms at \d+\.\d\d s, .+\n$/);
    const html = readFileSync(out, 'utf8');
    const [util] = tableRows(html, 'utilisation');
    assert.equal(util![0], 'cpu');
    assert.ok(parseFloat(util![2]!) > 0 && parseFloat(util![2]!) <= 100, util![2]);
    const phases = new Set(tableRows(html, 'phases').map((p) => p[0]));
    for (const p of ['queue', 'synthesis', 'ntt', 'msm', 'finalize', 'verify']) assert.ok(phases.has(p), `phase ${p} in ${[...phases].join(',')}`);
    assert.deepEqual(tableRows(html, 'phases').find((p) => p[0] === 'msm')![2], '5', '4 jobs after 1 warm-up: 5 msm spans');
    assert.match(html, /No copy spans with byte counts/);
  });

  it('bad input: one line naming the file and the problem, exit 2', async () => {
    const out = path.join(dir, 'bad.html');
    const cases: [string, string | null, RegExp][] = [
      ['notjson.json', '{"traceEvents": [', /notjson\.json: not JSON \(/],
      ['nottrace.json', '{"spans": []}', /nottrace\.json: not a Chrome trace \(no traceEvents array\)/],
      ['empty.json', '{"traceEvents": [{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"cpu"}}]}', /empty\.json: empty trace/],
      ['badevent.json', '{"traceEvents": [{"name":"msm","ph":"X","ts":0}]}', /badevent\.json: traceEvents\[0\] \("msm"\) has no numeric "dur"/],
      ['missing.json', null, /missing\.json: cannot read the trace \(ENOENT\)/],
    ];
    for (const [name, text, want] of cases) {
      const file = path.join(dir, name);
      if (text !== null) writeFileSync(file, text);
      const r = await runCli(['report', file, out]);
      assert.equal(r.code, 2, `${name}: ${r.stderr}`);
      assert.match(r.stderr, want);
      assert.equal(r.stderr.split('\n').length, 2, `one line: ${r.stderr}`);
      assert.equal(r.stdout, '');
    }
    const good = synthetic(200);
    const noDir = path.join(dir, 'no-such-dir', 'r.html');
    let r = await runCli(['report', good, noDir]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no-such-dir\/r\.html: cannot write the report \(ENOENT/);
    const isDir = path.join(dir, 'a-dir');
    mkdirSync(isDir);
    r = await runCli(['report', good, isDir]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /a-dir: cannot write the report \(EISDIR/);
    r = await runCli(['report', good]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /report needs 2 arguments/);
    r = await runCli(['report', good, out, '--bin-ms', '0']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--bin-ms must be/);
  });
});
