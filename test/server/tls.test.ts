// TLS and mTLS: with tls.cert/tls.key the one port negotiates HTTP/2 or HTTP/1.1 by ALPN; with
// tls.client_ca only clients with a certificate it signed get in (mTLS stands in for the token off
// loopback). Certificates are made with openssl for the test (skipped where openssl is missing).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CuzkClient, CuzkError } from '../../src/client/index.js';
import { checkExposure, parseListen } from '../../src/server/transport/auth.js';
import { removeDataDir, startDaemon, vectorDirArgs, type DaemonProcess } from '../helpers/daemon.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const bnMult = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let dir: string;
let d: DaemonProcess | undefined;
const pem = (name: string) => readFileSync(path.join(dir, name));

function makeCerts(): void {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=cuzk-test-ca');
  writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  for (const who of ['server', 'client']) {
    ssl('req', ...ec, '-keyout', `${who}.key`, '-out', `${who}.csr`, '-subj', `/CN=cuzk-test-${who}`);
    ssl('x509', '-req', '-in', `${who}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${who}.pem`, '-days', '1', '-extfile', 'san.ext');
  }
}

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'cuzk-tls-'));
  if (!hasOpenssl) return;
  makeCerts();
  d = await startDaemon({ args: ['--tls-cert', path.join(dir, 'server.pem'), '--tls-key', path.join(dir, 'server.key'), '--tls-client-ca', path.join(dir, 'ca.pem'), ...vectorDirArgs()] });
});
after(async () => {
  if (d) {
    assert.equal(await d.stop(), 0, d.logs());
    removeDataDir(d.dataDir);
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('cuzk serve: TLS', { skip: !hasOpenssl && 'openssl not found' }, () => {
  const job = () => ({ key: vectorFile(bnMult, 'circuit.zkey'), witnesses: [new Uint8Array(readFileSync(vectorFile(bnMult, 'witness.wtns')))] });

  it('mTLS clients prove over gRPC (h2) and Connect (HTTP/1.1)', async () => {
    assert.match(d!.logs(), /"tls":"mtls"/);
    for (const protocol of ['grpc', 'connect'] as const) {
      const c = new CuzkClient({ address: d!.address, protocol, tls: { ca: pem('ca.pem'), cert: pem('client.pem'), key: pem('client.key') } });
      assert.equal((await c.prove(job())).state, 'completed', protocol);
    }
  });

  it('no client certificate, or no TLS at all: refused, and the daemon stays up', async () => {
    const noCert = new CuzkClient({ address: d!.address, tls: { ca: pem('ca.pem') } });
    const e1 = await noCert.status().then(() => undefined, (e: unknown) => e);
    assert.ok(e1 instanceof CuzkError, String(e1));
    assert.equal(e1.code, 'E_UNAUTHORIZED', e1.message);
    assert.match(e1.message, /^TLS with the cuzk daemon at 127\.0\.0\.1:\d+ failed \(.*certificate required.*\): check --tls-ca/);
    const plain = new CuzkClient({ address: d!.address });
    const e2 = await plain.status().then(() => undefined, (e: unknown) => e);
    assert.ok(e2 instanceof CuzkError, String(e2));
    assert.equal(e2.code, 'E_UNAVAILABLE', e2.message);
    const ok = new CuzkClient({ address: d!.address, tls: { ca: pem('ca.pem'), cert: pem('client.pem'), key: pem('client.key') } });
    assert.equal((await ok.status()).backend, 'cpu');
  });
});

describe('exposure rules', () => {
  it('off loopback: a token or mTLS; a token without TLS is a warning', () => {
    const any = parseListen('0.0.0.0:9820');
    assert.throws(() => checkExposure(any, ''), /refusing to listen on 0\.0\.0\.0 without a token/);
    assert.equal(checkExposure(any, '', { cert: 'c', clientCa: 'ca' }), undefined);
    assert.match(checkExposure(any, 'tok') ?? '', /travels in cleartext/);
    assert.equal(checkExposure(any, 'tok', { cert: 'c' }), undefined);
    assert.equal(checkExposure(parseListen('127.0.0.1:1'), ''), undefined);
    assert.equal(checkExposure(parseListen('unix:/tmp/s'), ''), undefined);
    assert.equal(checkExposure(parseListen('[::1]:5'), ''), undefined);
  });
});
