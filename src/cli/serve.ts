// `cuzk serve`: configuration (TOML, flags), the engine, the journal, the daemon, and the signals:
// the first SIGINT/SIGTERM drains and exits, a second exits at once.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { log, setLogLevel } from '../log.js';
import { checkExposure, parseListen } from '../server/transport/auth.js';
import { loadServeConfig, journalPath, optionsHelp, printConfig, toEngineConfig } from '../server/startup/config.js';
import { Daemon } from '../server/daemon.js';
import { FleetMember } from '../server/fleet/fleet-member.js';
import { waitForMemory } from '../server/startup/memory-wait.js';
import { openJournalThread } from '../server/journal/journal-thread.js';
import { openPostgresStore } from '../server/journal/pg-store.js';
import { startEngine } from '../server/startup/start-engine.js';
import { openTakingOver } from '../server/startup/takeover.js';
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
  const packageRoot = findProjectRoot();
  const version = (JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
  // SQLite's commits wait on a thread of their own, not the event loop; PostgreSQL's are I/O
  const journal = journalPath(cfg);
  const openJournal = () => openJournalThread(journal);
  // --takeover: a daemon holding this journal is asked to drain, and this one starts when it lets go
  const pgStore = cfg.storeUrl ? await openPostgresStore(cfg.storeUrl, cfg.storePoolSize) : undefined;
  const store = pgStore ?? (cfg.takeover ? await openTakingOver(journal, openJournal, { timeoutS: cfg.takeoverTimeoutS, log }) : await openJournal());
  // after a takeover too: the old daemon's pinned memory returns only as the driver frees it
  let budgets: Awaited<ReturnType<typeof waitForMemory>>;
  try {
    budgets = await waitForMemory(cfg, { log });
  } catch (err) {
    await store.close();
    throw err;
  }
  const engine = await startEngine({ ...toEngineConfig({ ...cfg, ...budgets }), logger: log });
  // on PostgreSQL the daemon claims from a queue other daemons may share
  const fleet = pgStore && new FleetMember(pgStore.pool, pgStore.url, engine, cfg.leaseMs, log, cfg.storeNotify);
  const daemon = new Daemon({ cfg, engine, store, log, version, fleet, packageRoot });
  try {
    await daemon.start();
  } catch (err) {
    await engine.close();
    await store.close();
    throw err;
  }
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
