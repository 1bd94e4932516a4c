// kill -9 durability on PostgreSQL: `cuzk serve --store postgres://…` proves a vector job, then is
// killed with SIGKILL while a second job is held queued (the queue paused, so nothing depends on how
// fast this machine proves); restarted on the same database, the daemon claims the queued job from the shared queue,
// which completes under its id and request id with a proof snarkjs accepts, and the first job's
// result is still fetchable. No SQLite journal is opened. Skipped, loudly, when no PostgreSQL server
// can be started (test/helpers/postgres.ts).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { CuzkClient, CuzkError } from '../../src/client/index.js';
import { makeDataDir, removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { postgresProblem, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const zkey = vectorFile(bnMult, 'circuit.zkey');
const witness = new Uint8Array(readFileSync(vectorFile(bnMult, 'witness.wtns')));
const vkey = JSON.parse(readFileSync(vectorFile(bnMult, 'vkey.json'), 'utf8'));

const skip = postgresProblem() ?? false;
let server: PostgresServer;
const dataDir = makeDataDir();
let d: DaemonProcess | undefined;
before(async () => {
  if (!skip) server = await startPostgres();
});
after(async () => {
  await d?.stop('SIGKILL'); // a failed assertion leaves no daemon behind
  server?.stop();
  removeDataDir(dataDir);
  await terminateSnarkjs();
});

/** The job's row as the daemon left it in the database. */
async function row(url: string, id: string): Promise<{ state: string; request_id: string | null } | undefined> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<{ state: string; request_id: string | null }>('SELECT state, request_id FROM jobs WHERE id = $1', [id])).rows[0];
  } finally {
    await c.end();
  }
}

describe('cuzk serve --store postgres: durability and faults', { skip, timeout: 120_000 }, () => {
  it('kill -9 with a job queued, restart on the same database: it completes and verifies', async () => {
    const url = await server.createDatabase('durable');
    const args = ['--store', url, ...vectorDirArgs()];
    d = await startDaemon({ dataDir, args });
    let c = new CuzkClient({ address: d.address });
    const early = await c.prove({ key: zkey, witnesses: [witness], requestId: 'pg-early' });
    assert.equal(early.state, 'completed', JSON.stringify(early.error));
    assert.equal(await snarkjsVerify(vkey, early.proofs![0]!.publicSignals, early.proofs![0]!.proof), true);
    assert.equal((await row(url, early.id))?.state, 'completed', 'the result is in PostgreSQL');

    await c.pauseQueue();
    const { job: queued } = await c.submit({ key: zkey, witnesses: [witness], requestId: 'pg-queued' });
    assert.equal((await c.await(queued.id, 0)).state, 'queued');
    assert.deepEqual(await row(url, queued.id), { state: 'queued', request_id: 'pg-queued' }, 'journaled before it was acknowledged');
    assert.equal(await d.stop('SIGKILL'), 'SIGKILL');

    d = await startDaemon({ dataDir, args });
    try {
      c = new CuzkClient({ address: d.address });
      const done = await c.await(queued.id);
      assert.match(d.logs(), new RegExp(`"jobId":"${queued.id}"[^\\n]*"msg":"job claimed"`));
      assert.equal(done.state, 'completed', JSON.stringify(done.error));
      assert.equal(done.requestId, 'pg-queued');
      assert.equal(done.submittedAt, queued.submittedAt, 'the original submission time is kept');
      assert.equal(await snarkjsVerify(vkey, done.proofs![0]!.publicSignals, done.proofs![0]!.proof), true);
      const again = await c.submit({ key: zkey, witnesses: [witness], requestId: 'pg-queued' });
      assert.equal(again.deduplicated, true);
      assert.equal(again.job.id, queued.id);
      const old = await c.await(early.id, 0);
      assert.deepEqual(old.proofs, early.proofs, 'the first result survived the kill');
      assert.equal((await row(url, queued.id))?.state, 'completed');
      assert.ok(!existsSync(path.join(dataDir, 'journal.sqlite')), 'no SQLite journal beside PostgreSQL');
      assert.equal(await d.stop(), 0, d.logs());
    } finally {
      await d.stop('SIGKILL');
    }
  });

  it('the server stopped under a running daemon: Submit is E_UNAVAILABLE, /readyz 503 naming the store; both recover when it is back', async () => {
    const url = await server.createDatabase('faults');
    d = await startDaemon({ dataDir: makeDataDir(), args: ['--store', url, ...vectorDirArgs()] });
    try {
      const c = new CuzkClient({ address: d.address });
      assert.equal((await c.prove({ key: zkey, witnesses: [witness] })).state, 'completed');
      assert.equal((await fetch(`${d.url}/readyz`)).status, 200);
      server.halt(); // the daemon's idle connections are closed under it: it must not crash
      const err = await c.submit({ key: zkey, witnesses: [witness] }).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof CuzkError, String(err));
      assert.equal(err.code, 'E_UNAVAILABLE', err.message);
      assert.equal(err.retryable, true);
      assert.match(err.message, new RegExp(`store ${url}: `));
      const ready = await fetch(`${d.url}/readyz`);
      assert.equal(ready.status, 503);
      assert.match(((await ready.json()) as { reason: string }).reason, new RegExp(`^store ${url}: cannot connect \\(ECONNREFUSED\\)`));
      assert.equal((await fetch(`${d.url}/healthz`)).status, 200, 'the daemon stays up');
      server.start();
      assert.equal((await fetch(`${d.url}/readyz`)).status, 200);
      const done = await c.prove({ key: zkey, witnesses: [witness] });
      assert.equal(done.state, 'completed', JSON.stringify(done.error));
      assert.equal(await snarkjsVerify(vkey, done.proofs![0]!.publicSignals, done.proofs![0]!.proof), true);
      assert.equal(await d.stop(), 0, d.logs());
    } finally {
      await d.stop('SIGKILL');
      removeDataDir(d.dataDir);
    }
  });
});
