// Witnesses and keys sent from files (CuzkClient: witnesses [{ file }], uploadWitness(key, { file }),
// loadKey({ zkeyFile })) against a real `cuzk serve`, over every upload road: POST /v1/witnesses
// (gRPC and Connect clients), UploadWitness (uploads: 'stream'), POST /v1/keys on HTTP/2 and
// HTTP/1.1. A file sends exactly its bytes (the same job as its bytes, by request id: the daemon
// compares sha256s), and is streamed: sparse files past 2 and 4 GiB are refused by the daemon's own
// checks with the sizes exact, while this process holds a few MiB of them.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CuzkClient, CuzkError, type CuzkClientOptions } from '../../src/client/index.js';
import { removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { slowDevKey, type DevKey } from '../helpers/dev-key.js';
import { peakRss } from '../helpers/proc-usage.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { sparseFile, sparseWitness } from '../helpers/sparse-files.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const GiB = 2 ** 30;
const MiB = 2 ** 20;
const MAX_JOB_BYTES = 3 * GiB;
/** What this process may grow by while it sends a file of gigabytes: a few parts, sockets, the GC's slack. */
const RSS_SLACK = 256 * MiB;
const pos = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
const f = (n: string) => vectorFile(pos, n);

let dev: DevKey; // 100,001 constraints: a 3,200,236-byte witness (4 parts of 1 MiB), a 55 MB key
let d: DaemonProcess;
let dir: string;
let big2: string; // 2^26 wires: 2 GiB + 76 bytes
let big5: string; // 5 GiB + 76 bytes
let bigKey: string;

before(async () => {
  dev = await slowDevKey(100_001);
  d = await startDaemon({ args: ['--max-job-bytes', String(MAX_JOB_BYTES), ...vectorDirArgs(path.dirname(dev.zkey))] });
  dir = mkdtempSync(path.join(tmpdir(), 'cuzk-file-upload-'));
  big2 = sparseWitness(path.join(dir, 'big2.wtns'), f('witness.wtns'), 2 ** 26);
  big5 = sparseWitness(path.join(dir, 'big5.wtns'), f('witness.wtns'), 5 * 2 ** 25);
  bigKey = sparseFile(path.join(dir, 'big.zkey'), readFileSync(f('circuit.zkey')).subarray(0, 4096), 5 * GiB);
});
after(async () => {
  assert.equal(await d.stop(), 0, d.logs());
  removeDataDir(d.dataDir);
  rmSync(dir, { recursive: true, force: true });
  await terminateSnarkjs();
});

const ROADS: [string, CuzkClientOptions][] = [
  ['gRPC client, POST /v1/witnesses', { protocol: 'grpc' }],
  ['gRPC client, UploadWitness', { protocol: 'grpc', uploads: 'stream' }],
  ['Connect client, POST /v1/witnesses', { protocol: 'connect' }],
];
const KEY_ROADS: [string, CuzkClientOptions][] = [
  ['POST /v1/keys over HTTP/2 (gRPC client)', { protocol: 'grpc' }],
  ['POST /v1/keys over HTTP/1.1 (Connect client)', { protocol: 'connect' }],
];

async function rejection(p: Promise<unknown>): Promise<CuzkError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof CuzkError, `expected a CuzkError, got ${String(err)}`);
  return err;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('CuzkClient: witnesses and keys from files', { timeout: 120_000 }, () => {
  for (const [i, [road, opts]] of ROADS.entries()) {
    it(`${road}: a witness file is the same job as its bytes (the daemon's sha256), and proves`, async () => {
      const c = new CuzkClient({ address: d.address, ...opts });
      try {
        await c.pauseQueue(); // the jobs are compared, not run
        const ids: string[] = [];
        for (const [key, wtns] of [[dev.zkey, dev.wtns], [f('circuit.zkey'), f('witness.wtns')]] as const) {
          const requestId = `file-vs-bytes-${i}-${path.basename(wtns)}`;
          const fromBytes = await c.submit({ key, witnesses: [readFileSync(wtns)], requestId });
          assert.equal(fromBytes.deduplicated, false);
          const fromFile = await c.submit({ key, witnesses: [{ file: wtns }], requestId });
          assert.deepEqual([fromFile.job.id, fromFile.deduplicated], [fromBytes.job.id, true], `${wtns}: the file sent other bytes`);
          const uploaded = await c.submit({ key, witnessIds: [await c.uploadWitness(key, { file: wtns })], requestId });
          assert.deepEqual([uploaded.job.id, uploaded.deduplicated], [fromBytes.job.id, true]);
          ids.push(fromBytes.job.id);
        }
        // other content under the same request id is refused: the comparison sees the bytes
        const other = await rejection(c.submit({ key: f('circuit.zkey'), witnesses: [{ file: f('witness2.wtns') }], requestId: `file-vs-bytes-${i}-witness.wtns` }));
        assert.match(other.message, /already used for job .* with other content/);
        for (const id of ids) await c.cancel(id);
      } finally {
        await c.resumeQueue();
        c.close();
      }
      const c2 = new CuzkClient({ address: d.address, ...opts });
      try {
        const job = await c2.prove({ key: f('circuit.zkey'), witnesses: [{ file: f('witness.wtns') }] });
        assert.equal(job.state, 'completed', JSON.stringify(job.error));
        const p = job.proofs![0]!;
        assert.deepEqual(p.publicSignals, JSON.parse(readFileSync(f('public.json'), 'utf8')));
        assert.equal(await snarkjsVerify(JSON.parse(readFileSync(f('vkey.json'), 'utf8')), p.publicSignals, p.proof), true, 'snarkjs rejects the proof');
      } finally {
        c2.close();
      }
    });

    it(`${road}: witness files past 2 and 4 GiB are streamed: refused by the daemon's header check and limit, sizes exact`, async () => {
      const c = new CuzkClient({ address: d.address, ...opts });
      try {
        const key = f('circuit.zkey');
        const before = process.memoryUsage().rss;
        const grown = (peak: number) => assert.ok(peak - before < RSS_SLACK, `this process grew ${Math.round((peak - before) / MiB)} MiB sending a witness of gigabytes`);
        const header = await peakRss(process.pid, rejection(c.submit({ key, witnesses: [{ file: big2 }] })));
        grown(header.peak);
        assert.equal(header.result.code, 'E_FORMAT', header.result.message);
        assert.match(header.result.message, /^uploaded witness: witness has 67108864 values but the key expects 520/);
        const limit = await peakRss(process.pid, rejection(c.uploadWitness(key, { file: big5 })));
        grown(limit.peak);
        assert.equal(limit.result.code, 'E_LIMIT', limit.result.message);
        assert.match(limit.result.message, new RegExp(`the witness is ${5 * GiB + 76} bytes, more than limits\\.max_job_bytes ${MAX_JOB_BYTES} \\(--max-job-bytes`));
      } finally {
        c.close();
      }
    });
  }

  for (const [road, opts] of KEY_ROADS) {
    it(`${road}: loadKey({ zkeyFile }) stores the file's bytes; a 5 GiB one is refused by limits.max_key_bytes, streamed`, async () => {
      const c = new CuzkClient({ address: d.address, ...opts });
      const id = `file-key-${opts.protocol}`;
      try {
        const before = process.memoryUsage().rss;
        const k = await c.loadKey({ zkeyFile: dev.zkey }, id);
        assert.equal(k.id, id);
        assert.equal(path.basename(k.path), `${sha256(dev.zkey)}.zkey`, 'the daemon stored other bytes');
        const small = await c.loadKey({ zkeyFile: f('circuit.zkey') });
        assert.equal(small.id, `sha256:${sha256(f('circuit.zkey'))}`);
        await c.evictKey(small.id);
        const refused = await peakRss(process.pid, rejection(c.loadKey({ zkeyFile: bigKey })));
        assert.ok(refused.peak - before < RSS_SLACK, `this process grew ${Math.round((refused.peak - before) / MiB)} MiB sending a 5 GiB key`);
        assert.equal(refused.result.code, 'E_LIMIT', refused.result.message);
        assert.match(refused.result.message, new RegExp(`^uploaded key is ${5 * GiB} bytes, more than limits\\.max_key_bytes \\d+ \\(--max-key-bytes`));
        const missing = await rejection(c.loadKey({ zkeyFile: path.join(dir, 'none.zkey') }));
        assert.deepEqual([missing.code, missing.message], ['E_INVALID_ARG', `${path.join(dir, 'none.zkey')}: cannot read the key (ENOENT)`]);
      } finally {
        await c.evictKey(id).catch(() => undefined);
        c.close();
      }
    });
  }
});
