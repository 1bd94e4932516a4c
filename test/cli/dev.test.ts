// `cuzk dev-circuit` says which domain it makes: a constraint count whose rows (constraints plus the
// public rows snarkjs adds) overflow a power of two gets a notice naming the domain, why, and the
// count that fits; one that fits gets none. The domain it names is the one dev-setup's key has.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ZkeyFile } from '../../src/formats/zkey.js';
import { runCli } from '../helpers/capture.js';

let dir: string;
before(() => void (dir = mkdtempSync(path.join(tmpdir(), 'cuzk-dev-'))));
after(() => rmSync(dir, { recursive: true, force: true }));
const out = (n: string) => path.join(dir, n);

describe('cuzk dev-circuit domain notice', () => {
  it('--constraints 256: notice of a 2^9 domain (256 + 3 rows exceed 2^8), and 253 fits 2^8', async () => {
    const r = await runCli(['dev-circuit', '--constraints', '256', out('a.r1cs'), out('a.wtns')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^note: a 2\^9 domain: 256 constraints \+ 3 public rows .* exceed 2\^8; --constraints 253 fits a 2\^8 domain$/m);
    assert.match(r.stdout, /256 constraints, a 2\^9 domain/);
    const s = await runCli(['dev-setup', out('a.r1cs'), out('a.zkey'), '--quiet']);
    assert.equal(s.code, 0, s.stderr);
    const z = ZkeyFile.open(out('a.zkey'));
    try {
      assert.equal(z.header.domainSize, 2 ** 9);
    } finally {
      z.close();
    }
  });

  it('--constraints 253: a 2^8 domain, no notice', async () => {
    const r = await runCli(['dev-circuit', '--constraints', '253', out('b.r1cs'), out('b.wtns')]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /note:/);
    assert.match(r.stdout, /253 constraints, a 2\^8 domain/);
    const s = await runCli(['dev-setup', out('b.r1cs'), out('b.zkey'), '--quiet']);
    assert.equal(s.code, 0, s.stderr);
    const z = ZkeyFile.open(out('b.zkey'));
    try {
      assert.equal(z.header.domainSize, 2 ** 8);
    } finally {
      z.close();
    }
  });
});
