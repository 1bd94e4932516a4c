// The placement of a key on a GPU (src/engine/key-placement.ts) and the engine's lane choice under a
// budget (pipeline.ts lanesFor through KeyCache.placement): resident when key and scratch fit,
// streamed when the streamed working set fits, the CPU core only when neither does. Before streaming a
// key over its GPU's budget went to the CPU core: the lane tests below fail on that behaviour.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryBudget } from '../../src/engine/budget.js';
import { DeviceLane } from '../../src/engine/gpu-worker.js';
import { KeyCache, keyShape } from '../../src/engine/key-cache.js';
import {
  checkPlacementOptions, deviceScratchBytes, KEY_SET_BITS, keySetBytes, placeKey, RESIDENT_FIRST, stagingBytes, type KeyShape,
} from '../../src/engine/key-placement.js';
import { deviceCoefBytes, lanesFor } from '../../src/engine/pipeline.js';
import type { ProvingKey } from '../../src/engine/proving-key.js';
import { createLogger } from '../../src/log.js';

const GiB = 2 ** 30;
// the dev key of a 2^24 circuit (cuzk dev-circuit --constraints 2^24-3): ~14.2 GB on the GPU
const k24: KeyShape = { g1Bytes: 64, g2Bytes: 128, nVars: 2 ** 24, nPublic: 1, domainSize: 2 ** 24, nCoefs: 216_000_000 };
const scratch24 = deviceScratchBytes(k24.domainSize, k24.nVars);
const total = (k: KeyShape) => { const b = keySetBytes(k); return b.fixed + Object.values(b.sets).reduce((s, x) => s + x, 0); };

describe('placeKey', () => {
  it('counts the key as native gpu_key_bytes does: points, masks and the synthesis layout', () => {
    const b = keySetBytes(k24);
    const points = k24.nVars * (2 * 64 + 128) + (k24.nVars - 2) * 64 + k24.domainSize * 64;
    assert.equal(total(k24), points + 2 * k24.nVars + deviceCoefBytes(k24.domainSize, k24.nCoefs));
    assert.equal(b.sets.b2, 2 * b.sets.b1);
    assert.equal(placeKey(k24, 64 * GiB, scratch24)!.keyBytes, total(k24));
  });

  it('keeps a key that fits resident, whole, with nothing to stage', () => {
    const p = placeKey(k24, total(k24) + scratch24, scratch24)!;
    assert.equal(p.mode, 'resident');
    assert.deepEqual(p.streamed, []);
    assert.equal(p.deviceBytes, total(k24));
    assert.equal(p.stagingBytes, 0);
    assert.equal(p.hostBytes, 0);
  });

  it('streams what does not fit a 6 GiB budget, within it, the coefficients first', () => {
    const budget = 6 * GiB;
    const p = placeKey(k24, budget, scratch24)!;
    assert.equal(p.mode, 'streamed');
    assert.ok(p.deviceBytes + scratch24 <= budget, `${p.deviceBytes} + ${scratch24} > ${budget}`);
    assert.equal(p.deviceBytes, p.residentBytes + p.stagingBytes);
    assert.ok(p.streamed.includes('coefs'), 'the 7.8 GB layout cannot be resident in 6 GiB');
    assert.equal(p.hostBytes, k24.nCoefs * 36, 'the page-locked copy of the layout is counted');
    assert.equal(p.streamedBits, p.streamed.reduce((s, n) => s | KEY_SET_BITS[n], 0));
    assert.ok(p.chunkPoints >= 2 ** 16 && p.chunkPoints <= 2 ** 22 && Number.isInteger(Math.log2(p.chunkPoints)));
    assert.ok(p.chunkRecords > 0);
    // greedy: every set still streamed would not fit resident beside the others
    const sets = keySetBytes(k24).sets;
    for (const s of p.streamed) {
      const rest = new Set(p.streamed.filter((x) => x !== s));
      assert.ok(p.residentBytes + sets[s] + stagingBytes(k24, rest, p.chunkPoints, p.chunkRecords) + scratch24 > budget, `${s} would have fit`);
    }
  });

  it('keeps the sets resident that fit beside the rings, in RESIDENT_FIRST order', () => {
    const budget = 8 * GiB; // a proof's scratch at 2^24 is ~5.1 GiB: ~2.9 GiB for the key
    const p = placeKey(k24, budget, scratch24)!;
    const sets = keySetBytes(k24).sets;
    const resident = RESIDENT_FIRST.filter((s) => !p.streamed.includes(s));
    assert.ok(resident.length > 0, 'some set is resident');
    assert.equal(p.residentBytes, keySetBytes(k24).fixed + resident.reduce((s, n) => s + sets[n], 0));
    assert.ok(p.deviceBytes + scratch24 <= budget);
    assert.ok(p.streamed.includes('coefs') && p.streamed.includes('h'), p.streamed.join());
  });

  it('refuses when not even the streamed working set fits, and when residency is forced', () => {
    assert.equal(placeKey(k24, scratch24 + 2 ** 20, scratch24), undefined);
    assert.equal(placeKey(k24, 6 * GiB, scratch24, { residency: 'resident' }), undefined);
    assert.equal(placeKey(k24, total(k24) + scratch24, scratch24, { residency: 'resident' })!.mode, 'resident');
  });

  it("'streamed' streams every set even when the key fits, in the chunks asked for", () => {
    const p = placeKey(k24, 64 * GiB, scratch24, { residency: 'streamed', chunkPoints: 1000, chunkRecords: 777 })!;
    assert.equal(p.mode, 'streamed');
    assert.deepEqual([...p.streamed].sort(), [...RESIDENT_FIRST].sort());
    assert.equal(p.streamedBits, 63);
    assert.equal(p.chunkPoints, 1000);
    assert.equal(p.chunkRecords, 777);
    assert.equal(p.residentBytes, keySetBytes(k24).fixed);
    // B2 and B1 at once on the witness side, coefficients (wires 256-aligned, then values) beside
    // (the larger of H's ring and the coefficients')
    assert.equal(p.stagingBytes, 2 * 1000 * (64 + 128) + Math.max(2 * 1000 * 64, 2 * (Math.ceil((777 * 4) / 256) * 256 + 777 * 32)));
    const q = placeKey(k24, 64 * GiB, scratch24, { residency: 'streamed', chunkPoints: 100, chunkRecords: 7777 })!;
    assert.equal(q.stagingBytes, 2 * 100 * (64 + 128) + 2 * (Math.ceil((7777 * 4) / 256) * 256 + 7777 * 32));
  });

  it('names a bad option in one line', () => {
    assert.throws(() => checkPlacementOptions({ residency: 'sometimes' as 'auto' }), /gpu.keyResidency must be 'auto', 'resident' or 'streamed', not "sometimes"/);
    assert.throws(() => checkPlacementOptions({ chunkPoints: 0 }), /gpu.streamChunkPoints must be an integer in 1\.\.2147483647, not 0/);
    assert.throws(() => checkPlacementOptions({ chunkRecords: 1.5 }), /gpu.streamChunkRecords must be an integer/);
    checkPlacementOptions({ residency: 'streamed', chunkPoints: 4096, chunkRecords: 4096 });
  });
});

describe('lanesFor under a GPU budget', () => {
  // a loaded key as the lane choice sees it: its header (KeyCache.placement reads only that)
  const key = {
    header: { path: '/k24.zkey', curve: 'bn128', n8q: 32, nVars: k24.nVars, nPublic: k24.nPublic, domainSize: k24.domainSize, nCoefs: k24.nCoefs },
    native: { gpuBytes: total(k24) },
  } as unknown as ProvingKey;
  const lines: string[] = [];
  const logger = createLogger('warn', { write: (s: string) => void lines.push(s) });
  function lanes(gpuBudget: number, residency?: 'auto' | 'resident' | 'streamed') {
    const budget = new MemoryBudget({ host: 64 * GiB, pinned: 64 * GiB, 'gpu:0': gpuBudget });
    const cache = new KeyCache(budget, { pinned: true, idleMs: 0, log: logger, placement: { residency } });
    const gpu = new DeviceLane(0, 'test GPU', 8 * GiB, () => 8 * GiB);
    const cpu = new DeviceLane(-1, 'CPU core', 64 * GiB, () => 64 * GiB);
    assert.deepEqual(keyShape(key), k24);
    return lanesFor({ lanes: [gpu], cpuLane: cpu, budget, log: logger, placeOn: (d) => cache.placement(key, d) }, key).map((l) => l.id);
  }

  it('proves a key over the budget on the GPU, streamed (before: the CPU core)', () => {
    assert.deepEqual(lanes(6 * GiB), ['gpu:0']);
    assert.deepEqual(lanes(total(k24) + scratch24), ['gpu:0']);
  });

  it('goes to the CPU core only when the streamed working set does not fit either, or residency is forced', () => {
    lines.length = 0;
    assert.deepEqual(lanes(scratch24 + 2 ** 20), ['cpu']);
    assert.deepEqual(lanes(6 * GiB, 'resident'), ['cpu']);
    assert.ok(lines.some((l) => l.includes('too large for GPU memory, even streamed')), lines.join('\n'));
  });
});
