// The daemon's lifecycle around any ProvingEngine: start (reload registered keys, resubmit journaled
// jobs, purge old results, listen), and stop (stop intake, drain the engine within the deadline,
// close the listener, close the engine, journal what finished; unfinished jobs stay queued).
import path from 'node:path';
import { errorMessage, InputError } from '../errors.js';
import type { EngineStatus, ProvingEngine } from '../engine/api.js';
import type { Logger } from '../log.js';
import { checkExposure, parseListen } from './transport/auth.js';
import { uploadedKeysDir, type ServeConfig } from './startup/config.js';
import { loadDashboardAssets } from './transport/dashboard/assets.js';
import { checkConfined } from './intake/file-access.js';
import { fleetMetrics } from './fleet/fleet-member.js';
import { createListener, type Listener } from './transport/http.js';
import { freeUnixSocketPath } from './transport/unix-socket.js';
import type { FleetRunner } from './jobs/fleet-runner.js';
import type { JobService } from './jobs/job-service.js';
import type { JobStore } from './journal/job-store.js';
import type { WitnessIntake } from './intake/witness-intake.js';

export interface DaemonDeps {
  cfg: ServeConfig;
  engine: ProvingEngine;
  store: JobStore;
  log: Logger;
  version: string;
  intake: WitnessIntake;
  jobs: JobService;
  /** Set with a PostgreSQL store: this daemon claims from the queue it shares with others. */
  fleetRunner?: FleetRunner;
  /** The installed package's folder: the dashboard's files are read from it. */
  packageRoot: string;
}

export class Daemon {
  readonly jobs: JobService;
  readonly intake: WitnessIntake;
  #listener: Listener | undefined;
  #ready = false;
  #purgeTimer: NodeJS.Timeout | undefined;
  #stopping: Promise<{ unfinished: number }> | undefined;

  /** Its parts are built by the composition root (compose.ts). */
  constructor(private readonly deps: DaemonDeps) {
    this.jobs = deps.jobs;
    this.intake = deps.intake;
  }

  /** Listens and returns the address ("host:port" or "unix:/path"). */
  async start(): Promise<string> {
    const { cfg, engine, store, log } = this.deps;
    const addr = parseListen(cfg.listen);
    checkExposure(addr, cfg.token, { cert: cfg.tlsCert, clientCa: cfg.tlsClientCa });
    const reloadDirs = [...cfg.keyDirs, uploadedKeysDir(cfg)];
    for (const k of await store.keys()) {
      await checkConfined(k.path, reloadDirs, 'key').then((f) => engine.loadKey(f.path, { id: k.id })).then(
        () => log.info({ keyId: k.id, path: k.path }, 'registered key reloaded'),
        (err: Error) => log.warn({ keyId: k.id, path: k.path, err: err.message }, 'registered key could not be reloaded: jobs naming it will fail'),
      );
    }
    for (const p of cfg.preload) {
      const info = await engine.loadKey(p);
      log.info({ keyId: info.id, bytes: info.bytes }, 'key preloaded');
    }
    // the first chunk of the pinned pool (one proof's buffers) before ready; the rest grows in the background
    await engine.growPool();
    const unfinished = await store.unfinished();
    await this.intake.spool.open(new Set(unfinished.flatMap((s) => (s.request?.witnessFiles ?? []).filter((f) => f.owned).map((f) => f.path))));
    // in a fleet nothing is replayed: unfinished jobs are claimed, a dead daemon's once its leases expire
    if (!this.deps.fleetRunner) {
      const rec = await this.jobs.recover(unfinished);
      if (rec.resubmitted + rec.expired + rec.lost + rec.waiting > 0) log.info(rec, 'journal replayed');
    }
    await this.#purge();
    this.#purgeTimer = setInterval(() => void this.#purge(), Math.min(60_000, Math.max(1000, cfg.retentionS * 100))).unref();
    const dashboardAssets = loadDashboardAssets(this.deps.packageRoot);
    if (!dashboardAssets.ok) log.warn({ problem: dashboardAssets.problem }, 'dashboard unavailable: GET / answers 503, RPCs are served');
    const ctx = { cfg, engine, jobs: this.jobs, intake: this.intake, store, log, version: this.deps.version, metrics: () => this.#metrics(), dashboardAssets };
    this.#listener = createListener(ctx, { notReady: async () => (this.#ready ? (noHealthyDevice(engine.status()) ?? store.writeProblem()) : 'starting or stopping') });
    const server = this.#listener.server;
    if (addr.kind === 'unix') await freeUnixSocketPath(addr.path);
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => reject(new InputError('E_INVALID_ARG', `cannot listen on ${cfg.listen}: ${err.code === 'EADDRINUSE' ? 'the address is in use (another cuzk serve?)' : err.message}`, { cause: err })));
      if (addr.kind === 'unix') server.listen(addr.path, resolve);
      else server.listen(addr.port, addr.host, resolve);
    });
    const a = server.address();
    const where = typeof a === 'string' ? `unix:${a}` : a ? `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` : cfg.listen;
    if (this.deps.fleetRunner && !cfg.advertise && /^(0\.0\.0\.0|\[::\]):/.test(where)) {
      log.warn({ address: where }, 'other daemons of the fleet cannot fetch witnesses spooled here from a wildcard address: set store.advertise (--advertise) to host:port they reach');
    }
    await this.deps.fleetRunner?.fleet.start(cfg.advertise || where, this.deps.fleetRunner);
    this.#ready = true;
    log.info({ address: where, backend: engine.status().backend, token: cfg.token ? 'required' : 'none', tls: cfg.tlsClientCa ? 'mtls' : cfg.tlsCert ? 'tls' : 'none' }, 'cuzk serve listening');
    return where;
  }

  async #purge(): Promise<void> {
    const before = Date.now() - this.deps.cfg.retentionS * 1000;
    this.jobs.prune(before);
    try {
      const n = await this.deps.store.purge(before);
      if (n > 0) this.deps.log.info({ purged: n }, 'old results purged');
    } catch (err) {
      this.deps.log.error({ err: errorMessage(err) }, 'purging old results failed: retried at the next interval');
    }
  }

  async #metrics(): Promise<string> {
    const counts = await this.deps.store.counts();
    const rows = Object.entries(counts).map(([state, n]) => `cuzk_journal_jobs{state="${state}"} ${n}`);
    const fleet = this.deps.fleetRunner ? fleetMetrics(this.deps.fleetRunner.fleet) : [];
    return (await this.deps.engine.metricsText()) + ['# HELP cuzk_journal_jobs Jobs in the journal, by state.', '# TYPE cuzk_journal_jobs gauge', ...rows, ...fleet, ...(this.#listener?.metricsLines?.() ?? [])].join('\n') + '\n';
  }

  /** Idempotent: a second call returns the first call's promise. */
  stop(reason = 'stop'): Promise<{ unfinished: number }> {
    this.#stopping ??= this.#stop(reason);
    return this.#stopping;
  }

  async #stop(reason: string): Promise<{ unfinished: number }> {
    const { cfg, engine, store, log } = this.deps;
    log.info({ reason, drainTimeoutMs: cfg.drainTimeoutMs }, 'stopping: no new jobs, draining');
    this.#ready = false;
    this.jobs.stopIntake();
    this.deps.fleetRunner?.fleet.stopClaiming();
    clearInterval(this.#purgeTimer);
    const { unfinished } = await engine.drain(cfg.drainTimeoutMs);
    this.jobs.drained();
    await new Promise((r) => setTimeout(r, 100)); // let those answers leave before the sockets close
    await this.#listener?.close();
    await engine.close();
    await Promise.race([this.jobs.settle(), new Promise((r) => setTimeout(r, 5000).unref())]);
    await this.deps.fleetRunner?.fleet.stop(unfinished.map((j) => j.id));
    await store.close();
    this.intake.spool.close();
    log.info({ unfinished: unfinished.length }, 'stopped: unfinished jobs stay queued in the journal');
    return { unfinished: unfinished.length };
  }
}

/** /readyz's reason when no device lane takes work (each lost with E_DEVICE_LOST), else undefined. */
export function noHealthyDevice(s: Pick<EngineStatus, 'devices'>): string | undefined {
  if (s.devices.some((d) => d.healthy)) return undefined;
  return `no healthy device: ${s.devices.map((d) => `${d.id}: ${d.unhealthyReason ?? 'unhealthy'}`).join('; ')}`;
}
