// `npm run bench -- fleet [--size 12] [--jobs 30] [--clients 6] [--daemons 3]`: throughput of several
// `cuzk serve` daemons (CPU core) sharing one PostgreSQL queue against one daemon on the same queue,
// same jobs, same machine, and the claim latency. It starts its own PostgreSQL server (as the tests do,
// test/helpers/postgres.ts) and its daemons as child processes (test/helpers/fleet.ts), each with the
// key preloaded, so the window holds proofs and claims only. Clients are closed loops (submit to a
// daemon, await, submit again), spread over the daemons; the window runs from the first submit to the
// last completion. Claim latency is the daemons' own cuzk_fleet_claim_seconds (the claim statement,
// empty claims included) and, from the jobs table, queue wait (submitted -> claimed).
import path from 'node:path';
import type { CuzkClient } from '../src/client/index.js';
import type { CurveName } from '../src/formats/curves.js';
import { queryOnce, startFleet, stopFleet, type FleetDaemon } from '../test/helpers/fleet.js';
import { startPostgres, type PostgresServer } from '../test/helpers/postgres.js';
import { benchFixture } from './fixtures.js';

export interface FleetRun {
  daemons: number;
  jobs: number;
  failed: number;
  seconds: number;
  proofsPerS: number;
  claimP50Ms: number;
  claimP99Ms: number;
  claims: number;
  waitP50Ms: number;
  waitP99Ms: number;
  /** Jobs each daemon ran, in start order. */
  perDaemon: number[];
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

/** The daemon's claim-latency quantiles (seconds), claim statements run, and jobs claimed, from /metrics. */
async function claimMetrics(c: CuzkClient): Promise<{ p50: number; p99: number; n: number; jobs: number }> {
  const text = await c.metrics();
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
  return {
    p50: num(/^cuzk_fleet_claim_seconds\{quantile="0.5"\} (\S+)/m), p99: num(/^cuzk_fleet_claim_seconds\{quantile="0.99"\} (\S+)/m), n: num(/^cuzk_fleet_claim_seconds_count (\S+)/m),
    jobs: num(/^cuzk_fleet_claims_total\{resident="true"\} (\d+)/m) + num(/^cuzk_fleet_claims_total\{resident="false"\} (\d+)/m),
  };
}

async function runFleet(server: PostgresServer, n: number, fx: { zkey: string; wtns: string }, jobs: number, clients: number): Promise<FleetRun> {
  const url = await server.createDatabase(`bench_fleet_${n}_${Date.now()}`);
  const dir = path.dirname(fx.zkey);
  let fleet: FleetDaemon[] = [];
  try {
    fleet = await startFleet(url, n, ['--preload-key', fx.zkey, '--key-dirs', dir, '--input-dirs', dir]);
    let next = 0;
    let failed = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: clients }, async (_, c) => {
      const via = fleet[c % fleet.length]!.client;
      while (next < jobs) {
        next++;
        const { job } = await via.submit({ key: fx.zkey, witnessFiles: [fx.wtns] });
        let j = await via.await(job.id, 120_000);
        while (j.state === 'queued' || j.state === 'running') j = await via.await(job.id, 120_000);
        if (j.state !== 'completed') failed++;
      }
    }));
    const seconds = (performance.now() - t0) / 1000;
    const m = await Promise.all(fleet.map((f) => claimMetrics(f.client)));
    const rows = await queryOnce<{ wait: string }>(url, "SELECT claimed_at - submitted_at AS wait FROM jobs WHERE state = 'completed'");
    const waits = rows.map((r) => Number(r.wait));
    return {
      daemons: n, jobs, failed, seconds, proofsPerS: jobs / seconds,
      // over daemons: the worst daemon's quantile (each keeps its own last 4096 claims)
      claimP50Ms: Math.max(...m.map((x) => x.p50)) * 1000, claimP99Ms: Math.max(...m.map((x) => x.p99)) * 1000, claims: m.reduce((s, x) => s + x.n, 0),
      waitP50Ms: quantile(waits, 0.5), waitP99Ms: quantile(waits, 0.99), perDaemon: m.map((x) => x.jobs),
    };
  } finally {
    await stopFleet(fleet);
  }
}

export async function benchFleet(root: string, opts: { curve: CurveName; size: number; jobs: number; clients: number; daemons: number }): Promise<{ what: string; runs: FleetRun[] }> {
  const fx = await benchFixture(root, opts.curve, opts.size, (s) => console.error(s));
  const server = await startPostgres();
  try {
    const runs: FleetRun[] = [];
    for (const n of [1, opts.daemons]) {
      console.error(`fleet bench: ${n} daemon(s), ${opts.jobs} jobs, ${opts.clients} clients`);
      runs.push(await runFleet(server, n, fx, opts.jobs, opts.clients));
    }
    return { what: `dev-circuit ${opts.curve} 2^${fx.lgDomain} (${fx.constraints} constraints)`, runs };
  } finally {
    server.stop();
  }
}

/** The Markdown table of the runs (first run = the baseline). */
export function fleetTable(runs: FleetRun[]): string[] {
  const base = runs[0]!;
  const col = (f: (r: FleetRun) => string) => runs.map(f).join(' | ');
  return [
    `| metric | ${col((r) => `${r.daemons} daemon${r.daemons > 1 ? 's' : ''}`)} |`,
    `|---|${runs.map(() => '---|').join('')}`,
    `| jobs completed / failed | ${col((r) => `${r.jobs - r.failed} / ${r.failed}`)} |`,
    `| window s | ${col((r) => r.seconds.toFixed(1))} |`,
    `| proofs/s | ${col((r) => r.proofsPerS.toFixed(2))} |`,
    `| vs 1 daemon | ${col((r) => `${(r.proofsPerS / base.proofsPerS).toFixed(2)}x`)} |`,
    `| jobs per daemon | ${col((r) => r.perDaemon.join(' / '))} |`,
    `| claim statement p50 ms | ${col((r) => r.claimP50Ms.toFixed(2))} |`,
    `| claim statement p99 ms | ${col((r) => r.claimP99Ms.toFixed(2))} |`,
    `| claims sampled | ${col((r) => String(r.claims))} |`,
    `| queue wait p50 ms | ${col((r) => r.waitP50Ms.toFixed(0))} |`,
    `| queue wait p99 ms | ${col((r) => r.waitP99Ms.toFixed(0))} |`,
  ];
}
