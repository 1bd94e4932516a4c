// .wtns v2: round trips from BigInt and byte values, the key-match checks, and every reader error path.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { encodeBinFile } from '../../src/formats/binfile.js';
import { BLS12381, BN128 } from '../../src/formats/curves.js';
import { bigintToLe, leToBigint } from '../../src/formats/lem.js';
import { WTNS_PREFIX_BYTES, WtnsFile, checkWitnessMatchesKey, encodeWtns, writeWtns, wtnsHeaderFromPrefix, type WtnsHeader } from '../../src/formats/wtns.js';
import type { ZkeyHeader } from '../../src/formats/zkey.js';
import { useTmpDir } from '../helpers/tmp.js';

function throwsCode(fn: () => unknown, code: string, ...parts: string[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CuzkError, `expected a CuzkError, got ${String(err)}`);
    assert.equal(err.code, code);
    for (const p of parts) assert.ok(err.message.includes(p), `${JSON.stringify(err.message)} lacks ${JSON.stringify(p)}`);
    return true;
  });
}

const VALUES = [1n, 48n, 3n, 5n, 15n, BN128.r - 1n, 0n, (1n << 200n) + 7n];

function header1(n8: number, prime: bigint, nWitness: number): Uint8Array {
  const b = new Uint8Array(8 + n8);
  const v = new DataView(b.buffer);
  v.setUint32(0, n8, true);
  bigintToLe(prime, n8, b, 4);
  v.setUint32(4 + n8, nWitness, true);
  return b;
}

describe('wtns', () => {
  const tmp = useTmpDir();
  const file = (name: string, image: Uint8Array) => {
    const p = path.join(tmp(), name);
    fs.writeFileSync(p, image);
    return p;
  };

  it('round-trips BigInt values through writeWtns and open', async () => {
    const p = path.join(tmp(), 'w.wtns');
    writeWtns(p, BN128.r, VALUES);
    const w = WtnsFile.open(p);
    try {
      assert.deepEqual(w.header, { path: p, curve: 'bn128', n8: 32, prime: BN128.r, nWitness: VALUES.length });
      assert.equal(w.witnessBytes, 32 * VALUES.length);
      const into = new Uint8Array(w.witnessBytes + 32);
      const got = w.readWitness(into);
      assert.equal(got.buffer, into.buffer);
      assert.deepEqual(VALUES.map((_, i) => leToBigint(got, 32 * i, 32)), VALUES);
      assert.deepEqual(await w.readWitnessAsync(), got);
    } finally {
      w.close();
    }
  });

  it('writes byte values unchanged and reads an in-memory image as a view', () => {
    const bytes = new Uint8Array(3 * 32);
    bigintToLe(BLS12381.r - 1n, 32, bytes, 64);
    const image = encodeWtns(BLS12381.r, bytes);
    const w = WtnsFile.fromBytes(image, 'mem.wtns');
    assert.equal(w.header.curve, 'bls12381');
    const got = w.readWitness();
    assert.equal(got.buffer, image.buffer);
    assert.deepEqual(got, bytes);
  });

  it('matches the layout snarkjs writes: section 1 = 40 bytes, then nWitness × 32', () => {
    const image = encodeWtns(BN128.r, VALUES);
    assert.equal(image.length, 12 + 12 + 40 + 12 + 32 * VALUES.length);
    assert.deepEqual([...image.subarray(0, 8)], [0x77, 0x74, 0x6e, 0x73, 2, 0, 0, 0]);
  });

  it('rejects the file truncated at every byte', () => {
    const image = encodeWtns(BN128.r, VALUES);
    for (let cut = 0; cut < image.length; cut++) throwsCode(() => WtnsFile.fromBytes(image.subarray(0, cut), 'cut.wtns'), 'E_FORMAT', 'cut.wtns');
    throwsCode(() => WtnsFile.open(file('cut.wtns', image.subarray(0, 100))), 'E_FORMAT', 'cut.wtns', 'truncated', 'wtns section 2');
  });

  it('rejects wrong magic and version', () => {
    throwsCode(() => WtnsFile.open(file('a.wtns', encodeBinFile('zkey', 1, []))), 'E_FORMAT', 'a.wtns', 'not a wtns file (it does not start with "wtns")');
    throwsCode(() => WtnsFile.open(file('b.wtns', encodeBinFile('wtns', 1, []))), 'E_FORMAT', 'b.wtns', 'wtns version 1', 'expected 2');
  });

  it('rejects headers with the wrong prime, n8, size or count', () => {
    const values = new Uint8Array(64);
    const img = (s1: Uint8Array, s2: Uint8Array = values) => encodeBinFile('wtns', 2, [{ type: 1, bytes: s1 }, { type: 2, bytes: s2 }]);
    const open = (image: Uint8Array) => () => WtnsFile.open(file('h.wtns', image));
    throwsCode(open(img(header1(32, BN128.r + 2n, 2))), 'E_FORMAT', 'h.wtns: wtns section 1', 'not the scalar field of BN254 or BLS12-381');
    throwsCode(open(img(header1(32, BN128.q, 2))), 'E_FORMAT', 'the BN254 base field prime');
    const n8 = header1(32, BN128.r, 2);
    new DataView(n8.buffer).setUint32(0, 48, true);
    throwsCode(open(img(n8)), 'E_FORMAT', 'n8 is 48, expected 32');
    throwsCode(open(img(header1(48, BN128.r, 2))), 'E_FORMAT', 'wtns section 1: expected 40 bytes', 'got 56');
    throwsCode(open(img(header1(32, BN128.r, 3))), 'E_FORMAT', 'wtns section 2: expected 32 bytes per value × 3 values = 96 bytes, got 64');
    throwsCode(open(img(header1(32, BN128.r, 0xffffffff))), 'E_FORMAT', '× 4294967295 values = 137438953440 bytes, got 64');
    throwsCode(open(encodeBinFile('wtns', 2, [{ type: 1, bytes: header1(32, BN128.r, 2) }])), 'E_FORMAT', 'wtns section 2 is missing');
    throwsCode(open(encodeBinFile('wtns', 2, [{ type: 2, bytes: values }])), 'E_FORMAT', 'wtns section 1 is missing');
    const dup = encodeBinFile('wtns', 2, [{ type: 1, bytes: header1(32, BN128.r, 2) }, { type: 2, bytes: values }, { type: 2, bytes: values }]);
    throwsCode(open(dup), 'E_FORMAT', 'wtns section 2 appears twice');
  });

  it('rejects a value >= r on read, at r exactly and at 2^256 - 1', async () => {
    for (const [bad, label] of [[BN128.r, 'r'], [(1n << 256n) - 1n, 'max']] as const) {
      const bytes = encodeWtns(BN128.r, [1n, 2n, 3n]);
      bigintToLe(bad, 32, bytes, bytes.length - 32);
      const w = WtnsFile.open(file(`${label}.wtns`, bytes));
      try {
        throwsCode(() => w.readWitness(), 'E_FORMAT', `${label}.wtns: wtns section 2: value 2 is not below the scalar field prime r`);
        await assert.rejects(w.readWitnessAsync(), (e: unknown) => e instanceof CuzkError && e.code === 'E_FORMAT');
      } finally {
        w.close();
      }
    }
  });

  it('checks a witness against a key: field and length', () => {
    const w: WtnsHeader = { path: 'w.wtns', curve: 'bls12381', n8: 32, prime: BLS12381.r, nWitness: 520 };
    const key = { curve: 'bn128', r: BN128.r, nVars: 1204 } as ZkeyHeader;
    throwsCode(() => checkWitnessMatchesKey(w, key), 'E_FORMAT', 'w.wtns: witness is for the BLS12-381 scalar field but the key is BN254');
    const bn = { ...w, curve: 'bn128' as const, prime: BN128.r };
    throwsCode(() => checkWitnessMatchesKey(bn, key, 'other.wtns'), 'E_FORMAT', 'other.wtns: witness has 520 values but the key expects 1204: a witness of another circuit?');
    checkWitnessMatchesKey({ ...bn, nWitness: 1204 }, key);
  });

  it('refuses to write values out of range or an unknown prime', () => {
    throwsCode(() => encodeWtns(BN128.r, [BN128.r]), 'E_INVALID_ARG', 'value 0');
    throwsCode(() => encodeWtns(BN128.r, [-1n]), 'E_INVALID_ARG');
    throwsCode(() => encodeWtns(BN128.q, [1n]), 'E_INVALID_ARG', 'not a supported scalar field');
    throwsCode(() => encodeWtns(BN128.r, new Uint8Array(33)), 'E_INVALID_ARG', 'multiple of 32');
    throwsCode(() => encodeWtns(BN128.r, new Uint8Array(64).fill(0xff)), 'E_INVALID_ARG', 'value 0 is not below');
  });
  it('opens a file again from its known layout without parsing it; a changed size is refused', async () => {
    const p = file('known.wtns', encodeWtns(BN128.r, VALUES));
    const first = WtnsFile.open(p);
    const layout = first.layout;
    const values = first.readWitness();
    first.close();
    assert.deepEqual(layout, wtnsHeaderFromPrefix(fs.readFileSync(p).subarray(0, WTNS_PREFIX_BYTES), p), 'the prefix reader finds the same layout');
    assert.equal(layout.totalBytes, fs.statSync(p).size);
    const again = WtnsFile.openKnown(p, layout);
    try {
      assert.equal(again.header, layout.header, 'the header given, not a new parse');
      assert.deepEqual(await again.readWitnessAsync(new Uint8Array(again.witnessBytes)), values);
    } finally {
      again.close();
    }
    const mem = WtnsFile.fromBytesKnown(new Uint8Array(fs.readFileSync(p)), 'mem.wtns', layout);
    assert.deepEqual(mem.readWitness(), values);
    // a file replaced by another witness of another size since its header was read
    fs.writeFileSync(p, encodeWtns(BN128.r, VALUES.slice(0, 3)));
    throwsCode(() => WtnsFile.openKnown(p, layout), 'E_FORMAT', p, `it was ${layout.totalBytes} when its header was read`);
    throwsCode(() => WtnsFile.fromBytesKnown(new Uint8Array(10), 'mem.wtns', layout), 'E_FORMAT', 'mem.wtns', 'changed since');
    throwsCode(() => WtnsFile.openKnown(p, { ...layout, totalBytes: fs.statSync(p).size }), 'E_INVALID_ARG', 'outside the file');
    // same size, other values: the values are still checked as they are read
    const big = new Uint8Array(32 * VALUES.length).fill(0xff);
    fs.writeFileSync(p, encodeBinFile('wtns', 2, [{ type: 1, bytes: header1(32, BN128.r, VALUES.length) }, { type: 2, bytes: big }]));
    const swapped = WtnsFile.openKnown(p, layout);
    try {
      await assert.rejects(swapped.readWitnessAsync(), (e: CuzkError) => e.code === 'E_FORMAT' && /value 0 is not below/.test(e.message));
    } finally {
      swapped.close();
    }
  });
});
