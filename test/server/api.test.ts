// The daemon's API as its users meet it: a real `cuzk serve` child process on a loopback port,
// driven with the SDK (gRPC and Connect), plain @grpc/grpc-js, and fetch (Connect JSON, /metrics).
// Every proof that comes back is checked with snarkjs's verifier.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CuzkClient, type JobInfo } from '../../src/client/index.js';
import { startDaemon, removeDataDir, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { plainGrpc } from '../helpers/grpc.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { VECTORS_DIR, vectorFile, vectorSets, type VectorSet } from '../helpers/vectors.js';
import { rejects } from '../helpers/rejects.js';

const sets = vectorSets();
const bnMult = sets.find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const blsMult = sets.find((s) => s.curve === 'bls12381' && s.circuit === 'multiplier')!;
const bnBits = sets.find((s) => s.curve === 'bn128' && s.circuit === 'bits')!;
const file = (s: VectorSet, n: string) => vectorFile(s, n);
const bytes = (s: VectorSet, n: string) => new Uint8Array(readFileSync(file(s, n)));
const json = (s: VectorSet, n: string) => JSON.parse(readFileSync(file(s, n), 'utf8'));

async function assertVerifies(set: VectorSet, job: JobInfo, publicFile = 'public.json'): Promise<void> {
  assert.equal(job.state, 'completed', JSON.stringify(job.error));
  assert.equal(job.proofs?.length, job.partitions);
  const p = job.proofs![0]!;
  assert.deepEqual(p.publicSignals, json(set, publicFile));
  assert.equal(await snarkjsVerify(json(set, 'vkey.json'), p.publicSignals, p.proof), true, 'snarkjs rejects the proof');
}


let d: DaemonProcess;
let sdk: CuzkClient;
before(async () => {
  d = await startDaemon({ args: vectorDirArgs() });
  sdk = new CuzkClient({ address: d.address });
});
after(async () => {
  assert.equal(await d.stop('SIGTERM'), 0, d.logs());
  removeDataDir(d.dataDir);
  await terminateSnarkjs();
});

describe('cuzk serve: SDK over gRPC and Connect', () => {
  it('prove returns a snarkjs-valid proof (bn128 and bls12381)', async () => {
    await assertVerifies(bnMult, await sdk.prove({ key: file(bnMult, 'circuit.zkey'), witnesses: [bytes(bnMult, 'witness.wtns')] }));
    const connect = new CuzkClient({ address: d.address, protocol: 'connect' });
    await assertVerifies(blsMult, await connect.prove({ key: file(blsMult, 'circuit.zkey'), witnesses: [bytes(blsMult, 'witness.wtns')] }));
  });

  it('submit, watch, await; a multi-witness job; inputs with the circuit wasm', async () => {
    const { job } = await sdk.submit({ key: file(bnBits, 'circuit.zkey'), witnesses: [bytes(bnBits, 'witness.wtns'), bytes(bnBits, 'witness2.wtns')], priority: 'high' });
    assert.equal(job.partitions, 2);
    const events = [];
    for await (const e of sdk.watch(job.id)) events.push(e);
    assert.equal(events.at(-1)?.type, 'state');
    assert.ok(events.some((e) => e.type === 'state' && e.state === 'completed'));
    const done = await sdk.await(job.id);
    await assertVerifies(bnBits, done);
    assert.deepEqual(done.proofs![1]!.publicSignals, json(bnBits, 'public2.json'));
    const viaConnect = new CuzkClient({ address: d.address, protocol: 'connect' });
    const again = await viaConnect.submit({ key: file(bnMult, 'circuit.zkey'), witnesses: [bytes(bnMult, 'witness.wtns')] });
    const streamed = [];
    for await (const e of viaConnect.watch(again.job.id)) streamed.push(e);
    const last = streamed.at(-1);
    assert.equal(last?.type === 'state' ? last.state : last?.type, 'completed');
    const fromInputs = await sdk.prove({ key: file(bnMult, 'circuit.zkey'), inputs: [json(bnMult, 'input.json')], wasm: file(bnMult, 'circuit.wasm') });
    await assertVerifies(bnMult, fromInputs);
  });

  it('keys: load by path and by upload, list, evict', async () => {
    const k = await sdk.loadKey({ path: file(blsMult, 'circuit.zkey') }, 'bls-mult');
    assert.equal(k.id, 'bls-mult');
    assert.equal(k.curve, 'bls12381');
    const up = await sdk.loadKey({ zkey: bytes(bnMult, 'circuit.zkey') });
    assert.match(up.id, /^sha256:[0-9a-f]{64}$/);
    await assertVerifies(bnMult, await sdk.prove({ key: up.id, witnesses: [bytes(bnMult, 'witness.wtns')] }));
    const ids = (await sdk.listKeys()).map((x) => x.id);
    assert.ok(ids.includes('bls-mult') && ids.includes(up.id));
    await sdk.evictKey('bls-mult');
    assert.ok(!(await sdk.listKeys()).some((x) => x.id === 'bls-mult'));
    await rejects(sdk.evictKey('bls-mult'), 'E_NOT_FOUND');
    await rejects(sdk.loadKey({ zkey: bytes(bnMult, 'witness.wtns') }), 'E_FORMAT');
  });

  it('request ids are idempotent; other content under one id is refused', async () => {
    const req = { key: file(bnMult, 'circuit.zkey'), witnesses: [bytes(bnMult, 'witness.wtns')], requestId: 'api-idem-1' };
    const a = await sdk.submit(req);
    const b = await sdk.submit(req);
    assert.equal(b.job.id, a.job.id);
    assert.equal(a.deduplicated, false);
    assert.equal(b.deduplicated, true);
    await rejects(sdk.submit({ ...req, witnesses: [bytes(bnMult, 'witness2.wtns')] }), 'E_INVALID_ARG');
    await assertVerifies(bnMult, await sdk.await(a.job.id));
  });

  it('cancel: a queued job ends cancelled; a finished one comes back unchanged', async () => {
    const key = file(bnBits, 'circuit.zkey');
    const w = bytes(bnBits, 'witness.wtns');
    // a paused queue holds both jobs queued by construction, however fast this machine proves
    assert.equal((await sdk.pauseQueue()).paused, true);
    let kept: JobInfo;
    try {
      kept = (await sdk.submit({ key, witnesses: [w] })).job;
      const { job } = await sdk.submit({ key, witnesses: [w], priority: 'low' });
      const held = await sdk.await(kept.id, 50);
      assert.equal(held.state, 'queued', 'a paused queue starts nothing');
      assert.equal(held.queuePosition, 0);
      const s = await sdk.status();
      assert.equal(s.paused, true);
      assert.equal(s.queues.normal + s.queues.low, 2);
      const c = await sdk.cancel(job.id);
      assert.equal(c.state, 'cancelled');
      assert.equal((await sdk.await(job.id)).state, 'cancelled');
      assert.equal((await sdk.status()).queues.low, 0, 'the cancelled job left the queue');
    } finally {
      assert.equal((await sdk.resumeQueue()).paused, false);
    }
    const first = await sdk.await(kept.id);
    assert.equal(first.state, 'completed');
    assert.equal((await sdk.cancel(first.id)).state, 'completed');
  });

  it('failed jobs carry the reason; bad requests are refused before the engine', async () => {
    const bad = await sdk.prove({ key: file(bnMult, 'circuit.zkey'), witnesses: [bytes(bnMult, 'witness_bad.wtns')] });
    assert.equal(bad.state, 'failed');
    assert.equal(bad.error?.code, 'E_PROOF_INVALID');
    // a witness that cannot match the key is refused at submit, before it is stored or journaled
    const journaled = (await sdk.status()).journal;
    const other = await rejects(sdk.prove({ key: file(bnMult, 'circuit.zkey'), witnesses: [bytes(bnBits, 'witness.wtns')] }), 'E_FORMAT');
    assert.match(other.message, /^witnesses\[0\]: witness has \d+ values but the key expects \d+/);
    assert.deepEqual((await sdk.status()).journal, journaled, 'nothing journaled for the refused job');
    await rejects(sdk.submit({ key: file(bnMult, 'circuit.zkey'), witnesses: [new Uint8Array(64)] }), 'E_INVALID_ARG');
    await rejects(sdk.submit({ key: file(bnMult, 'circuit.zkey') }), 'E_INVALID_ARG');
    await rejects(sdk.submit({ key: path.join(VECTORS_DIR, 'nonexistent.zkey'), witnesses: [bytes(bnMult, 'witness.wtns')] }), 'E_NOT_FOUND');
    await rejects(sdk.submit({ key: '/nonexistent/k.zkey', witnesses: [bytes(bnMult, 'witness.wtns')] }), 'E_INVALID_ARG'); // outside files.key_dirs
    await rejects(sdk.await('no-such-job'), 'E_NOT_FOUND');
    await rejects(sdk.cancel('no-such-job'), 'E_NOT_FOUND');
  });

  it('status and metrics', async () => {
    const s = await sdk.status();
    assert.equal(s.backend, 'cpu');
    assert.ok(s.totals.completed >= 5, JSON.stringify(s.totals));
    assert.equal(s.devices[0]?.id, 'cpu');
    assert.ok((s.journal.completed ?? 0) >= 5);
    const m = await sdk.metrics();
    assert.match(m, /^cuzk_jobs_total\{state="completed"\} \d+$/m);
    assert.match(m, /^cuzk_journal_jobs\{state="completed"\} \d+$/m);
  });
});

describe('cuzk serve: plain gRPC (@grpc/grpc-js + proto-loader)', () => {
  it('Prove, GetStatus, WatchJob, errors as gRPC statuses', async () => {
    const g = plainGrpc(d.address);
    try {
      const r = await g.call('Prove', { job: { key: file(bnMult, 'circuit.zkey'), witnesses: [readFileSync(file(bnMult, 'witness.wtns'))], priority: 'PRIORITY_CRITICAL' } });
      assert.equal(r.job.state, 'JOB_STATE_COMPLETED');
      const proof = r.job.proofs[0];
      const pj = JSON.parse(JSON.stringify(proof.proof));
      assert.deepEqual(proof.publicSignals, json(bnMult, 'public.json'));
      assert.ok(pj.fields?.pi_a, 'proof is a Struct');
      const st = await g.call('GetStatus', {});
      assert.equal(st.backend, 'cpu');
      const events = await g.stream('WatchJob', { jobId: r.job.id });
      assert.equal(events.at(-1).state, 'JOB_STATE_COMPLETED');
      const err = await g.call('AwaitProof', { jobId: 'nope' }).catch((e: { code: number; details: string }) => e);
      assert.equal(err.code, 5); // NOT_FOUND
      // connect-es percent-encodes grpc-message with encodeURIComponent, grpc-js decodes with decodeURI
      assert.match(decodeURIComponent(err.details), /E_NOT_FOUND: no job nope/);
      const bad = await g.call('SubmitProof', { key: '', witnesses: [] }).catch((e: { code: number }) => e);
      assert.equal(bad.code, 3); // INVALID_ARGUMENT
    } finally {
      g.close();
    }
  });
});

describe('cuzk serve: JSON over HTTP (fetch)', () => {
  const post = (method: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${d.url}/cuzk.v1.ProvingService/${method}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  it('SubmitProof with a base64 witness, AwaitProof, proof.json-shaped output', async () => {
    const sub = await post('SubmitProof', { key: file(bnMult, 'circuit.zkey'), witnesses: [readFileSync(file(bnMult, 'witness.wtns')).toString('base64')], requestId: 'http-1' });
    assert.equal(sub.status, 200);
    const { job } = (await sub.json()) as { job: { id: string } };
    const res = await post('AwaitProof', { jobId: job.id, timeoutMs: 30000 });
    const body = (await res.json()) as { job: { state: string; proofs: { proof: unknown; publicSignals: string[] }[] } };
    assert.equal(body.job.state, 'JOB_STATE_COMPLETED');
    const p = body.job.proofs[0]!;
    assert.deepEqual(Object.keys(p.proof as object).sort(), ['curve', 'pi_a', 'pi_b', 'pi_c', 'protocol']);
    assert.equal(await snarkjsVerify(json(bnMult, 'vkey.json'), p.publicSignals, p.proof), true);
  });

  it('errors: status codes and E_ codes; malformed bodies leave the daemon healthy', async () => {
    const nf = await post('AwaitProof', { jobId: 'missing' });
    assert.equal(nf.status, 404);
    assert.equal(nf.headers.get('cuzk-error-code'), 'E_NOT_FOUND');
    const nfBody = (await nf.json()) as { code: string; message: string };
    assert.equal(nfBody.code, 'not_found');
    assert.match(nfBody.message, /^E_NOT_FOUND: no job missing/);
    const malformed = await post('SubmitProof', '{"key": ');
    assert.equal(malformed.status, 400);
    const wrongType = await post('SubmitProof', { key: 5, witnesses: 'x' });
    assert.equal(wrongType.status, 400);
    const notWtns = await post('SubmitProof', { key: file(bnMult, 'circuit.zkey'), witnesses: [Buffer.from('hello world, not a witness').toString('base64')] });
    assert.equal(notWtns.status, 400);
    assert.match(((await notWtns.json()) as { message: string }).message, /witnesses\[0\]: not a .wtns file/);
    const garbage = await fetch(`${d.url}/cuzk.v1.ProvingService/SubmitProof`, { method: 'POST', headers: { 'content-type': 'application/proto' }, body: new Uint8Array([0xff, 0xff, 0xff, 0x0f, 0x01]) });
    // undecodable protobuf is the client's input: INVALID_ARGUMENT / 400, not Connect's INTERNAL
    assert.equal(garbage.status, 400);
    assert.equal(garbage.headers.get('cuzk-error-code'), 'E_INVALID_ARG');
    const garbageBody = (await garbage.json()) as { code: string; message: string };
    assert.equal(garbageBody.code, 'invalid_argument');
    assert.match(garbageBody.message, /^E_INVALID_ARG: request is not a valid protobuf message \(/);
    const route = await fetch(`${d.url}/nope`);
    assert.equal(route.status, 404);
    assert.equal(((await route.json()) as { error: { code: string } }).error.code, 'E_NOT_FOUND');
    assert.equal((await fetch(`${d.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${d.url}/readyz`)).status, 200);
  });

  it('GET /metrics is Prometheus text', async () => {
    const r = await fetch(`${d.url}/metrics`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await r.text();
    assert.match(text, /^# TYPE cuzk_jobs_total counter$/m);
    assert.match(text, /^cuzk_proofs_total \d+$/m);
    assert.match(text, /^cuzk_journal_jobs\{state="completed"\} \d+$/m);
  });
});
