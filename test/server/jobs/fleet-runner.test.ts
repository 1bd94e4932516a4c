// FleetRunner against a fake engine and a fake shared queue (the FleetMember calls it makes), over a
// real SQLite journal standing for the shared store: what an accepted job leaves here, how a claimed
// job runs, fenced and superseded results, and jobs that run on other daemons (await, cancel).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import type { JobInfo } from '../../../src/engine/api.js';
import { createLogger } from '../../../src/log.js';
import type { FleetMember } from '../../../src/server/fleet/fleet-member.js';
import type { SpooledWitness } from '../../../src/server/intake/spool.js';
import { FleetRunner } from '../../../src/server/jobs/fleet-runner.js';
import type { StoredJob } from '../../../src/server/journal/job-store.js';
import { SqliteJobStore } from '../../../src/server/journal/sqlite-store.js';
import { FakeEngine } from '../../helpers/fake-engine.js';

const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-fleet-runner-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const log = createLogger('silent');
const spoolDir = path.join(dir, 'spool');

/** The calls FleetRunner makes of its FleetMember, recorded; finish() answers `fenced` (false: a late run). */
class FakeFleet {
  readonly id = 'daemon-a';
  announced = 0;
  announceFails = false;
  fenced = true;
  cancelAnswer: 'cancelled' | 'requested' | 'none' = 'cancelled';
  readonly finished: JobInfo[] = [];
  readonly givenBack: string[] = [];
  readonly wakers: (() => void)[] = [];
  readonly keyHashes = { of: async (file: string) => `sha-of-${path.basename(file)}` };
  constructor(private readonly store: SqliteJobStore) {}
  async announce(): Promise<void> {
    this.announced++;
    if (this.announceFails) throw new Error('NOTIFY failed');
  }
  async finish(info: JobInfo): Promise<boolean> {
    this.finished.push(info);
    if (this.fenced) await this.store.finish(info);
    return this.fenced;
  }
  async cancel(info: JobInfo): Promise<'cancelled' | 'requested' | 'none'> {
    if (this.cancelAnswer === 'cancelled') await this.store.finish(info);
    return this.cancelAnswer;
  }
  waitDone(_id: string, ms: number): Promise<void> {
    return new Promise((r) => {
      const t = setTimeout(r, ms);
      this.wakers.push(() => (clearTimeout(t), r()));
    });
  }
  wake(): void {
    for (const w of this.wakers.splice(0)) w();
  }
  async giveBack(id: string): Promise<void> {
    this.givenBack.push(id);
  }
  async addressOf(): Promise<string | undefined> {
    return undefined;
  }
}

let n = 0;
const file = (owned = true): SpooledWitness => ({ path: path.join(spoolDir, `w${n++}.wtns`), size: 1, sha256: 'h', owned });
const job = (over: Partial<StoredJob> = {}): StoredJob => ({ id: `job-${n++}`, fingerprint: 'f', key: 'k', priority: 'normal', state: 'queued', partitions: 1, submittedAt: Date.now(), request: { witnessFiles: [file()] }, ...over });

describe('FleetRunner', () => {
  let engine: FakeEngine, store: SqliteJobStore, fleet: FakeFleet, released: SpooledWitness[], runner: FleetRunner;
  beforeEach(() => {
    engine = new FakeEngine();
    engine.keys = [{ id: 'k', path: path.join(dir, 'k.zkey') } as never];
    store = new SqliteJobStore(path.join(dir, `journal-${n++}.sqlite`));
    fleet = new FakeFleet(store);
    released = [];
    const spool = { dir: spoolDir, release: async (f?: readonly SpooledWitness[]) => void released.push(...(f ?? [])) };
    runner = new FleetRunner(engine, fleet as unknown as FleetMember, store, { spool: spool as never, keyShape: async () => ({}) as never }, { keyDirs: [dir], inputDirs: [dir], token: '', tlsCert: '', witnessWaitMs: 1000 }, log);
  });

  it('an accepted job is only journaled and announced; its spooled files stay until it ends anywhere', async () => {
    const s = job();
    await runner.prepare(s, { id: 'k', curve: 'bn128', r: 1n, nVars: 4, domainSize: 8, bytes: 1000 } as never);
    assert.equal(s.acceptedBy, 'daemon-a');
    assert.equal(s.keyHash, 'sha-of-k.zkey', 'the hash of the loaded key\'s file');
    assert.ok(s.need && s.need.host > 0, 'its memory need, for claims');
    await store.insert(s);
    const info = await runner.accept(s, s.request!.witnessFiles);
    assert.equal(info.state, 'queued');
    assert.equal(fleet.announced, 1);
    assert.equal(engine.submitted.length, 0, 'not run where it was accepted');
    assert.deepEqual([...runner.watched()], [s.id]);
    runner.ended(s.id);
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(released, s.request!.witnessFiles);
    assert.deepEqual([...runner.watched()], []);
  });

  it('an announce that fails still leaves the job accepted (claims poll once a second)', async () => {
    fleet.announceFails = true;
    const s = job();
    await store.insert(s);
    assert.equal((await runner.accept(s, s.request!.witnessFiles)).state, 'queued');
  });

  it('a claimed job runs here; its result is recorded fenced and its files released', async () => {
    const s = job({ acceptedBy: 'daemon-a' });
    await store.insert(s);
    await runner.runClaimed(s);
    assert.deepEqual(engine.submitted.map((r) => r.id), [s.id]);
    engine.finish(s.id, 'completed');
    await runner.live.settle();
    assert.equal(fleet.finished.at(-1)!.state, 'completed');
    assert.deepEqual(released, s.request!.witnessFiles);
  });

  it('a late (unfenced) or superseded run records nothing of its own and keeps the files', async () => {
    const late = job({ acceptedBy: 'daemon-a' }), dup = job({ acceptedBy: 'daemon-a' });
    for (const s of [late, dup]) {
      await store.insert(s);
      await runner.runClaimed(s);
    }
    fleet.fenced = false;
    engine.finish(late.id, 'completed');
    for (const t0 = Date.now(); !fleet.finished.some((f) => f.id === late.id); await new Promise((r) => setTimeout(r, 5))) assert.ok(Date.now() - t0 < 10_000);
    fleet.fenced = true;
    runner.cancelHere(dup.id, true);
    await runner.live.settle();
    assert.equal((await store.get(late.id))!.state, 'queued', 'a late result is dropped');
    assert.equal(engine.get(dup.id)!.state, 'cancelled');
    assert.deepEqual(released, [], 'their files are the other run\'s');
  });

  it('a claimed job whose key differs here (by sha256) ends failed without running', async () => {
    const s = job({ keyHash: 'sha-of-another.zkey' });
    await store.insert(s);
    await runner.runClaimed(s);
    assert.equal(engine.submitted.length, 0);
    const f = fleet.finished.at(-1)!;
    assert.equal(f.state, 'failed');
    assert.equal(f.error!.code, 'E_INVALID_ARG');
    assert.match(f.error!.message, /is not the key the job was submitted with/);
  });

  it('a cancel from another daemon is journaled as the user\'s cancel', async () => {
    const s = job({ acceptedBy: 'daemon-a' });
    await store.insert(s);
    await runner.runClaimed(s);
    runner.cancelHere(s.id, false);
    await runner.live.settle();
    assert.equal(fleet.finished.at(-1)!.state, 'cancelled');
  });

  it('a job running elsewhere: awaited until the store says it ended (woken by the fleet), cancelled by request', async () => {
    const s = job({ acceptedBy: 'daemon-b' });
    await store.insert(s);
    const waiting = runner.stored(s.id, 10_000);
    await new Promise((r) => setTimeout(r, 20));
    await store.finish({ id: s.id, key: 'k', priority: 'normal', state: 'completed', partitions: 1, submittedAt: s.submittedAt, finishedAt: Date.now(), timings: {} });
    const t0 = Date.now();
    fleet.wake();
    assert.equal((await waiting).state, 'completed');
    assert.ok(Date.now() - t0 < 1000, 'woken, not polled');
    const other = job();
    await store.insert(other);
    assert.equal((await runner.stored(other.id, 0)).state, 'queued', 'no wait: as the store has it');
    fleet.cancelAnswer = 'requested';
    assert.equal((await runner.cancelStored(other)).state, 'running', 'the owner stops it at its next phase boundary');
    fleet.cancelAnswer = 'cancelled';
    assert.equal((await runner.cancelStored(other)).state, 'cancelled');
    assert.deepEqual(released, other.request!.witnessFiles);
    assert.deepEqual(await runner.recover(), { resubmitted: 0, expired: 0, lost: 0, waiting: 0 }, 'nothing replayed: claimed instead');
  });
});
