// readFileChecked (cuzk_file_read_checked): parts of an open file read byte for byte into native
// buffers at any offset and across many chunks; points and coefficient records checked as they
// land, the defect lowest in the file reported however the chunks were scheduled; a file shorter
// than its parts, and a read that fails, come back as results (not crashes); bad parts are refused.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { readFileChecked, type ReadCheck } from '../../src/ffi/key-read.js';
import { NativeBuffer } from '../../src/ffi/native-buffer.js';
import { curveByName } from '../../src/formats/curves.js';
import { generatorBytes } from '../../src/dev/generators.js';
import { bigintToLe, leToBigint } from '../../src/formats/lem.js';

let dir: string;
before(() => void (dir = mkdtempSync(path.join(tmpdir(), 'cuzk-keyread-'))));
after(() => rmSync(dir, { recursive: true, force: true }));

const buffers: NativeBuffer[] = [];
after(() => buffers.forEach((b) => b.release()));
const mapped = (n: number) => {
  const b = NativeBuffer.allocMapped(Math.max(1, n));
  buffers.push(b);
  return b;
};

/** Writes `bytes` to a file and returns its open descriptor (closed after the test file). */
function fileOf(name: string, bytes: Uint8Array): number {
  const p = path.join(dir, name);
  writeFileSync(p, bytes);
  const fd = openSync(p, 'r');
  after(() => closeSync(fd));
  return fd;
}

const bounds = { domainSize: 8, nVars: 6 };
const g1 = generatorBytes(curveByName('bn128')!).g1;
const part = (fileOffset: number, bytes: number, check: ReadCheck) => ({ fileOffset, bytes, into: mapped(bytes), check });

/** `n` copies of the G1 generator (a good point), with `bad` indices given a coordinate not below q. */
function g1Points(n: number, bad: number[] = []): Uint8Array {
  const out = new Uint8Array(n * 64);
  for (let i = 0; i < n; i++) out.set(g1, i * 64);
  for (const i of bad) out.fill(0xff, i * 64, i * 64 + 32);
  return out;
}

describe('readFileChecked', () => {
  it('reads parts at odd offsets, across many chunks, byte for byte', async () => {
    const data = randomBytes((9 << 20) + 37);
    const fd = fileOf('random.bin', data);
    const parts = [part(3, (5 << 20) + 1, 'raw'), part((5 << 20) + 4, data.length - (5 << 20) - 4, 'raw'), part(1, 0, 'raw')];
    assert.deepEqual(await readFileChecked(fd, 'bn128', bounds, parts), [undefined, undefined, undefined]);
    for (const p of parts) assert.ok(Buffer.from(p.into.bytes.subarray(0, p.bytes)).equals(data.subarray(p.fileOffset, p.fileOffset + p.bytes)));
  });

  it('names the first bad point of a part, however its chunks ran', async () => {
    const n = 1 << 16; // 4 MiB: many chunks
    const fd = fileOf('points.bin', g1Points(n, [n - 5, 40000, 12]));
    const [r] = await readFileChecked(fd, 'bn128', bounds, [part(0, n * 64, 'g1')]);
    assert.deepEqual(r, { kind: 'point', index: 12, defect: 'has a coordinate not below q' });
    const offCurve = g1Points(3);
    offCurve[64] ^= 1;
    const [s] = await readFileChecked(fileOf('offcurve.bin', offCurve), 'bn128', bounds, [part(0, 3 * 64, 'g1')]);
    assert.deepEqual(s, { kind: 'point', index: 1, defect: 'is not on the curve' });
  });

  // BN254 points are checked eight at a time where the CPU has AVX-512 IFMA (curve/on_curve_ifma.cpp),
  // one at a time elsewhere and for the last few: a defect at every lane and in the tail is named,
  // among distinct good points (G, -G) and points at infinity (good).
  for (const [check, size] of [['g1', 64], ['g2', 128]] as const) {
    it(`${check}: a defect in each of the eight lanes, and after them, is found; G, -G and infinity pass`, async () => {
      const q = curveByName('bn128')!.q;
      const gen = generatorBytes(curveByName('bn128')!)[check];
      const neg = gen.slice();
      for (let o = size / 2; o < size; o += 32) neg.set(bigintToLe(q - leToBigint(gen.subarray(o, o + 32)), 32), o); // y -> -y (Montgomery form is linear)
      const n = 8 * 5 + 5;
      const points = (): Uint8Array => {
        const out = new Uint8Array(n * size);
        for (let i = 0; i < n; i++) if (i % 7 !== 3) out.set(i % 3 === 0 ? neg : gen, i * size); // every 7th from 3 left at infinity
        return out;
      };
      const clean = await readFileChecked(fileOf(`${check}-clean.bin`, points()), 'bn128', bounds, [part(0, n * size, check)]);
      assert.deepEqual(clean, [undefined], 'good points and points at infinity pass');
      for (const at of [8, 9, 10, 11, 12, 13, 14, 15, 40, 43]) {
        for (const kind of ['off', 'noncanonical'] as const) {
          const bytes = points();
          if (at % 7 === 3) bytes.set(gen, at * size);
          if (kind === 'off') bytes[at * size + size / 2] ^= 1; // y's lowest byte
          else bytes.fill(0xff, at * size, at * size + 32); // x (its first component) not below q
          bytes.fill(0xff, (n - 1) * size, (n - 1) * size + 32); // a later defect, never the one named
          const [r] = await readFileChecked(fileOf(`${check}-${kind}-${at}.bin`, bytes), 'bn128', bounds, [part(0, n * size, check)]);
          const defect = kind === 'off' ? 'is not on the curve' : 'has a coordinate not below q';
          assert.deepEqual(r, { kind: 'point', index: at, defect }, `${kind} at ${at}`);
        }
      }
    });
  }

  it('the defect lowest in the file is reported, whatever the order of the parts', async () => {
    const n = 1 << 14;
    const fd = fileOf('two.bin', Buffer.concat([g1Points(n, [n - 1]), g1Points(n, [3])]));
    const later = part(n * 64, n * 64, 'g1');
    const first = part(0, n * 64, 'g1');
    const found = await readFileChecked(fd, 'bn128', bounds, [later, first]);
    assert.deepEqual(found[1], { kind: 'point', index: n - 1, defect: 'has a coordinate not below q' });
  });

  it('checks coefficient records: matrix, constraint, signal, value below r', async () => {
    const r = curveByName('bn128')!.r;
    const record = (m: number, c: number, s: number, v: bigint) => {
      const b = Buffer.alloc(44);
      b.writeUInt32LE(m, 0);
      b.writeUInt32LE(c, 4);
      b.writeUInt32LE(s, 8);
      for (let i = 0; i < 32; i++) b[12 + i] = Number((v >> BigInt(8 * i)) & 0xffn);
      return b;
    };
    const good = [record(0, 0, 1, 5n), record(1, 7, 5, r - 1n)];
    assert.deepEqual(await readFileChecked(fileOf('good.coefs', Buffer.concat(good)), 'bn128', bounds, [part(0, 88, 'coefs')]), [undefined]);
    for (const bad of [record(2, 0, 0, 1n), record(0, 8, 0, 1n), record(0, 0, 6, 1n), record(0, 0, 0, r)]) {
      const [d] = await readFileChecked(fileOf('bad.coefs', Buffer.concat([...good, bad])), 'bn128', bounds, [part(0, 132, 'coefs')]);
      assert.deepEqual(d, { kind: 'record', index: 2 });
    }
  });

  it('a file shorter than its parts: where it ended; a read that fails: its errno (no crash)', async () => {
    const fd = fileOf('short.bin', randomBytes(1000));
    assert.deepEqual(await readFileChecked(fd, 'bn128', bounds, [part(0, 2048, 'raw')]), [{ kind: 'ended', at: 1000 }]);
    const dirFd = openSync(dir, 'r'); // pread on a directory fails with EISDIR
    try {
      const [d] = await readFileChecked(dirFd, 'bn128', bounds, [part(0, 64, 'raw')]);
      assert.deepEqual(d, { kind: 'io', at: 0, errno: constants.errno.EISDIR });
    } finally {
      closeSync(dirFd);
    }
  });

  it('zeroed: a hole in a sparse file is not copied (its items judged as zeros), data around it is', async () => {
    const hole = 32 << 20; // many whole chunks of hole
    const p = path.join(dir, 'sparse.bin');
    const fd = openSync(p, 'w+');
    after(() => closeSync(fd));
    writeSync(fd, g1Points(2), 0, 128, hole);
    const n = hole + 128;
    // a buffer that is not zeros shows what was copied: with zeroed, the hole's bytes are left as they were
    const dirty = mapped(n);
    dirty.view(0, n).fill(0xab);
    assert.deepEqual(await readFileChecked(fd, 'bn128', bounds, [{ fileOffset: 0, bytes: n, into: dirty, check: 'g1', zeroed: true }]), [undefined]);
    assert.equal(dirty.view(0, 1)[0], 0xab, 'the hole was not read');
    assert.deepEqual(dirty.view(hole, 128), g1Points(2), 'the data after it was');
    // the holes were found on a descriptor of its own: this one's offset is still 0 (not moved to the data)
    assert.notEqual(g1[0], 0);
    const first = Buffer.alloc(1);
    assert.equal(readSync(fd, first, 0, 1, null), 1);
    assert.equal(first[0], 0, 'the caller\'s offset untouched');
    const plain = mapped(n);
    plain.view(0, n).fill(0xab);
    assert.deepEqual(await readFileChecked(fd, 'bn128', bounds, [{ fileOffset: 0, bytes: n, into: plain, check: 'g1' }]), [undefined]);
    assert.equal(plain.view(0, 1)[0], 0, 'without zeroed the hole is read as zeros');
    // a record of zeros is bad when nVars is 0 (signal 0 out of range): the hole's first record is named
    const coefs = hole - (hole % 44);
    const [d] = await readFileChecked(fd, 'bn128', { domainSize: 8, nVars: 0 }, [{ fileOffset: 0, bytes: coefs, into: mapped(coefs), check: 'coefs', zeroed: true }]);
    assert.deepEqual(d, { kind: 'record', index: 0 });
  });

  it('refuses parts that are not whole items, a buffer too small, a bad descriptor', async () => {
    const fd = fileOf('any.bin', randomBytes(256));
    const bad = (e: unknown) => e instanceof CuzkError && e.code === 'E_INVALID_ARG';
    await assert.rejects(readFileChecked(fd, 'bn128', bounds, [part(0, 100, 'g1')]), bad);
    await assert.rejects(readFileChecked(fd, 'bn128', bounds, [{ fileOffset: 0, bytes: 128, into: mapped(64), check: 'raw' }]), bad);
    await assert.rejects(readFileChecked(fd, 'bn128', bounds, [part(-1, 64, 'raw')]), bad);
    await assert.rejects(readFileChecked(-1, 'bn128', bounds, [part(0, 64, 'raw')]), bad);
  });
});
