// LEM point codec, little-endian BigInt helpers and the bulk range check, at their edges.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { BLS12381, BN128, CURVES, curveByName, curveByQ, curveByR, describePrime } from '../../src/formats/curves.js';
import { dataViewOf, firstNotBelow, makeBelowCheck } from '../../src/formats/field-check.js';
import {
  bigintToLe, decodeG1, decodeG2, encodeG1, encodeG2, fromMont, leToBigint, scalarFromLe, scalarToLe, toMont,
} from '../../src/formats/lem.js';

function throwsCode(fn: () => unknown, code: string, ...parts: string[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CuzkError, `expected a CuzkError, got ${String(err)}`);
    assert.equal(err.code, code);
    for (const p of parts) assert.ok(err.message.includes(p), `${JSON.stringify(err.message)} lacks ${JSON.stringify(p)}`);
    return true;
  });
}

describe('curves', () => {
  it('finds curves by name, q and r, and describes primes', () => {
    assert.equal(curveByName('bn128'), BN128);
    assert.equal(curveByQ(BLS12381.q), BLS12381);
    assert.equal(curveByR(BN128.r), BN128);
    assert.equal(curveByR(BN128.q), undefined);
    assert.equal(describePrime(BLS12381.r), 'the BLS12-381 scalar field prime');
    assert.equal(describePrime(97n), '0x61');
    assert.match(describePrime((1n << 255n) + 19n), /^0x8000000000…0000000013 \(256 bits\)$/);
    for (const c of CURVES) assert.ok(c.q < 1n << BigInt(8 * c.n8q) && c.r < 1n << BigInt(8 * c.n8r));
  });
});

describe('lem', () => {
  it('round-trips little-endian integers of any width', () => {
    for (const n8 of [1, 5, 8, 13, 32, 48]) {
      const top = 1n << BigInt(8 * n8);
      for (const v of [0n, 1n, 255n, top - 1n, ((top >> 3n) + 12345n) % top]) {
        const b = bigintToLe(v, n8);
        assert.equal(b.length, n8);
        assert.equal(leToBigint(b), v);
      }
    }
    assert.deepEqual([...bigintToLe(0x0102n, 4)], [2, 1, 0, 0]);
    const buf = new Uint8Array(40).fill(9);
    scalarToLe(BN128.r - 1n, 32, buf, 4);
    assert.equal(scalarFromLe(buf, 4), BN128.r - 1n);
    assert.deepEqual([buf[3], buf[36]], [9, 9]);
    throwsCode(() => bigintToLe(256n, 1), 'E_INVALID_ARG', 'does not fit in 1 bytes');
    throwsCode(() => bigintToLe(-1n, 8), 'E_INVALID_ARG');
    throwsCode(() => bigintToLe(1n, 8, new Uint8Array(8), 1), 'E_INVALID_ARG', 'outside');
    throwsCode(() => leToBigint(new Uint8Array(4), 2, 4), 'E_INVALID_ARG', 'outside');
  });

  it('converts to and from Montgomery form with R = 2^(8·n8q)', () => {
    for (const c of CURVES) {
      const R = (1n << BigInt(8 * c.n8q)) % c.q;
      assert.equal(toMont(1n, c), R);
      for (const v of [0n, 1n, 2n, c.q - 1n, 0x1234567890abcdefn]) assert.equal(fromMont(toMont(v, c), c), v);
    }
  });

  for (const c of [BN128, BLS12381]) {
    it(`encodes ${c.label} G1/G2 points as LEM and back, infinity as zeros`, () => {
      const p1 = { x: 1n, y: c.q - 2n };
      const e1 = encodeG1(p1, c);
      assert.equal(e1.length, 2 * c.n8q);
      assert.equal(leToBigint(e1, 0, c.n8q), toMont(1n, c));
      assert.deepEqual(decodeG1(e1, c), p1);
      const p2 = { x: [3n, 4n] as const, y: [c.q - 5n, 0n] as const };
      const e2 = encodeG2(p2, c);
      assert.equal(leToBigint(e2, c.n8q, c.n8q), toMont(4n, c), 'x.c1 follows x.c0');
      assert.deepEqual(decodeG2(e2, c), p2);
      assert.deepEqual(encodeG1(null, c), new Uint8Array(2 * c.n8q));
      assert.equal(decodeG1(new Uint8Array(2 * c.n8q), c), null);
      assert.equal(decodeG2(new Uint8Array(4 * c.n8q), c), null);
      const into = new Uint8Array(10 + 4 * c.n8q).fill(7);
      encodeG2(null, c, into, 10);
      assert.equal(decodeG2(into, c, 10), null);
      assert.equal(into[9], 7);
    });
  }

  it('rejects coordinates >= q and short buffers', () => {
    const bad = new Uint8Array(64).fill(0xff);
    throwsCode(() => decodeG1(bad, BN128, 0, 'k.zkey: IC[0]'), 'E_FORMAT', 'k.zkey: IC[0]: coordinate at byte 0 is not below the BN254 base field prime');
    throwsCode(() => decodeG2(new Uint8Array(100), BN128), 'E_INVALID_ARG', 'needs bytes [0, 128)');
    throwsCode(() => encodeG1({ x: BN128.q, y: 0n }, BN128), 'E_INVALID_ARG', 'not below');
  });
});

describe('field-check', () => {
  it('decides value < modulus on both sides of a top-word tie', () => {
    const r = BN128.r;
    const below = makeBelowCheck(r, 32);
    const at = (v: bigint) => dataViewOf(bigintToLe(v, 32));
    for (const v of [0n, 1n, r - 1n, r - (1n << 200n)]) assert.equal(below(at(v), 0), true, `${v}`);
    for (const v of [r, r + 1n, (1n << 256n) - 1n, r + (1n << 200n)]) assert.equal(below(at(v), 0), false, `${v}`);
    const values = new Uint8Array(5 * 32);
    bigintToLe(r, 32, values, 3 * 32);
    assert.equal(firstNotBelow(values, r, 32, 5), 3);
    assert.equal(firstNotBelow(values, r, 32, 3), -1);
    assert.throws(() => makeBelowCheck(r, 30), RangeError);
  });

  it('firstNotBelow agrees with a BigInt reference on aligned and unaligned layouts, strides and ties', () => {
    let seed = 12345;
    const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0);
    for (const curve of [BN128, BLS12381]) {
      const r = curve.r;
      const top = r >> 224n;
      // values that tie on the top word (and on all but the lowest), both sides of r, and random ones
      const special = [0n, 1n, r - 1n, r, r + 1n, (1n << 256n) - 1n, top << 224n, ((top + 1n) << 224n) - 1n, r - (r & 0xffffffffn), r + (1n << 100n)];
      for (const [offset, stride] of [[0, 32], [4, 32], [1, 32], [0, 40], [3, 36], [2, 34]] as const) {
        for (let trial = 0; trial < 40; trial++) {
          const count = 1 + (rnd() % 12);
          const bytes = new Uint8Array(offset + count * stride + 8).map(() => rnd() & 0xff);
          const values: bigint[] = [];
          for (let i = 0; i < count; i++) {
            const pick = rnd() % 3;
            let v = pick === 0 ? special[rnd() % special.length]! : pick === 1 ? (BigInt(rnd()) << 224n) | BigInt(rnd()) : r - 1n - BigInt(rnd());
            if (trial % 2 === 0 && v >= r) v %= r; // half the trials: all below, so the end is reached
            bigintToLe(v, 32, bytes, offset + i * stride);
            values.push(v);
          }
          const expected = values.findIndex((v) => v >= r);
          const view = bytes.subarray(offset % 4); // an unaligned byteOffset for odd offsets
          assert.equal(firstNotBelow(view, r, 32, count, stride, offset - (offset % 4)), expected, `${curve.name} offset ${offset} stride ${stride} trial ${trial}`);
          for (let i = 0; i < count; i++) assert.equal(leToBigint(bytes, offset + i * stride, 32), values[i]);
        }
      }
    }
  });
});
