// proveFromFiles (one-shot.ts), the road of `cuzk prove`: the key and the witness read beside each
// other, a proof snarkjs accepts, and a breakdown whose parts fit inside the whole; a witness of
// another circuit is refused once the key is in (before any upload), one with a value not below r
// as the witness read names it, and neither leaves the key held.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `cuzk prove --json` in a fresh process (the core not loaded yet) with `env`. */
function proveChild(env: NodeJS.ProcessEnv, out: string) {
  const args = ['--import', 'tsx', 'src/cli/run.ts', 'prove', vectorFile(poseidon, 'circuit.zkey'), vectorFile(poseidon, 'witness.wtns'), path.join(out, 'proof.json'), path.join(out, 'public.json'), '--json'];
  return spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: { ...process.env, CUZK_LOG: 'warn', ...env } });
}

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

  it('a "CUDA build" loaded before the driver is asked (the driver\'s device present) that finds no GPU: the CPU core proves; CUZK_BACKEND=cuda: E_NO_DEVICE', () => {
    // the CPU core's library stands in for the CUDA build: its cuzk_gpu_warm says E_NO_DEVICE, as a CUDA build without a usable GPU does
    const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-defer-'));
    try {
      const built = path.join(root, 'build', 'native');
      for (const twin of ['', '_test']) symlinkSync(path.join(built, `libcuzk_cpu${twin}.so`), path.join(dir, `libcuzk_cuda${twin}.so`));
      writeFileSync(path.join(dir, 'nvidiactl'), '');
      const env = { CUZK_BUILD_DIR: dir, CUZK_NVIDIA_CTL: path.join(dir, 'nvidiactl') };
      const r = proveChild(env, dir);
      assert.equal(r.status, 0, r.stderr);
      const j = JSON.parse(r.stdout) as { backend: string; timings: { warmAt: number; uploadMs: number } };
      assert.deepEqual([j.backend, j.timings.warmAt, j.timings.uploadMs], ['cpu', -1, 0]);
      assert.deepEqual(JSON.parse(readFileSync(path.join(dir, 'public.json'), 'utf8')), JSON.parse(readFileSync(vectorFile(poseidon, 'public.json'), 'utf8')));
      const insist = proveChild({ ...env, CUZK_BACKEND: 'cuda' }, dir);
      assert.equal(insist.status, 1, insist.stderr);
      assert.match(insist.stderr.trim(), /^cuzk: E_NO_DEVICE: CUZK_BACKEND=cuda but no usable GPU was found$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
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
