// The PostgreSQL JobStore on a real server (test/helpers/postgres.ts starts one, as an unprivileged
// user, on a free port): the conformance suite every JobStore passes, then what is PostgreSQL's own:
// the schema version row and a newer schema refused, faults at start as one line naming the URL
// without its password (E_INVALID_ARG; `cuzk serve --store` exits 2 and opens no SQLite journal), and
// the server stopped under a running store: E_UNAVAILABLE, retryable, /readyz's reason, then the
// store recovers by itself once the server is back. Skipped, loudly, when no server can be started.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { InputError, ResourceError, type CuzkError } from '../../src/errors.js';
import { openPostgresStore, SCHEMA_VERSION } from '../../src/server/journal/pg-store.js';
import { makeDataDir, removeDataDir, runChild } from '../helpers/daemon.js';
import { freePort, postgresProblem, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { failure, job, storeConformance } from './store-conformance.js';

const skip = postgresProblem() ?? false;
let server: PostgresServer;
let dbs = 0;
const newDb = () => server.createDatabase(`t${++dbs}`);

before(async () => {
  if (!skip) server = await startPostgres();
});
after(() => server?.stop());

function assertFault(err: Error, cls: typeof InputError | typeof ResourceError, code: string, message: RegExp): void {
  assert.equal(err.constructor, cls, `${err.constructor.name}: ${err.message}`);
  assert.equal((err as CuzkError).code, code, err.message);
  assert.match(err.message, message);
  assert.ok(!err.message.includes('\n'), `one line: ${err.message}`);
  assert.equal((err as CuzkError).retryable, cls === ResourceError);
}

describe('JobStore conformance: PostgresJobStore', { skip }, () => {
  storeConformance({
    name: 'PostgreSQL',
    fresh: newDb,
    open: openPostgresStore,
    duplicateId: { name: 'error', code: '23505', message: 'duplicate key value violates unique constraint "jobs_pkey"' },
  });
});

describe('PostgresJobStore: schema, faults', { skip }, () => {
  it('the schema carries its version; reopening keeps it; a newer schema is refused in one line', async () => {
    const url = await newDb();
    await (await openPostgresStore(url)).close();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      assert.deepEqual((await c.query('SELECT id, version FROM schema_version')).rows, [{ id: 1, version: SCHEMA_VERSION }]);
      await (await openPostgresStore(url)).close();
      assert.deepEqual((await c.query('SELECT version FROM schema_version')).rows, [{ version: SCHEMA_VERSION }]);
      await c.query('UPDATE schema_version SET version = 99');
    } finally {
      await c.end();
    }
    const e = await failure(() => openPostgresStore(url));
    assertFault(e, InputError, 'E_INVALID_ARG', new RegExp(`^store ${url}: its schema is version 99, newer than this cuzk's \\(${SCHEMA_VERSION}\\): upgrade cuzk`));
  });

  it('faults at start: one line naming the URL without its password, E_INVALID_ARG', async () => {
    const port = await freePort(); // nothing listens there
    const down = await failure(() => openPostgresStore(`postgres://cuzk:s3cret@127.0.0.1:${port}/jobs`));
    assertFault(down, InputError, 'E_INVALID_ARG', new RegExp(`^store postgres://cuzk@127\\.0\\.0\\.1:${port}/jobs: cannot connect \\(ECONNREFUSED\\): no PostgreSQL server answers at 127\\.0\\.0\\.1:${port}; start it, or fix --store$`));
    assert.ok(!down.message.includes('s3cret'));
    const missing = await failure(() => openPostgresStore(server.url('nosuchdb')));
    assertFault(missing, InputError, 'E_INVALID_ARG', new RegExp(`^store ${server.url('nosuchdb')}: database nosuchdb does not exist: create it \\(createdb nosuchdb\\), or fix --store$`));
    const ghost = await failure(() => openPostgresStore(`postgres://ghost:pw@127.0.0.1:${server.port}/postgres?password=pw2`));
    assertFault(ghost, InputError, 'E_INVALID_ARG', new RegExp(`^store postgres://ghost@127\\.0\\.0\\.1:${server.port}/postgres: authentication failed for user ghost \\(28000: role "ghost" does not exist\\): fix the user or password`));
    assert.ok(!ghost.message.includes(':pw@') && !ghost.message.includes('pw2'), ghost.message);
    const notPg = await failure(() => openPostgresStore('mysql://u:p@h/db'));
    assertFault(notPg, InputError, 'E_INVALID_ARG', /^store mysql:\/\/u@h\/db: not a postgres:\/\/ URL \(mysql:\)/);
  });

  it('the server stopped mid-run: E_UNAVAILABLE (retryable), not ready, and it recovers when the server is back', async () => {
    const url = await newDb();
    const s = await openPostgresStore(url);
    try {
      await s.insert(job('a'));
      assert.equal(await s.writeProblem(), undefined);
      server.halt();
      const down = await failure(() => s.insert(job('b')));
      assertFault(down, ResourceError, 'E_UNAVAILABLE', new RegExp(`^store ${url}: `));
      assert.match((await s.writeProblem()) ?? 'ready', new RegExp(`^store ${url}: cannot connect \\(ECONNREFUSED\\)`));
      assertFault(await failure(() => s.unfinished()), ResourceError, 'E_UNAVAILABLE', /ECONNREFUSED/);
      server.start();
      assert.equal(await s.writeProblem(), undefined, 'ready again once a write succeeds');
      await s.insert(job('b'));
      assert.deepEqual((await s.unfinished()).map((j) => j.id), ['a', 'b']);
    } finally {
      await s.close();
    }
  });

  it('cuzk serve --store: a bad store exits 2 with one line, opens no SQLite journal', async () => {
    const dir = makeDataDir();
    try {
      const missing = server.url('absent');
      const r = await runChild(['serve', '--store', missing.replace('cuzk@', 'cuzk:hunter2@'), '--data-dir', dir, '--listen', '127.0.0.1:0']);
      assert.equal(r.code, 2, r.stderr);
      // the failure is one line; before it, the warning that the URL on the command line has a password
      const [warning, ...lines] = r.stderr.trim().split('\n');
      assert.match(warning!, /--store carries a password/);
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, new RegExp(`store ${missing}: database absent does not exist`));
      assert.ok(!r.stderr.includes('hunter2'));
      const bad = await runChild(['serve', '--store', 'http://x/y', '--data-dir', dir, '--listen', '127.0.0.1:0']);
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(bad.stderr.trim(), /^[^\n]*store http:\/\/x\/y: not a postgres:\/\/ URL \(http:\)[^\n]*$/);
      assert.ok(!existsSync(path.join(dir, 'journal.sqlite')), 'SQLite is not the store');
    } finally {
      removeDataDir(dir);
    }
  });
});
