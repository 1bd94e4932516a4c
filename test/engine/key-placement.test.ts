// The placement of a key on a GPU (src/engine/key-placement.ts) and the engine's lane choice under a
// budget (pipeline.ts lanesFor through KeyCache.placement): resident when key and scratch fit,
// streamed when the streamed working set fits, the CPU core only when neither does. Before streaming a
// key over its GPU's budget went to the CPU core: the lane tests below fail on that behaviour.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryBudget } from '../../src/engine/budget.js';
import { DeviceLane } from '../../src/engine/gpu-worker.js';
import { KeyCache } from '../../src/engine/key-cache.js';
import {
  CHUNK_MAX_WINDOW, checkPlacementOptions, chooseWindow, chunkCount, deviceScratchBytes, KEY_SET_BITS, keptBucketsBytes, keySetBytes, msmScratchBytes,
  keyShape, placeKey, proofScratchBytes, RESIDENT_FIRST, stagingBytes, type KeyShape,
} from '../../src/engine/key-placement.js';
import { deviceCoefBytes, lanesFor } from '../../src/engine/pipeline.js';
import type { ProvingKey } from '../../src/engine/proving-key.js';
import { createLogger } from '../../src/log.js';

const GiB = 2 ** 30;
// the dev key of a 2^24 circuit (cuzk dev-circuit --constraints 2^24-3): ~8.7 GB on the GPU (H200 2026-12-02)
const k24: KeyShape = { g1Bytes: 64, g2Bytes: 128, nVars: 2 ** 24, nPublic: 1, domainSize: 2 ** 24, nCoefs: 64_000_000 };
const scratch24 = deviceScratchBytes(k24.domainSize, k24.nVars);
const total = (k: KeyShape) => { const b = keySetBytes(k); return b.fixed + Object.values(b.sets).reduce((s, x) => s + x, 0); };

describe('placeKey', () => {
  it('counts the key as native gpu_key_bytes does: points, masks and the synthesis layout', () => {
    const b = keySetBytes(k24);
    const points = k24.nVars * (2 * 64 + 128) + (k24.nVars - 2) * 64 + k24.domainSize * 64;
    assert.equal(total(k24), points + 2 * k24.nVars + deviceCoefBytes(k24.domainSize, k24.nCoefs));
    assert.equal(b.sets.b2, 2 * b.sets.b1);
    assert.equal(placeKey(k24, 64 * GiB)!.keyBytes, total(k24));
  });

  it('keeps a key that fits resident, whole, with nothing to stage, and a whole-set MSM scratch', () => {
    const p = placeKey(k24, total(k24) + scratch24)!;
    assert.equal(p.mode, 'resident');
    assert.deepEqual(p.streamed, []);
    assert.equal(p.deviceBytes, total(k24));
    assert.equal(p.stagingBytes, 0);
    assert.equal(p.hostBytes, 0);
    assert.equal(p.scratchBytes, scratch24);
    assert.equal(p.chunkPoints, 0, 'whole-set MSMs');
    assert.ok(placeKey(k24, total(k24) + scratch24 - 1)!.chunkPoints > 0, 'a byte less: chunked MSMs');
  });

  it("counts a streamed proof's MSM scratch as a chunk's, not a whole set's (before: as a resident proof's)", () => {
    const all = new Set(RESIDENT_FIRST);
    const chunk = 2 ** 20;
    const vectors = 4 * k24.domainSize * 32 + k24.nVars * 32 + (64 << 20);
    const x1 = 128;
    const x2 = 256;
    assert.equal(proofScratchBytes(k24, all, chunk),
      vectors + msmScratchBytes(chunk, [x2, x1], CHUNK_MAX_WINDOW) + keptBucketsBytes(chunk, [x2, x1]) +
      msmScratchBytes(chunk, [x1], CHUNK_MAX_WINDOW) + keptBucketsBytes(chunk, [x1]));
    // each set keeps its buckets over the chunks: (256 + c) / c windows of 2^(c-1) at the chunk's widest window
    const c = chooseWindow(chunk, 254, CHUNK_MAX_WINDOW);
    assert.equal(keptBucketsBytes(chunk, [x2, x1]), Math.floor((256 + c) / c) * 2 ** (c - 1) * (x2 + x1));
    assert.equal(scratch24, vectors + msmScratchBytes(k24.nVars, [x2, x1]) + msmScratchBytes(k24.domainSize, [x1]));
    assert.ok(proofScratchBytes(k24, all, chunk) < scratch24 / 4, `${proofScratchBytes(k24, all, chunk)} against ${scratch24}`);
    // a resident set of a streamed key runs chunked too: the scratch does not depend on which sets stay
    assert.equal(proofScratchBytes(k24, new Set(['h']), chunk), proofScratchBytes(k24, all, chunk));
  });

  it('streams what does not fit a 6 GiB budget, within it, in chunks of 2^20 or more (before: 2^18)', () => {
    const budget = 6 * GiB;
    const p = placeKey(k24, budget)!;
    assert.equal(p.mode, 'streamed');
    assert.ok(p.deviceBytes + p.scratchBytes <= budget, `${p.deviceBytes} + ${p.scratchBytes} > ${budget}`);
    assert.equal(p.deviceBytes, p.residentBytes + p.stagingBytes);
    assert.equal(p.scratchBytes, proofScratchBytes(k24, new Set(p.streamed), p.chunkPoints));
    assert.equal(p.streamedBits, p.streamed.reduce((s, n) => s | KEY_SET_BITS[n], 0));
    assert.ok(p.chunkPoints >= 2 ** 20 && p.chunkPoints <= 2 ** 22 && Number.isInteger(Math.log2(p.chunkPoints)), `${p.chunkPoints}`);
    assert.equal(p.chunks, chunkCount(k24, new Set(p.streamed), p.chunkPoints, p.chunkRecords || 1));
    // greedy: every set still streamed would not fit resident beside the others
    const sets = keySetBytes(k24).sets;
    for (const s of p.streamed) {
      const rest = new Set(p.streamed.filter((x) => x !== s));
      assert.ok(p.residentBytes + sets[s] + stagingBytes(k24, rest, p.chunkPoints, p.chunkRecords) + p.scratchBytes > budget, `${s} would have fit`);
    }
  });

  it('keeps the sets resident that fit beside the rings, in RESIDENT_FIRST order', () => {
    // (8 GiB until each chunked set kept its buckets over the chunks: ~0.2 GiB more scratch)
    const budget = 8.5 * GiB;
    const p = placeKey(k24, budget)!;
    const sets = keySetBytes(k24).sets;
    const resident = RESIDENT_FIRST.filter((s) => !p.streamed.includes(s));
    assert.ok(resident.includes('coefs'), resident.join());
    assert.equal(p.residentBytes, keySetBytes(k24).fixed + resident.reduce((s, n) => s + sets[n], 0));
    assert.ok(p.deviceBytes + p.scratchBytes <= budget);
    assert.ok(p.streamed.includes('h'), p.streamed.join());
  });

  it('keeps a key resident with its MSMs chunked when it fits only beside a chunk\'s scratch', () => {
    const all = new Set(RESIDENT_FIRST);
    const budget = total(k24) + proofScratchBytes(k24, all, 2 ** 22);
    assert.ok(budget < total(k24) + scratch24);
    const p = placeKey(k24, budget)!;
    assert.equal(p.mode, 'resident');
    assert.deepEqual(p.streamed, []);
    assert.equal(p.stagingBytes, 0);
    assert.equal(p.chunkPoints, 2 ** 22);
    assert.equal(p.scratchBytes, proofScratchBytes(k24, all, 2 ** 22));
    assert.ok(p.deviceBytes + p.scratchBytes <= budget);
  });

  it('refuses when not even the streamed working set fits, and when residency is forced', () => {
    assert.equal(placeKey(k24, 3 * GiB), undefined);
    assert.equal(placeKey(k24, 6 * GiB, { residency: 'resident' }), undefined);
    assert.equal(placeKey(k24, total(k24) + scratch24, { residency: 'resident' })!.mode, 'resident');
  });

  it("'streamed' streams every set even when the key fits, in the chunks asked for, through one ring per stream", () => {
    const p = placeKey(k24, 64 * GiB, { residency: 'streamed', chunkPoints: 1000, chunkRecords: 777 })!;
    assert.equal(p.mode, 'streamed');
    assert.deepEqual([...p.streamed].sort(), [...RESIDENT_FIRST].sort());
    assert.equal(p.streamedBits, 63);
    assert.equal(p.chunkPoints, 1000);
    assert.equal(p.chunkRecords, 777);
    assert.equal(p.residentBytes, keySetBytes(k24).fixed);
    // two slots per stream, each the stream's largest chunk: B2 and B1 together on the witness side
    // (A's and C's chunks ride in the same slots); the coefficients' (wires 256-aligned, then values)
    // or H's on the main chain, whichever is larger
    const coefSlot = (r: number) => Math.ceil((r * 4) / 256) * 256 + r * 32;
    assert.equal(p.stagingBytes, 2 * 1000 * (64 + 128) + 2 * Math.max(1000 * 64, coefSlot(777)));
    const q = placeKey(k24, 64 * GiB, { residency: 'streamed', chunkPoints: 100, chunkRecords: 7777 })!;
    assert.equal(q.stagingBytes, 2 * 100 * (64 + 128) + 2 * coefSlot(7777));
    // rings only for the sets streamed: B1 resident, the witness slot is B2's (or A's, C's: smaller)
    assert.equal(stagingBytes(k24, new Set(['b2', 'a', 'c']), 1000, 777), 2 * 1000 * 128);
    assert.equal(stagingBytes(k24, new Set(['a', 'c', 'h']), 1000, 777), 2 * 1000 * 64 + 2 * 1000 * 64);
  });

  it('models the window width as native choose_window does, capped for chunks', () => {
    // msm_gpu_digits.cuh: c = 20 at 2^24, 16 at 2^20 (full-width BN254 scalars)
    assert.equal(chooseWindow(2 ** 24, 254), 20);
    assert.equal(chooseWindow(2 ** 20, 254), 16);
    assert.equal(chooseWindow(2 ** 24, 254, CHUNK_MAX_WINDOW), CHUNK_MAX_WINDOW);
    // 254-bit scalars at c = 16: 16 windows, 16 + 1 bytes a pair, heads and tails, buckets and their reduction
    const m = 2 ** 20;
    const pairs = m * 16;
    assert.ok(msmScratchBytes(m, [128]) >= 14 * m + pairs * 17 + (16 * 2 ** 15 + 2 * pairs / 32) * 128);
    assert.ok(msmScratchBytes(m, [256, 128]) > msmScratchBytes(m, [128]));
    assert.ok(msmScratchBytes(2 * m, [128]) > msmScratchBytes(m, [128]));
    assert.equal(msmScratchBytes(0, [128]), 0);
  });

  it('remembers MSM scratch by every argument (a placement is made per job)', () => {
    const m = 2 ** 19 + 3;
    const calls: [number, number[], number][] = [[m, [128], 22], [m, [128], CHUNK_MAX_WINDOW], [m, [256, 128], 22], [m + 1, [128], 22], [m, [128, 256], 22]];
    const first = calls.map(([n, x, c]) => msmScratchBytes(n, x, c));
    assert.ok(first[0]! !== first[1]! || first[0]! !== first[2]!, 'the arguments change the answer');
    assert.ok(first[2]! > first[0]!);
    // asked again in another order: the same answers, none taken for another's
    const again = [...calls].reverse().map(([n, x, c]) => msmScratchBytes(n, x, c)).reverse();
    assert.deepEqual(again, first);
  });

  it('remembers the kept buckets by chunk length, each answer its own', () => {
    const chunks = [2 ** 12, 2 ** 16, 2 ** 21];
    const first = chunks.map((n) => keptBucketsBytes(n, [128]));
    chunks.forEach((n, i) => {
      // at least the full-width scalars' window, at most the widest window's
      const c = chooseWindow(n, 256, CHUNK_MAX_WINDOW);
      assert.ok(first[i]! >= Math.floor((256 + c) / c) * 2 ** (c - 1) * 128, `${n}: ${first[i]}`);
      assert.ok(first[i]! <= Math.floor((256 + CHUNK_MAX_WINDOW) / CHUNK_MAX_WINDOW) * 2 ** (CHUNK_MAX_WINDOW - 1) * 128, `${n}: ${first[i]}`);
    });
    assert.deepEqual([...chunks].reverse().map((n) => keptBucketsBytes(n, [128])).reverse(), first);
    assert.deepEqual(chunks.map((n) => keptBucketsBytes(n, [256, 128])), first.map((b) => 3 * b));
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
    assert.deepEqual(keyShape(key.header), k24);
    return lanesFor({ lanes: [gpu], cpuLane: cpu, budget, log: logger, placeOn: (d) => cache.placement(key, d) }, key).map((l) => l.id);
  }

  it('proves a key over the budget on the GPU, streamed (before: the CPU core)', () => {
    assert.deepEqual(lanes(6 * GiB), ['gpu:0']);
    assert.deepEqual(lanes(total(k24) + scratch24), ['gpu:0']);
  });

  it('goes to the CPU core only when the streamed working set does not fit either, or residency is forced', () => {
    lines.length = 0;
    assert.deepEqual(lanes(3 * GiB), ['cpu']);
    assert.deepEqual(lanes(6 * GiB, 'resident'), ['cpu']);
    assert.ok(lines.some((l) => l.includes('too large for GPU memory, even streamed')), lines.join('\n'));
  });
});
