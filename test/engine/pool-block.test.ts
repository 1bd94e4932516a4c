// PoolBlock: a pool allocation carved into regions: best fit, split, merge with free neighbours, and
// "idle" only when every region is back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryBudget } from '../../src/engine/budget.js';
import { PoolBlock } from '../../src/engine/pool-block.js';

const MiB = 1 << 20;

function block(bytes: number): { b: PoolBlock; budget: MemoryBudget } {
  const budget = new MemoryBudget({ host: bytes });
  return { b: new PoolBlock(bytes, new Uint8Array(bytes), budget.tryReserve({ host: bytes }, 'block')!, undefined), budget };
}

describe('PoolBlock', () => {
  it('carves regions in order, merges freed neighbours, and is idle only when all are back', () => {
    const { b, budget } = block(8 * MiB);
    assert.equal(b.take(2 * MiB), 0);
    assert.equal(b.take(3 * MiB), 2 * MiB);
    assert.equal(b.take(4 * MiB), undefined, '3 MiB left');
    assert.equal(b.take(3 * MiB), 5 * MiB);
    assert.equal(b.busyRegions, 3);
    b.give(2 * MiB);
    b.give(0); // merges with the freed region after it: 5 MiB free at 0
    assert.equal(b.bestFit(5 * MiB), 5 * MiB);
    assert.equal(b.idle, false);
    b.give(5 * MiB); // merges with the free region before it
    assert.equal(b.idle, true);
    assert.equal(b.take(8 * MiB), 0, 'the whole block is one region again');
    b.give(0);
    b.give(0); // a second give of the same region is ignored
    assert.equal(b.idle, true);
    b.free();
    assert.equal(budget.status('host').used, 0);
  });

  it('takes the smallest free region that fits (a large hole stays for a large buffer)', () => {
    const { b } = block(10 * MiB);
    const [a, , c] = [b.take(4 * MiB)!, b.take(1 * MiB)!, b.take(1 * MiB)!, b.take(4 * MiB)!];
    b.give(a); // 4 MiB hole at 0
    b.give(c); // 1 MiB hole at 5 MiB
    assert.equal(b.take(1 * MiB), 5 * MiB, 'the 1 MiB hole, not the 4 MiB one');
    assert.equal(b.take(4 * MiB), 0);
  });
});
