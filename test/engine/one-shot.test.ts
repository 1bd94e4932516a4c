// proveFromFiles (one-shot.ts), the road of `cuzk prove`: the key and the witness read beside each
// other, a proof snarkjs accepts, and a breakdown whose parts fit inside the whole; a witness of
// another circuit is refused once the key is in (before any upload), one with a value not below r
// as the witness read names it, and neither leaves the key held.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { proveFromFiles } from '../../src/engine/one-shot.js';
import { proofToJson, publicToJson } from '../../src/formats/proof-json.js';
import { WtnsFile } from '../../src/formats/wtns.js';
import { rejects } from '../helpers/rejects.js';
import { snarkjsVerify, terminateSnarkjs } from '../helpers/snarkjs.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

after(terminateSnarkjs);
const sets = vectorSets();
const poseidon = sets.find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
const mult = sets.find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;

describe('proveFromFiles', { timeout: 120_000 }, () => {
  it('proves from the files with the breakdown of where the time went; snarkjs verifies the proof', async () => {
    const wtns = WtnsFile.open(vectorFile(poseidon, 'witness.wtns'));
    const phases: string[] = [];
    try {
      const { key, res, timings: t } = await proveFromFiles(vectorFile(poseidon, 'circuit.zkey'), wtns, { onPhase: (p) => phases.push(p) });
      key.release();
      const vk = JSON.parse(readFileSync(vectorFile(poseidon, 'vkey.json'), 'utf8'));
      assert.equal(await snarkjsVerify(vk, publicToJson(res.publicSignals), proofToJson(res.proof)), true);
      assert.deepEqual(phases, ['load key', 'prove', 'verify'], 'the CPU core: no upload phase');
      assert.equal(t.warmAt, -1, 'no GPU context on the CPU core');
      assert.equal(t.uploadMs, 0);
      assert.ok(t.startAt > 0 && t.coreMs >= 0 && t.key.totalMs > 0 && t.proveMs > 0 && t.verifyMs >= 0, JSON.stringify(t));
      assert.ok(t.witnessAt > 0 && t.witnessAt <= t.totalMs, `the witness was in at ${t.witnessAt} ms of ${t.totalMs}`);
      assert.ok(t.coreMs + t.key.totalMs + t.proveMs + t.verifyMs <= t.totalMs + 1, `the parts fit in the whole: ${JSON.stringify(t)}`);
    } finally {
      wtns.close();
    }
  });

  it('a witness of another circuit: E_FORMAT naming both counts; one with a value not below r: E_FORMAT naming the value', async () => {
    const other = WtnsFile.open(vectorFile(mult, 'witness.wtns'));
    try {
      const err = await rejects(proveFromFiles(vectorFile(poseidon, 'circuit.zkey'), other), 'E_FORMAT');
      assert.match(err.message, /witness has \d+ values but the key expects \d+/);
    } finally {
      other.close();
    }
    const good = new Uint8Array(readFileSync(vectorFile(poseidon, 'witness.wtns')));
    const bad = good.slice();
    bad.fill(0xff, bad.length - 32); // the last value: all ones, not below r
    const wtns = WtnsFile.fromBytes(bad, 'the bad witness');
    try {
      const err = await rejects(proveFromFiles(vectorFile(poseidon, 'circuit.zkey'), wtns), 'E_FORMAT');
      assert.equal(err.message, `the bad witness: wtns section 2: value ${wtns.header.nWitness - 1} is not below the scalar field prime r`);
    } finally {
      wtns.close();
    }
  });
});
