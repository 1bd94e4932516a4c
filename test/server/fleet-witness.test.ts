// Witness bytes across the fleet: a job whose witnesses were sent to daemon A (spooled in A's data
// dir) and claimed by daemon B is proved from bytes B fetched from A over A's own HTTP, with the
// fleet's token and secret, size and sha256 checked (the route refuses a request without the token, a
// client's with the token alone (the secret is in the store, which clients do not reach), and a job
// it did not spool); A's spool file goes when the job ends. A spool file whose bytes changed fails the
// job at once, naming the hashes; an accepting daemon that died fails the job with E_UNAVAILABLE after
// store.witness_wait_ms, never silently. A's queue is paused throughout so that B claims what A
// accepts. Skipped, loudly, when no PostgreSQL server can be started.
import assert from 'node:assert/strict';
import { openSync, readdirSync, readFileSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { slowDevKey, type DevKey } from '../helpers/dev-key.js';
import { queryOnce, startFleet, stopFleet, type FleetDaemon } from '../helpers/fleet.js';
import { postgresProblem, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';

const TOKEN = 'fleet-witness-test-token-0123456789';
const WAIT_MS = 1500;
const skip = postgresProblem() ?? false;
let server: PostgresServer;
let fleet: FleetDaemon[] = [];
let key: DevKey;
let savedToken: string | undefined;

before(async () => {
  if (skip) return;
  server = await startPostgres();
  key = await slowDevKey(1024);
  // the daemons take their token from $CUZK_TOKEN, and so do startFleet's clients
  savedToken = process.env.CUZK_TOKEN;
  process.env.CUZK_TOKEN = TOKEN;
});
after(async () => {
  await stopFleet(fleet);
  server?.stop();
  if (savedToken === undefined) delete process.env.CUZK_TOKEN;
  else process.env.CUZK_TOKEN = savedToken;
  await terminateSnarkjs();
});

async function twoDaemons(db: string): Promise<[FleetDaemon, FleetDaemon, string]> {
  await stopFleet(fleet);
  const url = await server.createDatabase(db);
  const dir = path.dirname(key.zkey);
  fleet = await startFleet(url, 2, ['--witness-wait-ms', String(WAIT_MS), '--key-dirs', dir, '--input-dirs', dir]);
  await fleet[0]!.client.pauseQueue(); // B claims what A accepts
  return [fleet[0]!, fleet[1]!, url];
}

/** The fleet's credential, as the daemons read it from the store. */
const fleetSecret = async (url: string) => (await queryOnce<{ secret: string }>(url, 'SELECT secret FROM fleet_secret WHERE id = 1'))[0]!.secret;

const spoolFiles = (f: FleetDaemon) => readdirSync(path.join(f.d.dataDir, 'spool'));

async function until(ok: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 250 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
  assert.ok(ok(), what);
}

describe('fleet: witnesses spooled by one daemon, proved on another', { skip, timeout: 120_000 }, () => {
  it('B fetches A\'s spooled witness over A\'s HTTP with the token, checks it, proves; A\'s spool file goes with the job', async () => {
    const [a, b, url] = await twoDaemons('witness_fetch');
    const { job } = await a.client.submit({ key: key.zkey, witnesses: [new Uint8Array(readFileSync(key.wtns))] });
    assert.equal(spoolFiles(a).length, 1, 'the witness is spooled at A');
    const done = await a.client.await(job.id, 60_000);
    assert.equal(done.state, 'completed', JSON.stringify(done.error));
    const vkey = JSON.parse(readFileSync(key.vkey, 'utf8')) as unknown;
    assert.equal(await snarkjsVerify(vkey, done.proofs![0]!.publicSignals, done.proofs![0]!.proof), true);
    assert.match(b.d.logs(), new RegExp(`"jobId":"${job.id}"[^\\n]*"from":"${a.id}"[^\\n]*"msg":"witness fetched from the daemon that spooled it"`));
    assert.match(a.d.logs(), new RegExp(`"jobId":"${job.id}"[^\\n]*"msg":"spooled witness served to the claiming daemon"`));
    await until(() => spoolFiles(a).length === 0 && spoolFiles(b).length === 0, 'both spools are empty once the job ended');

    const route = `${a.d.url}/v1/fleet/witnesses/${job.id}/0`;
    assert.equal((await fetch(route)).status, 401, 'no token, no witness');
    const secret = await fleetSecret(url);
    const gone = await fetch(route, { headers: { authorization: `Bearer ${TOKEN}`, 'x-cuzk-fleet-secret': secret } });
    assert.equal(gone.status, 404, 'a finished job\'s witness is not served');
    assert.match(((await gone.json()) as { error: { message: string } }).error.message, /no unfinished job spooled here has it/);
  });

  it('a client with the token alone cannot read an unfinished job\'s witness: the fleet\'s secret (in the store) is needed too', async () => {
    const [a, b, url] = await twoDaemons('witness_secret');
    await b.client.pauseQueue(); // unfinished while the test reads
    const bytes = readFileSync(key.wtns);
    const { job } = await a.client.submit({ key: key.zkey, witnesses: [new Uint8Array(bytes)] });
    const route = `${a.d.url}/v1/fleet/witnesses/${job.id}/0`;
    const client = await fetch(route, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(client.status, 401, 'a client with the token read a job\'s private witness');
    assert.match(await client.text(), /only the daemons of the fleet may fetch witnesses/);
    const wrong = await fetch(route, { headers: { authorization: `Bearer ${TOKEN}`, 'x-cuzk-fleet-secret': 'guess' } });
    assert.equal(wrong.status, 401);
    const daemon = await fetch(route, { headers: { authorization: `Bearer ${TOKEN}`, 'x-cuzk-fleet-secret': await fleetSecret(url) } });
    assert.equal(daemon.status, 200);
    assert.deepEqual(Buffer.from(await daemon.arrayBuffer()), bytes);
    await b.client.resumeQueue();
    assert.equal((await a.client.await(job.id, 60_000)).state, 'completed', 'the claimer fetched it with the secret');
  });

  it('a spool file whose bytes changed: the claimer fails the job at once, naming both hashes', async () => {
    const [a, b, url] = await twoDaemons('witness_tampered');
    await b.client.pauseQueue(); // the job stays queued while its spool file is changed
    const { job } = await a.client.submit({ key: key.zkey, witnesses: [new Uint8Array(readFileSync(key.wtns))] });
    const [row] = await queryOnce<{ witness_files: string }>(url, 'SELECT witness_files FROM jobs WHERE id = $1', [job.id]);
    const file = (JSON.parse(row!.witness_files) as { path: string; size: number }[])[0]!;
    const fd = openSync(file.path, 'r+');
    writeSync(fd, Buffer.from([0x5a]), 0, 1, file.size - 1); // the last byte of the last wire: same size, same header
    closeSync(fd);
    await b.client.resumeQueue();
    const done = await a.client.await(job.id, 60_000);
    assert.equal(done.state, 'failed');
    assert.equal(done.error?.code, 'E_INTERNAL');
    assert.match(done.error!.message, new RegExp(`^witness 0 of job ${job.id}: the bytes fetched have sha256 [0-9a-f]{12}…, the job was accepted with [0-9a-f]{12}… \\(the spool file changed\\?\\): submit the job again$`));
    await until(() => spoolFiles(b).length === 0, 'the claimer keeps nothing of a witness it refused');
  });

  it('the accepting daemon died: the job ends failed (E_UNAVAILABLE) after store.witness_wait_ms, naming it', async () => {
    const [a, b] = await twoDaemons('witness_unreachable');
    await b.client.pauseQueue();
    const { job } = await a.client.submit({ key: key.zkey, witnesses: [new Uint8Array(readFileSync(key.wtns))] });
    await a.d.stop('SIGKILL');
    const resumed = Date.now();
    await b.client.resumeQueue();
    const done = await b.client.await(job.id, 60_000);
    assert.equal(done.state, 'failed');
    assert.equal(done.error?.code, 'E_UNAVAILABLE');
    assert.match(done.error!.message, new RegExp(`^witness 0 of job ${job.id}: spooled by daemon ${a.id}, unreachable for ${WAIT_MS} ms \\(127\\.0\\.0\\.1:\\d+: ECONNREFUSED\\): submit the job again$`));
    assert.ok(Date.now() - resumed >= WAIT_MS, 'it was retried for the whole wait');
  });
});
