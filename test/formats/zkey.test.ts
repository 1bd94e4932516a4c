// Groth16 zkey reader: synthetic keys for both curves round-trip through the writer, then every corruption of
// the headers, section table, sizes and coefficient records is rejected as E_FORMAT naming the file.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { BinFile, encodeBinFile, type SectionInput } from '../../src/formats/binfile.js';
import { BLS12381, BN128, curveByName, type CurveName } from '../../src/formats/curves.js';
import { encodeG1, encodeG2 } from '../../src/formats/lem.js';
import { encodeWtns } from '../../src/formats/wtns.js';
import { ZKEY_BIG_SECTIONS, ZkeyFile, validateCoefs } from '../../src/formats/zkey.js';
import { coefRecords, encodeZkey, writeZkey, type ZkeyInput } from '../../src/formats/zkey-write.js';
import { useTmpDir } from '../helpers/tmp.js';

function throwsCode(fn: () => unknown, code: string, ...parts: string[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CuzkError, `expected a CuzkError, got ${String(err)}`);
    assert.equal(err.code, code);
    for (const p of parts) assert.ok(err.message.includes(p), `${JSON.stringify(err.message)} lacks ${JSON.stringify(p)}`);
    return true;
  });
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((o, p) => (out.set(p, o), o + p.length), 0);
  return out;
}

/** Points need not lie on the curve: the reader checks layout and ranges, not the math. */
function sampleZkey(curve: CurveName): ZkeyInput {
  const info = curveByName(curve)!;
  const nVars = 6;
  const nPublic = 2;
  const domainSize = 8;
  const g1 = (k: number) => encodeG1({ x: BigInt(k), y: info.q - BigInt(k) }, info);
  const g2 = (k: number) => encodeG2({ x: [BigInt(k), 7n], y: [info.q - 1n, BigInt(k)] }, info);
  const g1s = (n: number, seed: number) => concat(Array.from({ length: n }, (_, i) => (i === 1 ? encodeG1(null, info) : g1(seed + i))));
  const g2s = (n: number, seed: number) => concat(Array.from({ length: n }, (_, i) => g2(seed + i)));
  return {
    curve, nVars, nPublic, domainSize,
    alpha1: g1(1), beta1: g1(2), beta2: g2(3), gamma2: g2(4), delta1: g1(5), delta2: g2(6),
    IC: g1s(nPublic + 1, 10), A: g1s(nVars, 20), B1: g1s(nVars, 30), B2: g2s(nVars, 40),
    C: g1s(nVars - nPublic - 1, 50), H: g1s(domainSize, 60),
    coefs: coefRecords(curve, [
      { matrix: 0, constraint: 0, signal: 3, value: 1n },
      { matrix: 1, constraint: 0, signal: 4, value: info.r - 1n },
      { matrix: 0, constraint: 1, signal: 5, value: 12345n },
      { matrix: 0, constraint: 2, signal: 0, value: 1n },
      { matrix: 0, constraint: 3, signal: 1, value: 1n },
      { matrix: 0, constraint: 4, signal: 2, value: 1n },
    ]),
    contributions: new Uint8Array(68),
  };
}

function sectionsOf(image: Uint8Array): SectionInput[] {
  const f = BinFile.fromBytes(image, 'x', { magic: 'zkey', versions: [1] });
  return [...f.sections.values()].map((s) => ({ type: s.type, bytes: f.readSection(s.type).slice() }));
}

function replaceSection(image: Uint8Array, type: number, edit: (b: Uint8Array) => Uint8Array): Uint8Array {
  return encodeBinFile('zkey', 1, sectionsOf(image).map((s) => (s.type === type ? { type, bytes: edit(s.bytes) } : s)));
}

/** Edits the Groth16 header (section 2) in place through a DataView; offsets are for n8q, n8r as written. */
function patchHeader(image: Uint8Array, edit: (v: DataView, at: { q: number; r: number; counts: number; points: number }) => void) {
  return replaceSection(image, 2, (b) => {
    const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const n8q = v.getUint32(0, true);
    const n8r = v.getUint32(4 + n8q, true);
    edit(v, { q: 4, r: 8 + n8q, counts: 8 + n8q + n8r, points: 20 + n8q + n8r });
    return b;
  });
}

describe('zkey', () => {
  const tmp = useTmpDir();
  const file = (name: string, image: Uint8Array) => {
    const p = path.join(tmp(), name);
    fs.writeFileSync(p, image);
    return p;
  };

  for (const curve of ['bn128', 'bls12381'] as const) {
    it(`round-trips a ${curve} key, reading every section into caller buffers`, async () => {
      const input = sampleZkey(curve);
      const p = path.join(tmp(), 'k.zkey');
      writeZkey(p, input);
      const z = ZkeyFile.open(p);
      try {
        const h = z.header;
        const info = curveByName(curve)!;
        assert.deepEqual(
          [h.curve, h.n8q, h.n8r, h.q, h.r, h.nVars, h.nPublic, h.domainSize, h.nCoefs],
          [curve, info.n8q, info.n8r, info.q, info.r, 6, 2, 8, 6],
        );
        for (const k of ['alpha1', 'beta1', 'beta2', 'gamma2', 'delta1', 'delta2'] as const) assert.deepEqual(h[k], input[k]);
        assert.equal(h.sections.contributions?.size, 68);
        // zkey new's on-disk order 1,2,4,3,9,8,5,6,7,10: IC (3) is the fourth entry, H (9) the fifth.
        assert.deepEqual([h.sections.coefs.index, h.sections.IC.index, h.sections.H.index, h.sections.B2.index], [2, 3, 4, 8]);
        for (const name of ZKEY_BIG_SECTIONS) {
          const into = new Uint8Array(z.sectionBytes(name) + 3);
          const got = z.read(name, into);
          assert.equal(got.buffer, into.buffer);
          assert.deepEqual(got, input[name]);
          assert.deepEqual(await z.readAsync(name), input[name]);
        }
      } finally {
        z.close();
      }
    });
  }

  it('reads an in-memory image and names it in errors', () => {
    const z = ZkeyFile.fromBytes(encodeZkey(sampleZkey('bn128')), 'mem.zkey');
    assert.equal(z.header.path, 'mem.zkey');
    throwsCode(() => z.read('H', new Uint8Array(10)), 'E_INVALID_ARG', 'mem.zkey', 'zkey section 9');
  });

  it('rejects the key truncated at every byte', () => {
    const image = encodeZkey(sampleZkey('bn128'));
    for (let cut = 0; cut < image.length; cut++) throwsCode(() => ZkeyFile.fromBytes(image.subarray(0, cut), 'cut.zkey'), 'E_FORMAT', 'cut.zkey');
    for (const cut of [3, 11, 40, 700, image.length - 1]) throwsCode(() => ZkeyFile.open(file('cut.zkey', image.subarray(0, cut))), 'E_FORMAT', 'cut.zkey');
  });

  it('rejects another file type, version and protocol', () => {
    const image = encodeZkey(sampleZkey('bn128'));
    throwsCode(() => ZkeyFile.open(file('w.zkey', encodeWtns(BN128.r, [1n]))), 'E_FORMAT', 'w.zkey', 'not a zkey file (it does not start with "zkey")');
    const v2 = image.slice();
    new DataView(v2.buffer).setUint32(4, 2, true);
    throwsCode(() => ZkeyFile.open(file('v.zkey', v2)), 'E_FORMAT', 'v.zkey', 'zkey version 2', 'expected 1');
    const proto = (n: number) => replaceSection(image, 1, () => Uint8Array.of(n, 0, 0, 0));
    throwsCode(() => ZkeyFile.open(file('p.zkey', proto(2))), 'E_FORMAT', 'p.zkey: zkey section 1', 'protocol 2 is a PLONK key');
    throwsCode(() => ZkeyFile.open(file('p.zkey', proto(10))), 'E_FORMAT', 'FFLONK');
    throwsCode(() => ZkeyFile.open(file('p.zkey', proto(77))), 'E_FORMAT', 'unknown protocol');
    throwsCode(() => ZkeyFile.open(file('p.zkey', replaceSection(image, 1, () => new Uint8Array(8)))), 'E_FORMAT', 'expected 4 bytes');
  });

  it('rejects unknown or mismatched primes', () => {
    const image = encodeZkey(sampleZkey('bn128'));
    const badQ = patchHeader(image, (v, at) => v.setUint8(at.q, v.getUint8(at.q) ^ 2));
    throwsCode(() => ZkeyFile.open(file('q.zkey', badQ)), 'E_FORMAT', 'q.zkey: zkey section 2', 'unknown base field prime q = 2188824287183927522224640574525727508869631115729782366268903789464522620858');
    const blsR = patchHeader(image, (v, at) => {
      for (let i = 0; i < 32; i++) v.setUint8(at.r + i, Number((BLS12381.r >> BigInt(8 * i)) & 0xffn));
    });
    throwsCode(() => ZkeyFile.open(file('r.zkey', blsR)), 'E_FORMAT', 'r.zkey', 'BLS12-381 scalar field prime', "q is BN254's");
    const bigN8q = patchHeader(image, (v) => v.setUint32(0, 1000, true));
    throwsCode(() => ZkeyFile.open(file('n.zkey', bigN8q)), 'E_FORMAT', 'n8q is 1000');
    const bls = encodeZkey(sampleZkey('bls12381'));
    const n8r = patchHeader(bls, (v) => v.setUint32(4 + 48, 48, true));
    throwsCode(() => ZkeyFile.open(file('n.zkey', n8r)), 'E_FORMAT', 'n8r is 48, expected 32 for BLS12-381');
  });

  it('rejects bad domain sizes and counts', () => {
    const image = encodeZkey(sampleZkey('bn128'));
    const counts = (nVars: number, nPublic: number, domainSize: number) =>
      patchHeader(image, (v, at) => [nVars, nPublic, domainSize].forEach((n, i) => v.setUint32(at.counts + 4 * i, n, true)));
    const open = (img: Uint8Array) => () => ZkeyFile.open(file('d.zkey', img));
    throwsCode(open(counts(6, 2, 12)), 'E_FORMAT', 'd.zkey', 'domainSize 12 is not a power of two');
    throwsCode(open(counts(6, 2, 2 ** 29)), 'E_FORMAT', 'domainSize 536870912');
    throwsCode(open(counts(6, 2, 0)), 'E_FORMAT', 'domainSize 0');
    throwsCode(open(counts(6, 4, 4)), 'E_FORMAT', 'domainSize 4 is below nPublic + 1 = 5');
    throwsCode(open(counts(2, 2, 8)), 'E_FORMAT', 'nVars 2 is below nPublic + 1 = 3');
    throwsCode(open(counts(0xffffffff, 2, 8)), 'E_FORMAT', 'zkey section 5: expected 64 bytes per point × 4294967295 points = 274877906880 bytes, got 384');
    throwsCode(open(counts(6, 2, 2 ** 28)), 'E_FORMAT', 'zkey section 9: expected 64 bytes per point × 268435456 points = 17179869184 bytes, got 512');
  });

  it('checks every section size against the header counts', () => {
    const image = encodeZkey(sampleZkey('bn128'));
    const shorten = (type: number, by: number) => replaceSection(image, type, (b) => b.subarray(0, b.length - by));
    const open = (img: Uint8Array) => () => ZkeyFile.open(file('s.zkey', img));
    throwsCode(open(shorten(3, 64)), 'E_FORMAT', 's.zkey: zkey section 3: expected 64 bytes per point × 3 points = 192 bytes, got 128');
    throwsCode(open(shorten(4, 1)), 'E_FORMAT', 'zkey section 4: expected 4 + 44 bytes per record × 6 records = 268 bytes, got 267');
    throwsCode(open(shorten(5, 64)), 'E_FORMAT', 'zkey section 5: expected 64 bytes per point × 6 points = 384 bytes, got 320');
    throwsCode(open(shorten(6, 1)), 'E_FORMAT', 'zkey section 6');
    throwsCode(open(shorten(7, 128)), 'E_FORMAT', 'zkey section 7: expected 128 bytes per point × 6 points = 768 bytes, got 640');
    throwsCode(open(shorten(8, 64)), 'E_FORMAT', 'zkey section 8: expected 64 bytes per point × 3 points = 192 bytes, got 128');
    throwsCode(open(shorten(9, 64)), 'E_FORMAT', 'zkey section 9: expected 64 bytes per point × 8 points = 512 bytes, got 448');
    throwsCode(open(shorten(2, 1)), 'E_FORMAT', 'zkey section 2', 'too short');
    throwsCode(open(replaceSection(image, 2, (b) => concat([b, new Uint8Array(1)]))), 'E_FORMAT', 'zkey section 2: expected 660 bytes', 'got 661');
    throwsCode(open(replaceSection(image, 2, () => new Uint8Array(5000))), 'E_FORMAT', 'zkey section 2: 5000 bytes');
    throwsCode(open(replaceSection(image, 4, () => new Uint8Array(3))), 'E_FORMAT', 'zkey section 4: 3 bytes is too short');
    const hugeCoefs = replaceSection(image, 4, (b) => (new DataView(b.buffer, b.byteOffset).setUint32(0, 0xffffffff, true), b));
    throwsCode(open(hugeCoefs), 'E_FORMAT', 'zkey section 4: expected 4 + 44 bytes per record × 4294967295 records');
  });

  it('rejects missing and duplicate sections', () => {
    const input = sampleZkey('bn128');
    for (const missing of [1, 2, 3, 4, 5, 6, 7, 8, 9]) {
      const order = [1, 2, 3, 4, 5, 6, 7, 8, 9].filter((t) => t !== missing);
      throwsCode(() => ZkeyFile.open(file('m.zkey', encodeZkey({ ...input, order }))), 'E_FORMAT', `m.zkey: zkey section ${missing} is missing`);
    }
    const dup = encodeZkey({ ...input, order: [1, 2, 3, 4, 5, 6, 7, 8, 9, 5] });
    throwsCode(() => ZkeyFile.open(file('dup.zkey', dup)), 'E_FORMAT', 'dup.zkey', 'zkey section 5 appears twice');
    assert.equal(ZkeyFile.fromBytes(encodeZkey({ ...input, contributions: undefined }), 'x').header.sections.contributions, undefined);
  });

  it('rejects a header point with a coordinate not below q', () => {
    const image = patchHeader(encodeZkey(sampleZkey('bn128')), (v, at) => {
      for (let i = 0; i < 32; i++) v.setUint8(at.points + 64 + 64 + 32 + i, 0xff);
    });
    throwsCode(() => ZkeyFile.open(file('pt.zkey', image)), 'E_FORMAT', 'pt.zkey: zkey section 2: beta2 coordinate 1 is not below q');
  });

  it('validates every coefficient record on read', async () => {
    const input = sampleZkey('bn128');
    const bad = (record: number, field: number, value: number | 'r' | 'max') => {
      const coefs = input.coefs.slice();
      const v = new DataView(coefs.buffer);
      const at = record * 44;
      if (typeof value === 'number') v.setUint32(at + 4 * field, value, true);
      else for (let i = 0; i < 32; i++) coefs[at + 12 + i] = value === 'max' ? 0xff : Number((BN128.r >> BigInt(8 * i)) & 0xffn);
      return ZkeyFile.open(file('c.zkey', encodeZkey({ ...input, coefs })));
    };
    const cases: Array<[number, number, number | 'r' | 'max', string]> = [
      [1, 0, 2, 'coefficient record 1 has matrix 2, expected 0 (A) or 1 (B)'],
      [2, 1, 8, 'coefficient record 2 has constraint 8, expected < domainSize 8'],
      [5, 1, 0xffffffff, 'coefficient record 5 has constraint 4294967295'],
      [0, 2, 6, 'coefficient record 0 has signal 6, expected < nVars 6'],
      [3, 0, 'r', 'coefficient record 3 has a value not below the scalar field prime r'],
      [4, 0, 'max', 'coefficient record 4 has a value not below'],
    ];
    for (const [record, field, value, message] of cases) {
      const z = bad(record, field, value);
      try {
        throwsCode(() => z.read('coefs'), 'E_FORMAT', `c.zkey: zkey section 4: ${message}`);
        await assert.rejects(z.readAsync('coefs', new Uint8Array(z.sectionBytes('coefs'))), (e: unknown) => e instanceof CuzkError && e.code === 'E_FORMAT');
      } finally {
        z.close();
      }
    }
    const z = ZkeyFile.fromBytes(encodeZkey(input), 'ok.zkey');
    throwsCode(() => validateCoefs(z.header, new Uint8Array(10)), 'E_INVALID_ARG', 'ok.zkey');
  });

  it('validates 2^20 coefficient records quickly', () => {
    const z = ZkeyFile.fromBytes(encodeZkey(sampleZkey('bn128')), 'perf.zkey');
    const n = 1 << 20;
    const records = new Uint8Array(n * 44);
    const v = new DataView(records.buffer);
    for (let i = 0; i < n; i++) {
      v.setUint32(i * 44 + 4, i & 7, true);
      v.setUint32(i * 44 + 8, i % 6, true);
      v.setUint32(i * 44 + 40, (i * 2654435761) % 0x30644e72, true);
    }
    const h = { ...z.header, nCoefs: n };
    const t0 = performance.now();
    validateCoefs(h, records);
    const ms = performance.now() - t0;
    assert.ok(ms < 1000, `validateCoefs took ${ms.toFixed(1)} ms for 2^20 records`);
  });
});
