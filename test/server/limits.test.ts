// The daemon's guards: bearer token, exposure without a token, queue backpressure (E_OVERLOADED →
// RESOURCE_EXHAUSTED / HTTP 429 with the queue state), message size limits; and the daemon stays
// healthy after each refusal.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CuzkClient, CuzkError } from '../../src/client/index.js';
import { removeDataDir, runChild, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { plainGrpc } from '../helpers/grpc.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const multKey = vectorFile(bnMult, 'circuit.zkey');
const multWtns = new Uint8Array(readFileSync(vectorFile(bnMult, 'witness.wtns')));
const TOKEN = 'test-token-0123456789';

let d: DaemonProcess;
before(async () => {
  d = await startDaemon({ args: ['--token', TOKEN, '--max-queue', '2', '--max-message-bytes', '400000', '--max-key-bytes', '10000', ...vectorDirArgs()] });
});
after(async () => {
  assert.equal(await d.stop(), 0, d.logs());
  removeDataDir(d.dataDir);
});

const caught = <T>(p: Promise<T>): Promise<T | CuzkError> => p.then((v) => v, (e: unknown) => e as CuzkError);

describe('cuzk serve: token', () => {
  it('RPCs and /metrics need the token; /healthz does not', async () => {
    const anon = new CuzkClient({ address: d.address, token: '' });
    const wrong = new CuzkClient({ address: d.address, token: 'nope' });
    const ok = new CuzkClient({ address: d.address, token: TOKEN });
    assert.equal(((await caught(anon.status())) as CuzkError).code, 'E_UNAUTHORIZED');
    assert.equal(((await caught(wrong.prove({ key: multKey, witnesses: [multWtns] }))) as CuzkError).code, 'E_UNAUTHORIZED');
    assert.equal((await ok.prove({ key: multKey, witnesses: [multWtns] })).state, 'completed');
    // key bytes go as POST /v1/keys, beside the RPCs, under the same token (gRPC and Connect)
    const zkey = readFileSync(multKey);
    for (const protocol of ['grpc', 'connect'] as const) {
      const [no, yes] = [new CuzkClient({ address: d.address, token: 'nope', protocol }), new CuzkClient({ address: d.address, token: TOKEN, protocol })];
      assert.equal(((await caught(no.loadKey({ zkey }, `k-${protocol}`))) as CuzkError).code, 'E_UNAUTHORIZED', protocol);
      assert.equal((await yes.loadKey({ zkey }, `k-${protocol}`)).id, `k-${protocol}`);
      no.close();
      yes.close();
    }
    const r = await fetch(`${d.url}/cuzk.v1.ProvingService/GetStatus`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(r.status, 401);
    assert.equal((await fetch(`${d.url}/metrics`)).status, 401);
    assert.equal((await fetch(`${d.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200);
    assert.equal((await fetch(`${d.url}/healthz`)).status, 200);
    const g = plainGrpc(d.address);
    try {
      assert.equal(((await g.call('GetStatus', {}).catch((e) => e)) as { code: number }).code, 16); // UNAUTHENTICATED
      assert.equal((await g.call('GetStatus', {}, TOKEN)).backend, 'cpu');
    } finally {
      g.close();
    }
  });

  it('refuses to start: off loopback without a token, a port in use, an unusable data dir', async () => {
    const r = await runChild(['serve', '--listen', '0.0.0.0:0', '--data-dir', d.dataDir + '-x'], { CUZK_TOKEN: '' });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /E_INVALID_ARG: refusing to listen on 0\.0\.0\.0 without a token/);
    const busy = await runChild(['serve', '--listen', d.address, '--token', TOKEN, '--data-dir', d.dataDir + '-y']);
    assert.equal(busy.code, 2, busy.stderr);
    assert.match(busy.stderr, /^cuzk: E_INVALID_ARG: cannot listen on 127\.0\.0\.1:\d+: the address is in use/m);
    removeDataDir(d.dataDir + '-y');
    const dir = await runChild(['serve', '--listen', '127.0.0.1:0', '--data-dir', '/dev/null/x']);
    assert.equal(dir.code, 2, dir.stderr);
    assert.match(dir.stderr, /^cuzk: E_INVALID_ARG: journal \/dev\/null\/x\/journal\.sqlite: cannot open/m);
  });
});

describe('cuzk serve: backpressure', () => {
  it('a full queue answers E_OVERLOADED / 429 with the queue state; accepted jobs finish', async () => {
    // the queue is paused, so it holds exactly max_queue (2) jobs by construction: the third submit
    // is refused, whatever this machine's speed; every accepted job is awaited at the end
    const c = new CuzkClient({ address: d.address, token: TOKEN });
    const zkey = multKey;
    const w = multWtns;
    const accepted: string[] = [];
    await c.pauseQueue();
    for (let i = 0; i < 2; i++) accepted.push((await c.submit({ key: zkey, witnesses: [w] })).job.id);
    const refused = await caught(c.submit({ key: zkey, witnesses: [w] }));
    assert.ok(refused instanceof CuzkError, 'the third job was accepted into a full queue');
    assert.equal(refused.code, 'E_OVERLOADED', refused.message);
    assert.equal(refused.retryable, true);
    assert.equal(refused.details?.maxQueue, 2);
    assert.ok(refused.details?.queued !== undefined, 'the queue state comes with the refusal');
    const http = await fetch(`${d.url}/cuzk.v1.ProvingService/SubmitProof`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ key: zkey, witnesses: [Buffer.from(w).toString('base64')] }),
    });
    assert.equal(http.status, 429);
    const body = (await http.json()) as { code: string; message: string; details: { debug?: { details?: { maxQueue?: number } } }[] };
    assert.equal(body.code, 'resource_exhausted');
    assert.match(body.message, /^E_OVERLOADED: .*queue is full/);
    assert.equal(body.details[0]?.debug?.details?.maxQueue, 2);
    await c.resumeQueue();
    for (const id of accepted) assert.equal((await c.await(id)).state, 'completed');
    // refused jobs were never journaled: the journal holds only the accepted ones
    const s = await c.status();
    assert.equal(s.journal.completed, s.totals.submitted, JSON.stringify(s.journal));
    assert.equal(s.journal.queued, undefined);
  });
});

describe('cuzk serve: size limits', () => {
  it('oversized messages and keys are refused with the limit named; the daemon stays healthy', async () => {
    const c = new CuzkClient({ address: d.address, token: TOKEN });
    const big = new Uint8Array(500_000);
    big.set([0x77, 0x74, 0x6e, 0x73]);
    // a witness streamed as UploadWitness messages (a POSTed one is no message: limits.max_job_bytes bounds it)
    const streaming = new CuzkClient({ address: d.address, token: TOKEN, uploads: 'stream' });
    const e = (await caught(streaming.submit({ key: multKey, witnesses: [big] }))) as CuzkError;
    assert.equal(e?.code, "E_INVALID_ARG", String(e?.message ?? JSON.stringify(e)));
    assert.match(e!.message, /message too large.*400000/);
    const http = await fetch(`${d.url}/cuzk.v1.ProvingService/SubmitProof`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ key: multKey, witnesses: [Buffer.from(big).toString('base64')] }),
    });
    assert.ok(http.status === 413 || http.status === 429 || http.status === 400, String(http.status));
    assert.match(await http.text(), /400000/);
    const k = (await caught(c.loadKey({ zkey: new Uint8Array(12_000) }))) as CuzkError;
    assert.equal(k?.code, 'E_LIMIT');
    assert.match(k!.message, /more than limits\.max_key_bytes 10000 \(--max-key-bytes/);
    assert.equal((await c.prove({ key: multKey, witnesses: [multWtns] })).state, 'completed');
    assert.equal((await fetch(`${d.url}/healthz`)).status, 200);
  });
});
