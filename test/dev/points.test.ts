// writePoints: chunk i + 1's multiplications run while chunk i is written, in two buffers, so the bytes must
// still be every chunk's own, in order, whatever order the multiplications finish in, also when each chunk's
// scalars are made into one reused buffer; a failed multiplication
// or write fails the section with no multiplication left running.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { BinWriter } from '../../src/dev/bin-writer.js';
import { writePoints, type BatchMulFn } from '../../src/dev/points.js';
import { curveByName } from '../../src/formats/curves.js';
import { useTmpDir } from '../helpers/tmp.js';

const curve = curveByName('bn128')!;
const G1 = 64;

/** A fake multiplier: point i = its scalar's 32 bytes twice; each call settles after a delay of its own. */
function fakeMul(delays: number[], events: string[]): BatchMulFn {
  let call = 0;
  return async (_c, _g, _b, scalars, n, out) => {
    const k = call++;
    events.push(`mul ${k}`);
    await new Promise((resolve) => setTimeout(resolve, delays[k % delays.length]));
    for (let i = 0; i < n; i++) {
      out.set(scalars.subarray(32 * i, 32 * i + 32), G1 * i);
      out.set(scalars.subarray(32 * i, 32 * i + 32), G1 * i + 32);
    }
    events.push(`done ${k}`);
  };
}

describe('writePoints', () => {
  const dir = useTmpDir('cuzk-points-');

  it('writes every chunk in order while the next is multiplied', async () => {
    const n = 23;
    const scalars = new Uint8Array(32 * n).map((_, i) => (i * 7 + 3) & 0xff);
    const file = path.join(dir(), 'p.bin');
    const zk = BinWriter.create(file, 'test', 1, 1);
    zk.beginSection(1);
    const events: string[] = [];
    const done: number[] = [];
    await writePoints(zk, curve, fakeMul([15, 1, 8], events), 1, new Uint8Array(G1), scalars, n, (d) => {
      done.push(d);
      events.push(`wrote ${d}`);
    }, 5);
    zk.endSection();
    zk.close();
    const want = new Uint8Array(G1 * n);
    for (let i = 0; i < n; i++) for (const h of [0, 32]) want.set(scalars.subarray(32 * i, 32 * i + 32), G1 * i + h);
    assert.deepEqual(new Uint8Array(fs.readFileSync(file)).subarray(12 + 12), want);
    assert.deepEqual(done, [5, 10, 15, 20, 23]);
    // chunk k + 1 is asked for before chunk k is written, and never more than two are in flight
    for (let k = 0; k < 4; k++) assert.ok(events.indexOf(`mul ${k + 1}`) < events.indexOf(`wrote ${5 * (k + 1)}`), events.join(', '));
    for (let k = 2; k < 5; k++) assert.ok(events.indexOf(`mul ${k}`) > events.indexOf(`done ${k - 2}`), events.join(', '));
  });

  it('scalars made per chunk into one reused buffer (as H\'s are) give every chunk its own points', async () => {
    const n = 17;
    const all = new Uint8Array(32 * n).map((_, i) => (i * 11 + 5) & 0xff);
    const buf = new Uint8Array(32 * 4);
    const asked: Array<[number, number]> = [];
    const scalars = (start: number, m: number) => {
      asked.push([start, m]);
      buf.fill(0xee); // a multiplication still reading this buffer would see this
      buf.set(all.subarray(32 * start, 32 * (start + m)));
      return buf.subarray(0, 32 * m);
    };
    const file = path.join(dir(), 'h.bin');
    const zk = BinWriter.create(file, 'test', 1, 1);
    zk.beginSection(1);
    await writePoints(zk, curve, fakeMul([9, 2], []), 1, new Uint8Array(G1), scalars, n, undefined, 4);
    zk.endSection();
    zk.close();
    const want = new Uint8Array(G1 * n);
    for (let i = 0; i < n; i++) for (const h of [0, 32]) want.set(all.subarray(32 * i, 32 * i + 32), G1 * i + h);
    assert.deepEqual(new Uint8Array(fs.readFileSync(file)).subarray(12 + 12), want);
    assert.deepEqual(asked, [[0, 4], [4, 4], [8, 4], [12, 4], [16, 1]]);
  });

  it('a failed multiplication fails the section, and a failed write waits for the one running', async () => {
    const file = path.join(dir(), 'p.bin');
    const zk = BinWriter.create(file, 'test', 1, 1);
    let calls = 0;
    const failing: BatchMulFn = async () => {
      if (++calls === 3) throw new Error('injected multiplication failure');
    };
    await assert.rejects(writePoints(zk, curve, failing, 1, new Uint8Array(G1), new Uint8Array(32 * 20), 20, undefined, 4), /injected multiplication failure/);
    zk.abort();
    const events: string[] = [];
    const broken = { write() { throw new Error('injected write failure'); } } as unknown as BinWriter;
    await assert.rejects(writePoints(broken, curve, fakeMul([5], events), 1, new Uint8Array(G1), new Uint8Array(32 * 20), 20, undefined, 4), /injected write failure/);
    assert.deepEqual(events, ['mul 0', 'done 0', 'mul 1', 'done 1']);
  });
});
