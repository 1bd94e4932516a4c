// store.notify's decision (src/server/fleet/pg-notify.ts): `on` and `off` are taken as told, without a
// probe; `auto` uses LISTEN/NOTIFY only when the probe's notification came back, and otherwise
// says why (what CockroachDB, YugabyteDB without its flag, or a pooler in transaction mode answer).
// The probe itself on a real PostgreSQL server: the round trip comes back; a server that cannot be
// reached is an error, not "no notices". Skipped, loudly, when no PostgreSQL server can be started.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decideNotices, probeNotices } from '../../src/server/fleet/pg-notify.js';
import { freePort, postgresProblem, startPostgres, type PostgresServer } from '../helpers/postgres.js';

describe('store.notify: the decision', () => {
  it('on and off are taken as told, and nothing is probed', async () => {
    let probed = 0;
    const probe = async () => {
      probed++;
      return 'LISTEN refused: unimplemented';
    };
    assert.deepEqual(await decideNotices('on', probe), { notices: true, why: 'store.notify = on' });
    assert.deepEqual(await decideNotices('off', probe), { notices: false, why: 'store.notify = off' });
    assert.equal(probed, 0);
  });

  it('auto: notices only when the probe found them working, else its reason', async () => {
    assert.deepEqual(await decideNotices('auto', async () => undefined), { notices: true, why: 'a probe notification came back' });
    const why = 'LISTEN refused: at or near "listen": syntax error: unimplemented: this syntax';
    assert.deepEqual(await decideNotices('auto', async () => why), { notices: false, why });
  });

  it('auto: a probe that cannot reach the server fails the start (not "no notices")', async () => {
    await assert.rejects(decideNotices('auto', () => Promise.reject(new Error('ECONNREFUSED'))), /ECONNREFUSED/);
  });
});

const skip = postgresProblem() ?? false;
let server: PostgresServer;

describe('store.notify: the probe on PostgreSQL', { skip }, () => {
  before(async () => {
    server = await startPostgres();
  });
  after(() => server?.stop());

  it('LISTEN, pg_notify and the notification back on a connection of its own', async () => {
    const url = await server.createDatabase('probe');
    assert.equal(await probeNotices(url), undefined);
    assert.deepEqual(await decideNotices('auto', () => probeNotices(url)), { notices: true, why: 'a probe notification came back' });
  });

  it('a server that is not there throws', async () => {
    await assert.rejects(probeNotices(`postgres://cuzk@127.0.0.1:${await freePort()}/none`), /ECONNREFUSED/);
  });
});
