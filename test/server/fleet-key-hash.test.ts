// Keys of a fleet are named by id and content hash: a job carries the sha256 of the key file the
// accepting daemon holds, and a daemon whose own file under that name differs refuses the job with
// one clear error instead of proving against another key. Two daemons on one PostgreSQL queue, A's
// queue paused so that B claims what A accepts; both load a key under the same id. "same": B's file is
// a byte copy of A's at another path, and the job completes; "other": B's file is another setup of the
// same circuit (the same shape, so without the check B would prove, and the proof would not verify
// against A's key), and the job ends failed naming both hashes. Skipped, loudly, without PostgreSQL.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { slowDevKey, type DevKey } from '../helpers/dev-key.js';
import { runCli } from '../helpers/capture.js';
import { startFleet, stopFleet, type FleetDaemon } from '../helpers/fleet.js';
import { postgresProblem, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';

const skip = postgresProblem() ?? false;
let server: PostgresServer;
let fleet: FleetDaemon[] = [];
let key: DevKey;
let dir: string;

before(async () => {
  if (skip) return;
  server = await startPostgres();
  key = await slowDevKey(1024);
  dir = mkdtempSync(path.join(tmpdir(), 'cuzk-keyhash-'));
  copyFileSync(key.zkey, path.join(dir, 'copy.zkey'));
  const r = await runCli(['dev-setup', path.join(path.dirname(key.zkey), 'c.r1cs'), path.join(dir, 'other.zkey'), '--seed', 'another setup', '--quiet']);
  assert.equal(r.code, 0, r.stderr);
});
after(async () => {
  await stopFleet(fleet);
  server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  await terminateSnarkjs();
});

describe('fleet: keys by id and content hash', { skip, timeout: 120_000 }, () => {
  it('a daemon runs a job whose key file is a copy of the accepting daemon\'s, and refuses one whose file differs', async () => {
    const url = await server.createDatabase('keyhash');
    const dirs = [path.dirname(key.zkey), dir].join(',');
    fleet = await startFleet(url, 2, ['--key-dirs', dirs, '--input-dirs', dirs]);
    const [a, b] = fleet as [FleetDaemon, FleetDaemon];
    await a.client.pauseQueue(); // B claims what A accepts
    await a.client.loadKey({ path: key.zkey }, 'same');
    await b.client.loadKey({ path: path.join(dir, 'copy.zkey') }, 'same');
    await a.client.loadKey({ path: key.zkey }, 'other');
    await b.client.loadKey({ path: path.join(dir, 'other.zkey') }, 'other');

    const { job: same } = await a.client.submit({ key: 'same', witnessFiles: [key.wtns] });
    const sameDone = await a.client.await(same.id, 60_000);
    assert.equal(sameDone.state, 'completed', JSON.stringify(sameDone.error));
    const vkey = JSON.parse(readFileSync(key.vkey, 'utf8')) as unknown;
    assert.equal(await snarkjsVerify(vkey, sameDone.proofs![0]!.publicSignals, sameDone.proofs![0]!.proof), true);

    const { job: other } = await a.client.submit({ key: 'other', witnessFiles: [key.wtns] });
    const otherDone = await a.client.await(other.id, 60_000);
    assert.equal(otherDone.state, 'failed', `a job for another key file under the same id ran: ${otherDone.state}`);
    assert.equal(otherDone.error?.code, 'E_INVALID_ARG');
    assert.match(otherDone.error!.message, /^key other: this daemon's copy \(.*other\.zkey, sha256 [0-9a-f]{12}…\) is not the key the job was submitted with \(sha256 [0-9a-f]{12}…\): install the same key file on every daemon of the fleet$/);
    assert.match(b.d.logs(), /"msg":"claimed job cannot run here: it ends failed"/);
  });
});
