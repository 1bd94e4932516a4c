// KeyCache: keys are held in the budget while loaded; under pressure idle keys go least recently
// used first, only as many as the shortfall needs; a key in use is never evicted (the load waits).
// A pinned cache's keys (mapped, pinned in place) are held in the pinned pool; a key that can never
// fit is refused before it is read, and a load that fails gives its bytes back.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { MemoryBudget } from '../../src/engine/budget.js';
import { KeyCache } from '../../src/engine/key-cache.js';
import { ProvingKey } from '../../src/engine/proving-key.js';
import { ZkeyFile } from '../../src/formats/zkey.js';
import { vectorFile, vectorSets } from '../helpers/vectors.js';

const zkey = (circuit: string) => vectorFile(vectorSets().find((s) => s.curve === 'bn128' && s.circuit === circuit)!, 'circuit.zkey');

describe('KeyCache under memory pressure', () => {
  it('evicts idle keys LRU until the new key fits, and never a key in use', async () => {
    const [mult, bits, pos] = ['multiplier', 'bits', 'poseidon'].map(zkey) as [string, string, string];
    const size = (p: string) => ProvingKey.inspect(p).bytes;
    // room for bits + poseidon, not for all three
    const budget = new MemoryBudget({ host: size(bits) + size(pos) + 16 });
    const cache = new KeyCache(budget, { pinned: false, idleMs: 0 });
    const use = async (p: string, signal?: AbortSignal) => {
      const e = cache.resolve(p);
      cache.acquire(e);
      try {
        await cache.load(e, signal);
      } catch (err) {
        cache.releaseUse(e);
        throw err;
      }
      return e;
    };
    const loaded = () => cache.list().map((k) => k.path).sort();
    try {
      cache.releaseUse(await use(mult)); // idle, least recently used
      await new Promise((r) => setTimeout(r, 5));
      cache.releaseUse(await use(bits)); // idle, more recent
      const p = await use(pos);
      assert.deepEqual(loaded(), [bits, pos].sort(), 'only the least recently used key went: it freed enough');
      assert.ok(budget.status('host').used <= budget.status('host').limit);

      const b = await use(bits); // both loaded keys now in use
      const ac = new AbortController();
      const waiting = use(mult, ac.signal);
      await new Promise((r) => setTimeout(r, 50));
      ac.abort();
      await assert.rejects(waiting, (e: CuzkError) => e.code === 'E_CANCELLED');
      assert.deepEqual(loaded(), [bits, pos].sort(), 'keys in use stayed');
      cache.releaseUse(b);
      cache.releaseUse(p);
    } finally {
      cache.close();
    }
    assert.equal(budget.status('host').used, 0);
  });

  it('pinned keys are held in the pinned pool while loaded; too big is refused at once; a failed load gives back', async () => {
    const pos = zkey('poseidon');
    const bytes = ProvingKey.inspect(pos).bytes;
    const budget = new MemoryBudget({ host: 1 << 20, pinned: bytes });
    const cache = new KeyCache(budget, { pinned: true, idleMs: 0 });
    const dir = mkdtempSync(path.join(tmpdir(), 'cuzk-keycache-'));
    try {
      const e = cache.resolve(pos);
      await cache.load(e);
      assert.equal(budget.status('pinned').used, bytes);
      assert.equal(budget.status('host').used, 0);
      cache.evict(e.id);
      assert.equal(budget.status('pinned').used, 0);

      const small = new KeyCache(new MemoryBudget({ host: 1 << 20, pinned: bytes - 1 }), { pinned: true, idleMs: 0 });
      await assert.rejects(small.load(small.resolve(pos)), (err: CuzkError) => err.code === 'E_HOST_OOM' && err.message.includes(pos));
      assert.deepEqual(small.list(), []);
      small.close();

      const bad = Buffer.from(readFileSync(pos));
      const z = ZkeyFile.open(pos);
      bad[z.sectionPosition('H') + 64] ^= 1; // point 1 of section 9 (H)
      z.close();
      const badPath = path.join(dir, 'bad.zkey');
      writeFileSync(badPath, bad);
      await assert.rejects(cache.load(cache.resolve(badPath)), (err: CuzkError) => err.code === 'E_FORMAT');
      assert.equal(budget.status('pinned').used, 0);
    } finally {
      cache.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
