// `cuzk doctor` and `cuzk serve --check`: the preflight checks (src/server/preflight*.ts, the native
// core's in doctor-device.ts) for the configuration `cuzk serve` would run with, one line each on stdout (or one JSON object with
// --json); exit 0 when nothing fails (warnings do not), 1 when something does.
import { resolveConfig } from '../engine/create.js';
import { log } from '../log.js';
import { loadServeConfig, optionsHelp, toEngineConfig, type ServeConfig } from '../server/startup/config.js';
import { memoryChecks, processCheck, readMeminfo, type Check } from '../server/startup/preflight.js';
import { fileChecks } from '../server/startup/preflight-files.js';
import { backendChecks, pinnedCheck } from './doctor-device.js';
import type { CliContext } from './output.js';

export const DOCTOR_HELP = `usage: cuzk doctor [--config cuzk.toml] [serve options] [--json]

Whether this machine can serve as configured, and what to do if not: the backend and GPUs (memory
free, another process holding some), host memory against the budgets, a short pinned-memory probe
(GPU backend only), other cuzk serve processes, the listen address, the data dir and its journal,
and every key a daemon would load, with its size against the GPUs' memory. Nothing a running daemon
holds is disturbed. \`cuzk serve --check\` runs the same checks and exits without serving.
Exit status: 0 nothing failed (warnings allowed), 1 something failed, 2 a bad option.

Takes every option of \`cuzk serve\`:
${optionsHelp()}`;

const LABEL = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const;

/** Runs every check for `cfg` and prints them; returns the exit status. */
export async function runDoctor(ctx: CliContext, cfg: ServeConfig): Promise<number> {
  const checks: Check[] = [];
  const gpus = backendChecks(cfg, log, checks);
  const budget = resolveConfig(toEngineConfig(cfg)).memory; // the engine's defaults: fractions of RAM
  checks.push(...memoryChecks(cfg, budget, readMeminfo()), pinnedCheck(cfg, gpus, budget.pinned), processCheck(cfg));
  checks.push(...(await fileChecks(cfg, gpus, budget.host)));
  const failed = checks.filter((c) => c.status === 'fail').length;
  const warnings = checks.filter((c) => c.status === 'warn').length;
  if (ctx.json) {
    ctx.io.out(JSON.stringify({ ok: failed === 0, failed, warnings, checks }) + '\n');
    return failed > 0 ? 1 : 0;
  }
  const width = Math.max(...checks.map((c) => c.check.length));
  const lines = checks.map((c) => `  ${LABEL[c.status]}  ${c.check.padEnd(width)}  ${c.found}${c.action ? `\n        ${' '.repeat(width)}  → ${c.action}` : ''}`);
  const verdict = failed > 0 ? `${failed} failed${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}: cuzk serve cannot serve as configured; fix the FAIL lines first` : `ready to serve${warnings ? ` (${warnings} warning${warnings === 1 ? '' : 's'})` : ''}`;
  if (!ctx.quiet || failed > 0) ctx.io.out(`cuzk doctor: listen ${cfg.listen}, data dir ${cfg.dataDir}\n${lines.join('\n')}\n${verdict}\n`);
  return failed > 0 ? 1 : 0;
}

export async function doctorCommand(ctx: CliContext, flags: Map<string, string | true>): Promise<number> {
  const configFlag = flags.get('config');
  return runDoctor(ctx, loadServeConfig({ configPath: typeof configFlag === 'string' ? configFlag : undefined, flags }));
}
