// readWitnessValues (witness-read.ts over cuzk_scalars_read_checked): a witness's values read from a
// .wtns file or copied from an image into a proof's buffer (a pinned native buffer, or heap memory)
// by the native pool are the bytes the JavaScript reader gives, across many chunks; a value not
// below r, and a file that shrank after it was opened, are one-line FormatErrors naming the witness;
// and the event loop stays free while a large witness is copied and checked (it was not, before).
import assert from 'node:assert/strict';
import { truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readWitnessValues } from '../../src/engine/witness-read.js';
import { NativeBuffer } from '../../src/ffi/native-buffer.js';
import { readScalarsChecked } from '../../src/ffi/scalars-read.js';
import { curveByName } from '../../src/formats/curves.js';
import { encodeWtns, WtnsFile, writeWtns } from '../../src/formats/wtns.js';
import { createRng } from '../helpers/rng.js';
import { rejects } from '../helpers/rejects.js';
import { useTmpDir } from '../helpers/tmp.js';

const r = curveByName('bn128')!.r;
const rng = createRng();
const seed = `(seed ${rng.seed})`;

/** `n` random values below r (top byte below r's 0x30), w[0] = 1 as circom writes it. */
function values(n: number): Uint8Array {
  const out = rng.bytes(32 * n);
  for (let i = 0; i < n; i++) out[32 * i + 31]! &= 0x2f;
  out.fill(0, 0, 32);
  out[0] = 1;
  return out;
}

/** The value r itself at `index` of `v` (the smallest one not below r). */
function putR(v: Uint8Array, index: number): void {
  let x = r;
  for (let b = 0; b < 32; b++, x >>= 8n) v[32 * index + b] = Number(x & 0xffn);
}

/** The longest the event loop went without running a 1 ms timer while `work` ran. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now(), most = 0;
  const tick = setInterval(() => {
    const now = performance.now();
    most = Math.max(most, now - last);
    last = now;
  }, 1);
  try {
    await new Promise((res) => setTimeout(res, 5));
    last = performance.now();
    await work();
    most = Math.max(most, performance.now() - last);
  } finally {
    clearInterval(tick);
  }
  return most;
}

describe('readWitnessValues', { timeout: 120_000 }, () => {
  const tmp = useTmpDir('cuzk-witness-read-');
  const n = (9 << 20) / 32 + 7; // 9 MiB and a bit: many 256 KiB-4 MiB chunks, a ragged last one

  it('gives the bytes the JavaScript reader gives, from a file and from an image, into pinned and heap buffers', async () => {
    const v = values(n);
    const file = path.join(tmp(), 'w.wtns');
    writeWtns(file, r, v);
    const image = encodeWtns(r, v);
    const expected = WtnsFile.open(file).readWitness();
    assert.ok(Buffer.from(expected).equals(Buffer.from(v)), 'the JavaScript reader reads back what was written');
    const pinned = NativeBuffer.alloc(32 * n + 64, { pinned: true });
    try {
      for (const [what, wtns] of [['file', WtnsFile.open(file)], ['image', WtnsFile.fromBytes(image, 'image')]] as const) {
        for (const [kind, into] of [['pinned', pinned.bytes], ['heap', new Uint8Array(32 * n)]] as const) {
          into.fill(0xee);
          const got = await readWitnessValues(wtns, into);
          assert.equal(got.byteLength, 32 * n, `${what} into ${kind}`);
          assert.ok(Buffer.from(got).equals(Buffer.from(expected)), `${what} into ${kind}: the same bytes ${seed}`);
          assert.equal(into[32 * n] ?? 0xee, 0xee, `${what} into ${kind}: nothing past the values is written`);
        }
        wtns.close();
      }
    } finally {
      pinned.release();
    }
  });

  it('names the lowest value not below r, in one line, wherever the chunks ran', async () => {
    const v = values(n);
    const late = n - 3, early = 200_000;
    putR(v, late);
    putR(v, early);
    // the writers refuse values not below r: an image of zeros, its values then overwritten
    const image = encodeWtns(r, new Uint8Array(32 * n));
    image.set(v, image.length - 32 * n);
    const file = path.join(tmp(), 'bad.wtns');
    writeFileSync(file, image);
    for (const wtns of [WtnsFile.open(file), WtnsFile.fromBytes(image, 'the image')]) {
      const err = await rejects(readWitnessValues(wtns, new Uint8Array(32 * n)), 'E_FORMAT');
      assert.equal(err.message, `${wtns.header.path}: wtns section 2: value ${early} is not below the scalar field prime r`);
      assert.ok(!err.message.includes('\n'));
      wtns.close();
    }
  });

  it('a file that shrank after it was opened is E_FORMAT saying where it ended', async () => {
    const v = values(n);
    const file = path.join(tmp(), 'short.wtns');
    writeWtns(file, r, v);
    const wtns = WtnsFile.open(file);
    const end = 1 << 20;
    truncateSync(file, end);
    const err = await rejects(readWitnessValues(wtns, new Uint8Array(32 * n)), 'E_FORMAT');
    assert.match(err.message, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: file ended at byte ${end}, before the \\d+ bytes it had when opened$`));
    wtns.close();
    // truncated before it is opened: the container's own check, as before
    const err2 = await rejects((async () => WtnsFile.open(file))(), 'E_FORMAT');
    assert.match(err2.message, /truncated/);
  });

  it('refuses a buffer too small and an image too short for the values, naming both sizes', async () => {
    const wtns = WtnsFile.fromBytes(encodeWtns(r, values(4)), 'small');
    const e1 = await rejects(readWitnessValues(wtns, new Uint8Array(3 * 32)), 'E_INVALID_ARG');
    assert.match(e1.message, /4 values need 128 bytes, the buffer holds 96/);
    const e2 = await rejects(readScalarsChecked({ bytes: new Uint8Array(100), offset: 0 }, 'bn128', 4, new Uint8Array(128)), 'E_INVALID_ARG');
    assert.match(e2.message, /4 values at byte 0 run past the image's 100 bytes/);
  });

  it('leaves the event loop free while a large witness is copied and checked (as the instrument shows a synchronous copy does not)', async () => {
    const big = 3 << 20; // 96 MiB of values
    const image = encodeWtns(r, values(big));
    const into = NativeBuffer.alloc(32 * big, { pinned: true });
    try {
      const wtns = WtnsFile.fromBytes(image, 'big');
      await readWitnessValues(wtns, into.bytes); // pages touched once, as a pooled buffer's are
      const before = await longestStall(() => wtns.readWitnessAsync(into.bytes));
      const now = await longestStall(() => readWitnessValues(wtns, into.bytes));
      assert.ok(now < Math.max(20, before / 3), `the event loop stalled ${now.toFixed(1)} ms during the native read, ${before.toFixed(1)} ms during the JavaScript one`);
      // The instrument's control: a stall it must see, whatever the machine. The JavaScript reader's
      // own stall is not one (its check of 96 MiB took 11.7 ms on a fast CI runner, 40+ ms here), so
      // the control is the image's values copied on the loop, over and over, for at least 40 ms.
      const control = await longestStall(async () => {
        const start = performance.now();
        while (performance.now() - start < 40) into.bytes.set(image.subarray(image.length - 32 * big));
      });
      assert.ok(control >= 35, `a 40 ms synchronous copy stalled the loop only ${control.toFixed(1)} ms: the instrument cannot see stalls`);
    } finally {
      into.release();
    }
  });
});
