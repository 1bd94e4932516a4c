// The engine end to end on the CPU core with real circom circuits: every proof it returns verifies
// with snarkjs; priorities order the queue; request ids are idempotent; cancel (queued and running),
// deadlines and await timeouts work and free their memory; a failing partition fails its whole job;
// the memory budget is never exceeded; the pinned pool stops allocating after warm-up.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createEngine, type Engine, type JobInfo } from '../../src/index.js';
import { readJson, vectorFile, vectorSets, type VectorSet } from '../helpers/vectors.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';

after(terminateSnarkjs);

const set = (curve: string, circuit: string) => vectorSets().find((s) => s.curve === curve && s.circuit === circuit)!;
const bytes = (s: VectorSet, f: string) => new Uint8Array(readFileSync(vectorFile(s, f)));
const poseidon = set('bn128', 'poseidon');
const zkey = vectorFile(poseidon, 'circuit.zkey');
const w1 = bytes(poseidon, 'witness.wtns');
const w2 = bytes(poseidon, 'witness2.wtns');
const bad = bytes(poseidon, 'witness_bad.wtns');

async function verifyAll(s: VectorSet, info: JobInfo): Promise<void> {
  assert.equal(info.state, 'completed', info.error?.message);
  const vk = readJson(s, 'vkey.json');
  for (const p of info.proofs!) assert.equal(await snarkjsVerify(vk, p.publicSignals, p.proof), true, 'snarkjs accepts the proof');
}

/** Budget use with no job running: keys and idle pool buffers only. */
function idleUse(e: Engine): number {
  const st = e.status();
  return st.budget.pinned.used - st.pinnedPool.bytes + (st.budget.host.used - st.keys.reduce((a, k) => a + k.bytes, 0));
}

describe('engine (CPU core)', () => {
  let e: Engine;
  const trace = path.join(tmpdir(), `cuzk-engine-trace-${process.pid}.json`);
  before(async () => {
    e = await createEngine({ threads: 2, tracePath: trace });
  });
  after(async () => {
    await e.close();
  });

  it('proves multi-partition jobs on both curves; snarkjs verifies every proof', async () => {
    for (const s of [poseidon, set('bls12381', 'bits')]) {
      const info = await e.await(e.submit({ key: vectorFile(s, 'circuit.zkey'), witnesses: [bytes(s, 'witness.wtns'), bytes(s, 'witness2.wtns')] }).id);
      await verifyAll(s, info);
      assert.deepEqual(info.proofs!.map((p) => p.publicSignals), [readJson(s, 'public.json'), readJson(s, 'public2.json')]);
      for (const ph of ['queue', 'synthesis', 'ntt', 'msm', 'finalize', 'verify'] as const) assert.ok((info.timings[ph] ?? -1) >= 0, `timing ${ph}`);
      assert.equal(info.device, 'cpu');
    }
  });

  it("the CPU device's memory is the host budget: its limit, and what keys and jobs leave free (not 0)", async () => {
    await e.await(e.submit({ key: zkey, witnesses: [w1] }).id); // a key loaded: some host bytes reserved
    const st = e.status();
    const cpu = st.devices.find((d) => d.id === 'cpu')!;
    assert.equal(cpu.memoryTotal, st.budget.host.limit);
    assert.ok(st.budget.host.used > 0, 'the key holds host bytes');
    assert.equal(cpu.memoryFree, st.budget.host.limit - st.budget.host.used);
  });

  it('computes witnesses from circuit inputs in worker threads', async () => {
    const s = set('bls12381', 'poseidon');
    const info = await e.await(e.submit({ key: vectorFile(s, 'circuit.zkey'), inputs: [readJson(s, 'input.json') as Record<string, unknown>], wasm: vectorFile(s, 'circuit.wasm') }).id);
    await verifyAll(s, info);
    assert.deepEqual(info.proofs![0]!.publicSignals, readJson(s, 'public.json'));
    assert.ok((info.timings.witness ?? 0) > 0);
    const wrong = await e.await(e.submit({ key: vectorFile(s, 'circuit.zkey'), inputs: [{ nope: 1 }], wasm: vectorFile(s, 'circuit.wasm') }).id);
    assert.equal(wrong.state, 'failed');
    assert.match(wrong.error!.message, /rejected the input/);
  });

  it('starts queued jobs by priority, FIFO within a priority', async () => {
    const prios = ['low', 'normal', 'critical', 'high', 'low', 'critical'] as const;
    // the order of the 'running' events, not start timestamps (two jobs can start in one millisecond)
    e.pause();
    const order: number[] = [];
    const ids = prios.map((priority, k) => {
      const id = e.submit({ key: zkey, witnesses: [w1], priority }).id;
      e.subscribe(id, (ev) => { if (ev.type === 'state' && ev.state === 'running') order.push(k); });
      return id;
    });
    assert.deepEqual(ids.map((id) => e.get(id)!.queuePosition), [4, 3, 0, 2, 5, 1]);
    e.resume();
    for (const id of ids) assert.equal((await e.await(id)).state, 'completed');
    assert.deepEqual(order, [2, 5, 3, 1, 0, 4]);
  });

  it('treats a repeated request id as the same job and refuses it for other content', async () => {
    const a = e.submit({ key: zkey, witnesses: [w1], requestId: 'req-idem' });
    const b = e.submit({ key: zkey, witnesses: [w1], requestId: 'req-idem' });
    assert.equal(b.id, a.id);
    assert.throws(() => e.submit({ key: zkey, witnesses: [w2], requestId: 'req-idem' }), /already used for a different job/);
    await verifyAll(poseidon, await e.await(a.id));
    assert.equal(e.submit({ key: zkey, witnesses: [w1], requestId: 'req-idem' }).id, a.id, 'still the same job once finished');
  });

  it('fails a job whose partition fails, and frees everything', async () => {
    const info = await e.await(e.submit({ key: zkey, witnesses: [w1, bad, w2] }).id);
    assert.equal(info.state, 'failed');
    assert.equal(info.error!.code, 'E_PROOF_INVALID');
    assert.equal(info.proofs, undefined);
    assert.equal(e.status().pinnedPool.inUse, 0);
    assert.equal(idleUse(e), 0);
  });

  it('cancels queued and running jobs, frees their memory, and honours deadlines and await timeouts', async () => {
    const big = set('bn128', 'bits');
    const bigKey = vectorFile(big, 'circuit.zkey');
    const many = Array.from({ length: 4 }, () => bytes(big, 'witness.wtns'));
    // a paused engine keeps jobs queued by construction; the running job is cancelled from its
    // first synthesis event, so it is mid-pipeline whatever this machine's speed
    e.pause();
    const running = e.submit({ key: bigKey, witnesses: many });
    const queued = [0, 1, 2].map(() => e.submit({ key: zkey, witnesses: [w1], priority: 'low' }));
    const early = await e.await(running.id, 5);
    assert.equal(early.state, 'queued', 'await returns the current state on timeout');
    assert.equal(e.status().paused, true);
    const cq = e.cancel(queued[2]!.id);
    assert.equal(cq.state, 'cancelled');
    const cancelledMidway = new Promise<string>((resolve) => {
      e.subscribe(running.id, (ev) => {
        if (ev.type !== 'phase' || ev.phase !== 'synthesis') return;
        resolve(e.cancel(running.id).state);
      });
    });
    e.resume();
    assert.equal(await cancelledMidway, 'running', 'cancelled while running');
    const r = await e.await(running.id);
    assert.equal(r.state, 'cancelled');
    assert.equal(r.error!.code, 'E_CANCELLED');
    e.pause();
    const expiring = e.submit({ key: bigKey, witnesses: many, deadlineMs: 30 });
    const x = await e.await(expiring.id);
    e.resume();
    assert.equal(x.state, 'expired');
    assert.equal(x.error!.code, 'E_TIMEOUT');
    for (const q of queued.slice(0, 2)) await verifyAll(poseidon, await e.await(q.id));
    assert.equal(e.status().pinnedPool.inUse, 0);
    assert.equal(idleUse(e), 0, 'no memory held by finished jobs');
  });

  it('no pinned allocation after warm-up; every job counted', async () => {
    e.pool.markWarm();
    const ids = Array.from({ length: 6 }, (_, k) => e.submit({ key: zkey, witnesses: [k % 2 ? w1 : w2] }).id);
    for (const id of ids) await verifyAll(poseidon, await e.await(id));
    assert.equal(e.status().pinnedPool.allocationsAfterWarmup, 0);
    const st = e.status();
    assert.ok(st.totals.completed >= 10);
    assert.ok(st.totals.cancelled >= 2 && st.totals.expired >= 1 && st.totals.failed >= 2);
    const metrics = await e.metricsText();
    assert.match(metrics, /cuzk_jobs_total\{state="completed"\} \d+/);
    assert.match(metrics, /cuzk_phase_seconds_count\{phase="synthesis",track="synthesis"\} \d+/);
  });

  it('rejects bad requests with clear errors', () => {
    assert.throws(() => e.submit({ key: zkey, witnesses: [] }), /at least one witness/);
    assert.throws(() => e.submit({ key: zkey }), /exactly one of witnesses, witnessFiles or inputs/);
    assert.throws(() => e.submit({ key: '/nonexistent/x.zkey', witnesses: [w1] }), (err: Error & { code?: string }) => err.code === 'E_NOT_FOUND');
    assert.throws(() => e.submit({ key: 'no-such-id', witnesses: [w1] }), /unknown key "no-such-id"/);
    assert.throws(() => e.submit({ key: zkey, witnesses: [w1.subarray(0, 20)] }), /witness 0/);
    assert.throws(() => e.submit({ key: zkey, witnesses: [w1], priority: 'urgent' as 'high' }), /priority must be one of/);
  });

  it('loads a key under an id; jobs by id or by path share it; idle keys can be evicted', async () => {
    const s = set('bn128', 'multiplier');
    const info = await e.loadKey(vectorFile(s, 'circuit.zkey'), { id: 'mult' });
    assert.equal(info.id, 'mult');
    assert.equal(info.residency, 'host');
    const byId = e.submit({ key: 'mult', witnesses: [bytes(s, 'witness.wtns')] });
    const byPath = e.submit({ key: vectorFile(s, 'circuit.zkey'), witnesses: [bytes(s, 'witness2.wtns')] });
    assert.equal(byPath.key, 'mult', 'the path resolves to the key already loaded');
    await verifyAll(s, await e.await(byId.id));
    await verifyAll(s, await e.await(byPath.id));
    assert.equal(e.listKeys().filter((k) => k.path === vectorFile(s, 'circuit.zkey')).length, 1);
    e.evictKey('mult');
    assert.equal(e.listKeys().some((k) => k.id === 'mult'), false);
    assert.throws(() => e.evictKey('mult'), /unknown key/);
  });

  it('one key file under several ids is held once: each id lists it and runs jobs, the memory goes with the last id (#27)', async () => {
    const s = set('bn128', 'multiplier');
    const file = vectorFile(s, 'circuit.zkey');
    const used = () => { const b = e.status().budget; return b.host.used + b.pinned.used; };
    const before = used();
    const one = await e.loadKey(file, { id: 'm1' });
    const withOne = used();
    assert.ok(withOne - before >= one.bytes, 'the key is in the budget');
    assert.equal((await e.loadKey(file, { id: 'm2' })).id, 'm2');
    assert.equal((await e.loadKey(file, { id: 'm3' })).id, 'm3');
    assert.equal(used(), withOne, 'a second and third id cost nothing more');
    assert.deepEqual(e.listKeys().filter((k) => k.path === file).map((k) => k.id).sort(), ['m1', 'm2', 'm3']);
    const j = e.submit({ key: 'm2', witnesses: [bytes(s, 'witness.wtns')] });
    assert.equal(j.key, 'm2');
    await verifyAll(s, await e.await(j.id));
    e.evictKey('m1');
    assert.equal(used(), withOne, 'its other ids keep it');
    const k = e.submit({ key: 'm3', witnesses: [bytes(s, 'witness2.wtns')] });
    await verifyAll(s, await e.await(k.id));
    e.evictKey('m2');
    e.evictKey('m3');
    assert.equal(used(), before, 'gone with its last id');
    assert.equal(e.listKeys().some((x) => x.path === file), false);
  });

  it('a witness of another circuit is refused at submit naming the problem', () => {
    const other = bytes(set('bn128', 'multiplier'), 'witness.wtns');
    assert.throws(() => e.submit({ key: zkey, witnesses: [w1, other] }), (err: Error & { code?: string }) => err.code === 'E_FORMAT' && /witness 1: .*a witness of another circuit/.test(err.message));
  });
});

describe('engine memory budget', () => {
  it('runs jobs within a tight budget, never beyond it, and refuses what can never fit', async () => {
    const s = set('bn128', 'bits');
    const probe = await createEngine({ threads: 2 });
    const k = await probe.loadKey(vectorFile(s, 'circuit.zkey'));
    await probe.close();
    // room for the key and one job's buffers at a time, not two
    const oneJob = 3 * s.domainSize * 32 + 2 * 4096 + (64 << 20) + s.domainSize * 32;
    const e = await createEngine({ threads: 2, memory: { host: k.bytes + s.domainSize * 32 + (64 << 20) + 4096, pinned: 2 * 4096 + 3 * s.domainSize * 32 } });
    try {
      const ids = Array.from({ length: 4 }, () => e.submit({ key: vectorFile(s, 'circuit.zkey'), witnesses: [bytes(s, 'witness.wtns')] }).id);
      let peakOk = true;
      const timer = setInterval(() => {
        const b = e.status().budget;
        if (b.host.used > b.host.limit || b.pinned.used > b.pinned.limit) peakOk = false;
      }, 1);
      for (const id of ids) await verifyAll(s, await e.await(id));
      clearInterval(timer);
      assert.ok(peakOk);
      assert.ok(oneJob > 0);
      const tooBig = await e.await(e.submit({ key: zkey, witnesses: [w1] }).id);
      assert.equal(tooBig.state, 'failed');
      assert.match(tooBig.error!.message, /budget allows/);
    } finally {
      await e.close();
    }
  });
});
