// The CPU build, as CI has it: no GPU, and the GPU entry points say so with E_NO_DEVICE instead of
// failing in other ways; the GPU mode can still be set (the automatic entry points then run on the
// CPU core, same results); and the GPU suite (test/gpu, `npm run test:gpu`) reports every test
// skipped with a "no GPU" reason. The CPU core is forced (CUZK_BACKEND=cpu) so that this holds on
// the GPU machine too.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CuzkError, DeviceError } from '../../src/errors.js';
import { proveWithKey } from '../../src/engine/prover.js';
import { ProvingKey } from '../../src/engine/proving-key.js';
import { NativeBuffer } from '../../src/ffi/native-buffer.js';
import { GROUP, NTT_COSET, backend, batchMul, gpuCount, gpuDescribe, msm, ntt, setGpuMode } from '../../src/ffi/native.js';
import { generatorBytes } from '../../src/dev/generators.js';
import { curveByName } from '../../src/formats/curves.js';
import { WtnsFile } from '../../src/formats/wtns.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

process.env.CUZK_BACKEND = 'cpu'; // read at the first native call, below
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const isNoDevice = (e: unknown) => {
  assert.ok(e instanceof DeviceError, `expected a DeviceError, got ${String(e)}`);
  assert.equal((e as CuzkError).code, 'E_NO_DEVICE');
  return true;
};

describe('the CPU build without a GPU', () => {
  it('loads the CPU core and counts no GPU', () => {
    assert.equal(backend(), 'cpu');
    assert.equal(gpuCount(), 0);
  });

  it('gpuDescribe(0) fails with E_NO_DEVICE', () => {
    assert.throws(() => gpuDescribe(0), isNoDevice);
  });

  it("setGpuMode accepts off / auto / force, and 'force' still computes on the CPU core", () => {
    const n = 16;
    const scalars = new Uint8Array(32 * n).map((_, i) => (i % 32 === 31 ? 0 : (i * 37 + 11) & 0xff)); // all below r
    const points = new Uint8Array(64 * n);
    batchMul('bn128', GROUP.g1, generatorBytes(curveByName('bn128')!).g1, scalars, n, points);
    const outs = (['off', 'force', 'auto'] as const).map((mode) => {
      setGpuMode(mode);
      try {
        const d = scalars.slice();
        ntt('bn128', d, 4, NTT_COSET);
        const p = new Uint8Array(64);
        msm('bn128', GROUP.g1, points, scalars, n, p);
        return Buffer.concat([d, p]).toString('hex');
      } finally {
        setGpuMode('auto');
      }
    });
    assert.equal(outs[1], outs[0]);
    assert.equal(outs[2], outs[0]);
  });

  it("proves on the CPU core with setGpuMode('force'), and proveAb / gpuUpload on GPU 0 fail with E_NO_DEVICE", async () => {
    const set = vectorSets().find((s) => s.curve === 'bn128' && s.circuit === 'multiplier')!;
    const key = await ProvingKey.load(vectorFile(set, 'circuit.zkey'), { pinned: true });
    const w = WtnsFile.open(vectorFile(set, 'witness.wtns'));
    const ab = NativeBuffer.alloc(key.native.abBytes, { pinned: true });
    try {
      const witness = w.readWitness();
      setGpuMode('force');
      await proveWithKey(key, witness); // verified before it returns
      setGpuMode('auto');
      const r = new Uint8Array(32).fill(3, 0, 1);
      const out = new Uint8Array(256);
      await key.native.synthesize(witness, ab.bytes);
      await assert.rejects(key.native.proveAb(witness, null, 0, r, r, out), isNoDevice);
      await assert.rejects(key.native.gpuUpload(0), isNoDevice);
      assert.equal(key.native.gpuBytes, 0);
    } finally {
      setGpuMode('auto');
      ab.release();
      w.close();
      key.release();
    }
  });
});

describe('the GPU suite without a GPU', () => {
  it('reports every test skipped with a "no GPU" reason, none failed', { timeout: 180_000 }, () => {
    const dir = path.join(root, 'test', 'gpu');
    const files = readdirSync(dir).filter((f) => f.endsWith('.test.ts')).map((f) => path.join(dir, f));
    assert.ok(files.length >= 3, `test/gpu has ${files.length} test files`);
    // NODE_TEST_CONTEXT would make the child report to this runner instead of printing TAP
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', ...files], {
      cwd: root,
      encoding: 'utf8',
      env: { ...env, CUZK_GPU_TESTS: '1', CUZK_BACKEND: 'cpu', CUZK_LOG: 'warn' },
      maxBuffer: 1 << 26,
    });
    const tap = r.stdout;
    assert.equal(r.status, 0, `the GPU suite exited ${r.status}:\n${tap.slice(-3000)}\n${r.stderr.slice(-2000)}`);
    const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tap)?.[1] ?? NaN);
    assert.equal(count('fail'), 0);
    assert.equal(count('pass'), 0, 'a GPU test passed without a GPU: it did not check the GPU');
    assert.ok(count('skipped') >= 50, `only ${count('skipped')} tests skipped`);
    assert.equal(count('skipped'), count('tests'));
    const reasons = [...tap.matchAll(/^\s*ok \d+ - .* # SKIP (.*)$/gm)].map((m) => m[1]!);
    assert.equal(reasons.length, count('skipped'));
    for (const why of new Set(reasons)) assert.match(why, /^no GPU: /);
  });
});
