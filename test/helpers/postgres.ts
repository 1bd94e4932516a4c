// A real PostgreSQL server for the tests: Debian's binaries (/usr/lib/postgresql/<v>/bin), a new
// cluster in a temp dir (initdb, trust auth for one superuser), listening on 127.0.0.1 at a free port
// and on a unix socket in that dir; stopped and removed by stop(), or when the test process exits. PostgreSQL refuses to run as root,
// so as root the server runs as an unprivileged system user (cuzk-test, made with useradd if absent)
// through runuser. When no server can be started, postgresProblem() says what is missing and what
// to do (`.ci/run` installs the `postgresql` package with apt-get).
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

const PG_LIB = '/usr/lib/postgresql';
const RUN_AS = 'cuzk-test';
export const PG_SUPERUSER = 'cuzk';

/** The newest installed server's bin dir, or undefined. */
function binDir(): string | undefined {
  if (!existsSync(PG_LIB)) return undefined;
  const versions = readdirSync(PG_LIB)
    .filter((v) => existsSync(path.join(PG_LIB, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] && path.join(PG_LIB, versions[0], 'bin');
}

const isRoot = process.getuid?.() === 0;

function hasUser(name: string): boolean {
  return spawnSync('id', ['-u', name]).status === 0;
}

/** Why a server cannot be started here (undefined: it can). Made once per process. */
let problem: string | undefined | null = null;
export function postgresProblem(): string | undefined {
  if (problem !== null) return problem;
  problem = undefined;
  if (!binDir()) problem = `PostgreSQL is not installed (no ${PG_LIB}/*/bin/initdb): apt-get install -y postgresql (.ci/run does this)`;
  else if (isRoot && !hasUser(RUN_AS)) {
    const r = spawnSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', RUN_AS], { encoding: 'utf8' });
    if (r.status !== 0) problem = `PostgreSQL refuses to run as root and the user ${RUN_AS} could not be made (useradd: ${(r.stderr || r.error?.message || '').trim()})`;
  }
  if (problem) process.stderr.write(`\n!!! PostgreSQL tests NOT RUN: ${problem}\n\n`);
  return problem;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface PostgresServer {
  port: number;
  /** postgres://cuzk@127.0.0.1:<port>/<db> */
  url(db: string): string;
  /** A new, empty database; returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** pg_ctl stop -m fast: connections are closed, the cluster is kept (start() brings it back). */
  halt(): void;
  start(): void;
  /** Stops the server and removes its directory. */
  stop(): void;
}

/** Starts a cluster; throws the postgresProblem() when one cannot be started. */
export async function startPostgres(): Promise<PostgresServer> {
  const why = postgresProblem();
  if (why) throw new Error(why);
  const bin = binDir()!;
  const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-pg-'));
  if (isRoot) execFileSync('chown', [`${RUN_AS}:`, dir]);
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  const port = await freePort();
  const run = (tool: string, args: string[]) => {
    const cmd = isRoot ? ['runuser', '-u', RUN_AS, '--', path.join(bin, tool), ...args] : [path.join(bin, tool), ...args];
    const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) {
      const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : '';
      throw new Error(`${cmd.join(' ')} failed (${r.status ?? r.error?.message}):\n${r.stdout}${r.stderr}${log}`);
    }
  };
  run('initdb', ['-D', data, '-U', PG_SUPERUSER, '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  const start = () => run('pg_ctl', ['-D', data, '-l', logFile, '-w', '-t', '60', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, 'start']);
  start();
  const url = (db: string) => `postgres://${PG_SUPERUSER}@127.0.0.1:${port}/${db}`;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stop);
    try {
      run('pg_ctl', ['-D', data, '-w', '-m', 'immediate', 'stop']);
    } catch {
      // already halted
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop); // a test process that dies leaves no server behind
  return {
    port,
    url,
    async createDatabase(name) {
      const c = new pg.Client({ connectionString: url('postgres') });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      } finally {
        await c.end();
      }
      return url(name);
    },
    halt: () => run('pg_ctl', ['-D', data, '-w', '-m', 'fast', 'stop']),
    start,
    stop,
  };
}
