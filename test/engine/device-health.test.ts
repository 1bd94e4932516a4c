// A lost device, on the CPU core: cuzk_debug_fail_next (native/api/debug_hooks.cpp, test builds)
// makes the next prove calls fail with E_DEVICE_LOST or E_DEVICE_OOM. E_DEVICE_LOST marks the lane
// unhealthy (status, metric, one log line), the proof runs again once on another lane and later jobs
// avoid the lost one; with no healthy lane left jobs fail with E_DEVICE_LOST and submit refuses with
// E_NO_DEVICE. E_DEVICE_OOM fails the job (retryable later) and leaves the lane in service. Extra
// CPU-core lanes (testHooks.extraCpuLanes) stand in for a second and third GPU.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { afterEach, describe, it } from 'node:test';
import { CuzkError, isRetryable } from '../../src/errors.js';
import { createEngine, type Engine } from '../../src/index.js';
import { DeviceLane } from '../../src/engine/gpu-worker.js';
import { debugFailNext } from '../../src/ffi/native.js';
import { createLogger } from '../../src/log.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const poseidon = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
const zkey = vectorFile(poseidon, 'circuit.zkey');
const w1 = new Uint8Array(readFileSync(vectorFile(poseidon, 'witness.wtns')));

let engine: Engine | undefined;
afterEach(async () => {
  debugFailNext('E_DEVICE_LOST', 0); // disarmed whatever a failed test left
  await engine?.close();
  engine = undefined;
});

/** An engine with `extraCpuLanes` lanes beside 'cpu', and the lines it logs at warn and above. */
async function start(extraCpuLanes = 0): Promise<{ e: Engine; lines: () => Record<string, unknown>[] }> {
  let text = '';
  const logger = createLogger('warn', { write: (s: string) => void (text += s) });
  engine = await createEngine({ threads: 2, logger, testHooks: { extraCpuLanes } });
  return { e: engine, lines: () => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

const prove = async (e: Engine) => e.await(e.submit({ key: zkey, witnesses: [w1] }).id);
const health = (e: Engine) => Object.fromEntries(e.status().devices.map((d) => [d.id, d.healthy]));

describe('cuzk_debug_fail_next', () => {
  it('refuses a code that is not a native failure status, and calls < 0', () => {
    assert.throws(() => debugFailNext('E_OVERLOADED'), (e: CuzkError) => e.code === 'E_INVALID_ARG' && /not a native status/.test(e.message));
    assert.throws(() => debugFailNext('E_DEVICE_LOST', -1), (e: CuzkError) => e.code === 'E_INVALID_ARG' && /calls must be >= 0/.test(e.message));
  });

  it('armed then disarmed (calls 0): the next proof runs', async () => {
    const { e } = await start();
    debugFailNext('E_DEVICE_LOST', 1);
    debugFailNext('E_DEVICE_LOST', 0);
    assert.equal((await prove(e)).state, 'completed');
  });
});

describe('a lost device lane', { timeout: 120_000 }, () => {
  it('is marked unhealthy, its failed proof runs once more on another lane, later jobs avoid it', async () => {
    const { e, lines } = await start(1);
    assert.equal((await prove(e)).device, 'cpu', 'the least loaded lane, the first of equals');
    debugFailNext('E_DEVICE_LOST', 1);
    const job = await prove(e);
    assert.equal(job.state, 'completed', job.error?.message);
    assert.equal(job.device, 'cpu:1', 'retried on the other lane');
    assert.deepEqual(health(e), { cpu: false, 'cpu:1': true });
    const lost = e.status().devices.find((d) => d.id === 'cpu')!;
    assert.match(lost.unhealthyReason!, /E_DEVICE_LOST injected by cuzk_debug_fail_next/);
    const marked = lines().filter((l) => /marked unhealthy/.test(String(l.msg)));
    assert.equal(marked.length, 1, 'one line when the lane is marked');
    assert.equal(marked[0]!.device, 'cpu');
    assert.match(String(marked[0]!.msg), /its proofs move to cpu:1/);
    assert.ok(lines().some((l) => l.msg === 'proof retried on another device lane' && l.jobId === job.id));
    for (let i = 0; i < 2; i++) assert.equal((await prove(e)).device, 'cpu:1', 'no new work for the lost lane');
    const text = await e.metricsText();
    assert.match(text, /cuzk_device_healthy\{device="cpu"\} 0/);
    assert.match(text, /cuzk_device_healthy\{device="cpu:1"\} 1/);
  });

  it('a proof is retried once: lost again on the second lane, the job fails with E_DEVICE_LOST; a third lane takes the next', async () => {
    const { e } = await start(2);
    debugFailNext('E_DEVICE_LOST', 2);
    const job = await prove(e);
    assert.equal(job.state, 'failed');
    assert.equal(job.error?.code, 'E_DEVICE_LOST');
    assert.match(job.error!.message, /injected/);
    assert.deepEqual(health(e), { cpu: false, 'cpu:1': false, 'cpu:2': true });
    const next = await prove(e);
    assert.equal(next.state, 'completed', next.error?.message);
    assert.equal(next.device, 'cpu:2');
  });

  it('the only lane lost: the job fails with E_DEVICE_LOST, queued jobs too, and submit refuses with E_NO_DEVICE', async () => {
    const { e, lines } = await start();
    e.pause();
    const ids = [0, 1, 2, 3].map(() => e.submit({ key: zkey, witnesses: [w1] }).id); // 2 run at once, 2 stay queued
    debugFailNext('E_DEVICE_LOST', 1);
    e.resume();
    for (const id of ids) {
      const j = await e.await(id);
      assert.equal(j.state, 'failed', id);
      assert.equal(j.error?.code, 'E_DEVICE_LOST', j.error?.message);
    }
    // which job reaches the lane first (and takes the injected loss) is the machine's to decide: one ran
    // and was lost, the others were bounced from the lost lane or never reached it
    const messages = await Promise.all(ids.map(async (id) => (await e.await(id)).error!.message));
    assert.equal(messages.filter((m) => /no healthy device lane is left to retry on/.test(m)).length, 1, messages.join('\n'));
    for (const m of messages) assert.match(m, /no healthy device lane is left to retry on|no healthy device lane is left to run it \(cpu: |cpu is unhealthy \(.*injected.*\): the proof was not run there/);
    assert.ok(messages.some((m) => /no healthy device lane is left to run it \(cpu: /.test(m)), 'a queued job found no lane left');
    assert.deepEqual(health(e), { cpu: false });
    assert.throws(() => e.submit({ key: zkey, witnesses: [w1] }), (err: CuzkError) => err.code === 'E_NO_DEVICE' && /no healthy device lane is left \(cpu: .*injected/.test(err.message));
    assert.match(String(lines().find((l) => /marked unhealthy/.test(String(l.msg)))?.msg), /no healthy lane is left, jobs fail with E_DEVICE_LOST/);
  });
});

describe('device out of memory', { timeout: 120_000 }, () => {
  it('fails the job with E_DEVICE_OOM (retryable later), not retried; the lane stays in service', async () => {
    const { e } = await start(1);
    debugFailNext('E_DEVICE_OOM', 1);
    const job = await prove(e);
    assert.equal(job.state, 'failed');
    assert.equal(job.error?.code, 'E_DEVICE_OOM');
    assert.match(job.error!.message, /CUZK_E_DEVICE_OOM injected/);
    assert.equal(isRetryable('E_DEVICE_OOM'), true);
    assert.deepEqual(health(e), { cpu: true, 'cpu:1': true });
    const next = await prove(e);
    assert.equal(next.state, 'completed', next.error?.message);
    assert.equal(next.device, 'cpu');
  });
});

describe('DeviceLane', () => {
  it('bounces the tasks waiting for a slot when it is marked unhealthy, and refuses new ones', async () => {
    const lane = new DeviceLane(-1, 'CPU core', 1, () => 1);
    const seen: string[] = [];
    lane.onUnhealthy = (l) => seen.push(l.id);
    let release!: () => void;
    const first = lane.run('a', () => new Promise<{ kernelMs: number }>((r) => (release = () => r({ kernelMs: 0 }))));
    let ran = false;
    const waiting = lane.run('b', async () => {
      ran = true;
      return { kernelMs: 0 };
    });
    await new Promise((r) => setImmediate(r));
    assert.equal(lane.load, 2);
    lane.markUnhealthy('gpu fell off the bus');
    lane.markUnhealthy('again');
    const bounced = await waiting.then(() => undefined, (e: unknown) => e);
    assert.ok(bounced instanceof CuzkError && bounced.code === 'E_DEVICE_LOST', String(bounced));
    assert.equal(bounced.details?.ran, false);
    assert.match(bounced.message, /cpu is unhealthy \(gpu fell off the bus\): the proof was not run there/);
    assert.equal(ran, false);
    release();
    await first; // the task already running ends as it would
    assert.equal(lane.load, 0);
    await assert.rejects(lane.run('c', async () => ({ kernelMs: 0 })), (e: CuzkError) => e.code === 'E_DEVICE_LOST');
    assert.deepEqual(seen, ['cpu'], 'onUnhealthy once');
    assert.deepEqual({ healthy: lane.status().healthy, reason: lane.status().unhealthyReason }, { healthy: false, reason: 'gpu fell off the bus' });
  });

  it('a task failing with E_DEVICE_LOST marks it; any other error does not', async () => {
    const lane = new DeviceLane(0, 'GPU', 1, () => 1);
    await assert.rejects(lane.run('a', async () => { throw new CuzkError('E_DEVICE_OOM', 'oom'); }));
    assert.equal(lane.healthy, true);
    await assert.rejects(lane.run('b', async () => { throw new CuzkError('E_DEVICE_LOST', 'illegal address'); }));
    assert.equal(lane.healthy, false);
    assert.equal(lane.unhealthyReason, 'illegal address');
  });
});
