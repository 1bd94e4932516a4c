// The composition root of `cuzk serve`: the one place that builds the daemon's parts from its
// configuration, in start order: the journal (SQLite on its own thread, taken over from a draining
// daemon with --takeover, or PostgreSQL), the memory budgets (waited for), the engine, the fleet
// membership (PostgreSQL), the spool and intake, the runner of the daemon's mode and JobService,
// then the Daemon that runs them. Whatever was opened is closed again if a later step fails.
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log.js';
import { FleetMember } from './fleet/fleet-member.js';
import { confinedWitnessOpener } from './intake/file-access.js';
import { prepareSpoolDir, WitnessSpool } from './intake/spool.js';
import { WitnessIntake } from './intake/witness-intake.js';
import { FleetRunner } from './jobs/fleet-runner.js';
import { JobService } from './jobs/job-service.js';
import { LocalRunner } from './jobs/local-runner.js';
import { openJournalThread } from './journal/journal-thread.js';
import { openPostgresStore } from './journal/pg-store.js';
import { generatedWitnessDir, journalPath, toEngineConfig, type ServeConfig } from './startup/config.js';
import { waitForMemory } from './startup/memory-wait.js';
import { startEngine } from './startup/start-engine.js';
import { openTakingOver } from './startup/takeover.js';
import { Daemon } from './daemon.js';

export interface ComposeOptions {
  log: Logger;
  version: string;
  /** The installed package's folder: the dashboard's files are read from it. */
  packageRoot: string;
}

/** Builds and starts the daemon for `cfg`; resolves once it listens. */
export async function startServeDaemon(cfg: ServeConfig, opts: ComposeOptions): Promise<Daemon> {
  const { log } = opts;
  // SQLite's commits wait on a thread of their own, not the event loop; PostgreSQL's are I/O
  const journal = journalPath(cfg);
  const openJournal = () => openJournalThread(journal);
  const pgStore = cfg.storeUrl ? await openPostgresStore(cfg.storeUrl, cfg.storePoolSize) : undefined;
  // --takeover: a daemon holding this journal is asked to drain, and this one starts when it lets go
  const store = pgStore ?? (cfg.takeover ? await openTakingOver(journal, openJournal, { timeoutS: cfg.takeoverTimeoutS, log }) : await openJournal());
  let engine;
  try {
    // after a takeover too: the old daemon's pinned memory returns only as the driver frees it
    await prepareSpoolDir(cfg.spoolDir); // a bad files.spool_dir stops the start before any memory is taken
    const budgets = await waitForMemory(cfg, { log });
    rmSync(generatedWitnessDir(cfg), { recursive: true, force: true }); // witnesses a killed daemon left: private, no job's now
    const spoolDir = cfg.spoolDir;
    const openWitness = confinedWitnessOpener([...cfg.inputDirs, spoolDir]);
    engine = await startEngine({ ...toEngineConfig({ ...cfg, ...budgets }), logger: log, openWitness });
    const spool = new WitnessSpool(spoolDir, cfg.uploadTtlS * 1000, log);
    const intake = new WitnessIntake(engine, spool, cfg);
    // on PostgreSQL the daemon claims from a queue other daemons may share
    const fleet = pgStore && new FleetMember(pgStore.pool, pgStore.url, engine, cfg.leaseMs, log, pgStore.fleetSecret, cfg.storeNotify);
    const runner = fleet ? new FleetRunner(engine, fleet, store, intake, cfg, log) : new LocalRunner(engine, store, spool, cfg, log);
    const jobs = new JobService(runner, store, intake, cfg);
    const daemon = new Daemon({ cfg, engine, store, log, version: opts.version, packageRoot: opts.packageRoot, intake, jobs, fleetRunner: runner instanceof FleetRunner ? runner : undefined });
    await daemon.start();
    return daemon;
  } catch (err) {
    await engine?.close();
    await store.close();
    throw err;
  }
}
