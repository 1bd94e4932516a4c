#!/usr/bin/env node
// Times the upload of one big witness, three ways in one run on loopback: a raw HTTP/1.1 POST of the
// same bytes to a plain node http server (the floor), and SubmitProof through the SDK over gRPC and
// over Connect to a real `cuzk serve` child. The witness (2^20 BN254 values, 32 MiB) does not match
// the key, so the job may fail: only the time until the submit's answer is measured.
// Usage: node --import tsx scripts/measure-submit.mjs [--signals 1048576] [--runs 3]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: a } = parseArgs({ options: { signals: { type: 'string', default: String(2 ** 20) }, runs: { type: 'string', default: '3' } } });
const { CuzkClient } = await import(path.join(root, 'src/client/index.ts'));
const { encodeWtns } = await import(path.join(root, 'src/formats/wtns.ts'));
const { BN128 } = await import(path.join(root, 'src/formats/curves.ts'));

const signals = Number(a.signals);
const runs = Number(a.runs);
const prime = BN128.r;
const values = new Uint8Array(signals * 32);
for (let i = 0; i < values.length; i += 32) values[i] = (i / 32) & 0xff; // each < r
const wtns = encodeWtns(prime, values);
const key = path.join(root, 'test/vectors/bn128/multiplier/circuit.zkey');
const ms = (t0) => performance.now() - t0;
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

async function rawPost() {
  const server = http.createServer((req, res) => {
    let n = 0;
    req.on('data', (c) => (n += c.length));
    req.on('end', () => res.end(String(n)));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: wtns });
    if (Number(await r.text()) !== wtns.length) throw new Error('raw POST: short body');
    times.push(ms(t0));
  }
  server.close();
  return times;
}

async function startDaemon(dataDir) {
  const child = path.join(root, 'test/helpers/cuzk-child.ts');
  const proc = spawn(process.execPath, ['--import', 'tsx', child, 'serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir, '--backend', 'cpu'], { cwd: root, env: { ...process.env, CUZK_LOG: 'info' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let logs = '';
  const address = await new Promise((resolve, reject) => {
    proc.stderr.on('data', (d) => {
      logs += d;
      const m = /"address":"([^"]+)"[^\n]*"msg":"cuzk serve listening"/.exec(logs);
      if (m) resolve(m[1]);
    });
    proc.on('exit', (c) => reject(new Error(`daemon exited (${c}):\n${logs}`)));
  });
  return { proc, address };
}

async function sdkSubmit(address, protocol) {
  const client = new CuzkClient({ address, protocol });
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    let outcome;
    try {
      outcome = (await client.submit({ key, witnesses: [wtns] })).job.state;
    } catch (err) {
      outcome = err.code ?? String(err);
    }
    times.push(ms(t0));
    if (i === 0) console.error(`  ${protocol}: first answer ${outcome}`);
  }
  return times;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'cuzk-measure-'));
const d = await startDaemon(dataDir);
try {
  const rows = [
    ['raw HTTP/1.1 POST (plain node server)', await rawPost()],
    ['SDK submit over gRPC', await sdkSubmit(d.address, 'grpc')],
    ['SDK submit over Connect', await sdkSubmit(d.address, 'connect')],
  ];
  const floor = median(rows[0][1]);
  console.log(`witness ${(wtns.length / 2 ** 20).toFixed(1)} MiB (${signals} signals), ${runs} runs each, median ms:`);
  for (const [name, t] of rows) console.log(`  ${name.padEnd(40)} ${median(t).toFixed(0).padStart(7)} ms  x${(median(t) / floor).toFixed(1)}   [${t.map((x) => x.toFixed(0)).join(', ')}]`);
} finally {
  d.proc.kill('SIGTERM');
  await new Promise((r) => d.proc.on('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
