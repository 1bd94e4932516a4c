// `cuzk serve`: configuration (TOML, flags), the daemon (built by src/server/compose.ts), and the
// signals: the first SIGINT/SIGTERM drains and exits, a second exits at once.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { log, setLogLevel } from '../log.js';
import { startServeDaemon } from '../server/compose.js';
import { redactUrl, urlHasPassword } from '../server/journal/pg-faults.js';
import { loadServeConfig, optionsHelp, printConfig } from '../server/startup/config.js';
import { checkExposure, parseListen } from '../server/transport/auth.js';
import type { CliContext } from './output.js';
import { findProjectRoot } from './root.js';

export const SERVE_HELP = `usage: cuzk serve [--config cuzk.toml] [--print-config] [--check] [options]

Runs the proving daemon: gRPC, gRPC-Web and Connect (JSON over HTTP) on one port, plus
GET /metrics (Prometheus), /healthz and /readyz. Jobs are journaled in <data_dir>/journal.sqlite
(or, with --store postgres://USER@HOST:PORT/DB, in PostgreSQL) and survive restarts. SIGINT/SIGTERM drain (a second
signal exits at once). --takeover: a daemon already running on this data dir is sent SIGTERM, and this
one starts once it has drained and released the journal (its queued jobs run here). A configured
memory budget (engine.memory_host_bytes, engine.memory_pinned_bytes) above what is available is waited
for up to engine.memory_wait_s, then lowered to fit or, with memory_wait_policy = "exit", refused (exit 2). --check runs \`cuzk doctor\`'s checks for this configuration and exits with their
status (0 ok, 1 failed).

Every option is a TOML key (sections as shown) and a flag; flags win over the file:
${optionsHelp()}`;

export async function serveCommand(ctx: CliContext, flags: Map<string, string | true>): Promise<number> {
  const configFlag = flags.get('config');
  const cfg = loadServeConfig({ configPath: typeof configFlag === 'string' ? configFlag : undefined, flags });
  if (flags.has('print-config')) return (ctx.io.out(printConfig(cfg)), 0);
  if (flags.has('check')) return (await import('./doctor.js')).runDoctor(ctx, cfg);
  const exposure = checkExposure(parseListen(cfg.listen), cfg.token, { cert: cfg.tlsCert, clientCa: cfg.tlsClientCa }); // before anything opens
  setLogLevel(cfg.logLevel); // the one level: daemon, engine and native loader log through `log`
  if (exposure) log.warn(exposure);
  const storeFlag = flags.get('store');
  if (typeof storeFlag === 'string' && urlHasPassword(storeFlag)) {
    log.warn({ store: redactUrl(storeFlag) }, '--store carries a password, which every local user can read in this process\'s command line (ps, /proc/<pid>/cmdline): give it in $PGPASSWORD, ~/.pgpass, or store.url in a TOML file only the daemon\'s user reads');
  }
  const packageRoot = findProjectRoot();
  const version = (JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
  const daemon = await startServeDaemon(cfg, { log, version, packageRoot });
  return new Promise<number>((resolve) => {
    let signals = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      if (++signals > 1) {
        log.warn({ signal: sig }, 'second signal: exiting at once');
        log.flush();
        process.exit(130);
      }
      daemon.stop(sig).then(
        () => resolve(0),
        (err: Error) => {
          log.error({ err }, 'shutdown failed');
          resolve(1);
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }).finally(() => log.flush());
}
