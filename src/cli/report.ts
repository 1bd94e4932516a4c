// `cuzk report <trace.json> <report.html>`: a trace from `cuzk bench --trace` or `cuzk serve`'s
// trace_path as one self-contained HTML page (src/report), and one line naming the largest idle gap.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors.js';
import { analyseTrace, DEFAULT_BIN_MS, largestGapLine } from '../report/analyse.js';
import { renderReportHtml } from '../report/html.js';
import { readTraceFile } from '../report/trace-read.js';
import { checkOutputPaths, printResult, writeOutput, type CliContext } from './output.js';
import { findProjectRoot } from './root.js';

export const REPORT_HELP = `usage: cuzk report <trace.json> <report.html> [--bin-ms N] [--json]

Reads a Chrome/Perfetto trace written by \`cuzk bench --trace\` or \`cuzk serve\` (trace_path) and
writes one HTML page that works offline: each device lane's utilisation (over the trace and per
--bin-ms bin, default ${DEFAULT_BIN_MS}), its idle gaps and what the pipeline was doing during each
(waiting for synthesis, upload, witness, dispatch, or the queue: no job in flight), per-phase
p50/p90/max, and the upload bandwidth of the copy spans. Prints the largest idle gap and its cause.
Exit status: 0 written, 2 bad input (unreadable, not JSON, not a trace, empty; output not writable).`;

function chartAssets(): { script: string; css: string } {
  const dir = path.join(findProjectRoot(), 'vendor', 'uplot');
  try {
    return { script: readFileSync(path.join(dir, 'uPlot.iife.min.js'), 'utf8'), css: readFileSync(path.join(dir, 'uPlot.min.css'), 'utf8') };
  } catch (cause) {
    throw new InputError('E_NOT_FOUND', `${dir}: the chart library is missing from the installation (reinstall cuzk)`, { cause });
  }
}

export function reportCommand(ctx: CliContext, args: string[], flags: ReadonlyMap<string, string | true>): number {
  if (args.length !== 2) throw new InputError('E_INVALID_ARG', `report needs 2 arguments (trace.json report.html), got ${args.length}\n${REPORT_HELP}`);
  const [tracePath, htmlPath] = args as [string, string];
  const binFlag = flags.get('bin-ms');
  const binMs = binFlag === undefined ? DEFAULT_BIN_MS : Number(binFlag);
  if (!Number.isFinite(binMs) || binMs < 0.001 || binMs > 3_600_000) {
    throw new InputError('E_INVALID_ARG', `--bin-ms must be a number of ms in 0.001..3600000, got ${String(binFlag)}`);
  }
  checkOutputPaths({ report: htmlPath });
  const report = analyseTrace(readTraceFile(tracePath), binMs);
  writeOutput(htmlPath, renderReportHtml(report, tracePath, chartAssets()), 'report');
  const g = report.gaps[0];
  printResult(ctx, {
    report: htmlPath,
    largestGap: g ? { lane: g.lane, ms: g.dur, atMs: g.start - report.window.start, cause: g.cause } : null,
    lanes: report.lanes.map((l) => ({ lane: l.lane, utilisation: l.utilisation })),
  }, largestGapLine(report));
  return 0;
}
