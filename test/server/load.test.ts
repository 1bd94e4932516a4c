// A bounded load test: 200 small jobs (bn128 multiplier) from 20 concurrent clients over gRPC,
// Connect and JSON; every job completes, every proof verifies with snarkjs, none is lost, and
// the journal and the engine's totals agree.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { CuzkClient, type JobInfo, type Priority } from '../../src/client/index.js';
import { removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const set = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const CLIENTS = 20;
const JOBS_PER_CLIENT = 10;
const PRIORITIES: Priority[] = ['critical', 'high', 'normal', 'low'];

let d: DaemonProcess;
before(async () => {
  d = await startDaemon({ args: vectorDirArgs() });
});
after(async () => {
  assert.equal(await d.stop(), 0, d.logs());
  removeDataDir(d.dataDir);
  await terminateSnarkjs();
});

describe('cuzk serve: load', () => {
  it(`${CLIENTS * JOBS_PER_CLIENT} jobs from ${CLIENTS} concurrent clients: all complete, all verify, none lost`, async () => {
    const key = vectorFile(set, 'circuit.zkey');
    const witnesses = [new Uint8Array(readFileSync(vectorFile(set, 'witness.wtns'))), new Uint8Array(readFileSync(vectorFile(set, 'witness2.wtns')))];
    const publics = [JSON.parse(readFileSync(vectorFile(set, 'public.json'), 'utf8')), JSON.parse(readFileSync(vectorFile(set, 'public2.json'), 'utf8'))];
    const vkey = JSON.parse(readFileSync(vectorFile(set, 'vkey.json'), 'utf8'));

    const viaJson = async (i: number, j: number): Promise<{ id: string; state: string; proof: unknown; publicSignals: string[] }> => {
      const post = async (method: string, body: unknown) => {
        const r = await fetch(`${d.url}/cuzk.v1.ProvingService/${method}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        assert.equal(r.status, 200, await r.clone().text());
        return (await r.json()) as { job: { id: string; state: string; proofs: { proof: unknown; publicSignals: string[] }[] } };
      };
      const { job } = await post('SubmitProof', { key, witnesses: [Buffer.from(witnesses[j % 2]!).toString('base64')], requestId: `load-${i}-${j}` });
      const done = (await post('AwaitProof', { jobId: job.id })).job;
      return { id: done.id, state: done.state === 'JOB_STATE_COMPLETED' ? 'completed' : done.state, proof: done.proofs[0]?.proof, publicSignals: done.proofs[0]?.publicSignals ?? [] };
    };

    const client = async (i: number) => {
      const sdk = i % 4 === 3 ? undefined : new CuzkClient({ address: d.address, protocol: i % 4 === 2 ? 'connect' : 'grpc' });
      const out: { id: string; state: string; proof: unknown; publicSignals: string[]; w: number }[] = [];
      for (let j = 0; j < JOBS_PER_CLIENT; j++) {
        if (!sdk) {
          out.push({ ...(await viaJson(i, j)), w: j % 2 });
          continue;
        }
        const { job } = await sdk.submit({ key, witnesses: [witnesses[j % 2]!], priority: PRIORITIES[(i + j) % 4], requestId: `load-${i}-${j}` });
        const done: JobInfo = await sdk.await(job.id);
        out.push({ id: done.id, state: done.state, proof: done.proofs?.[0]?.proof, publicSignals: done.proofs?.[0]?.publicSignals ?? [], w: j % 2 });
      }
      return out;
    };

    const t0 = performance.now();
    const results = (await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)))).flat();
    const seconds = (performance.now() - t0) / 1000;
    assert.equal(results.length, CLIENTS * JOBS_PER_CLIENT);
    assert.equal(new Set(results.map((r) => r.id)).size, results.length, 'job ids are unique');
    for (const r of results) {
      assert.equal(r.state, 'completed', r.id);
      assert.deepEqual(r.publicSignals, publics[r.w]);
      assert.equal(await snarkjsVerify(vkey, r.publicSignals, r.proof), true, `job ${r.id}: snarkjs rejects the proof`);
    }
    const s = await new CuzkClient({ address: d.address }).status();
    assert.equal(s.totals.submitted, results.length);
    assert.equal(s.totals.completed, results.length);
    assert.equal(s.journal.completed, results.length, JSON.stringify(s.journal));
    process.stderr.write(`load: ${results.length} jobs in ${seconds.toFixed(1)} s (${(results.length / seconds).toFixed(0)} jobs/s)\n`);
  });
});
