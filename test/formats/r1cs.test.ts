// .r1cs v1: writer/reader round trip (circom's section order 2,1,3), the CSR layout, and every error path.

import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { BinFile, encodeBinFile, type SectionInput } from '../../src/formats/binfile.js';
import { BLS12381, BN128 } from '../../src/formats/curves.js';
import { bigintToLe } from '../../src/formats/lem.js';
import { encodeR1cs, parseR1cs, r1csConstraintAt, readR1cs, writeR1cs, type R1csInput } from '../../src/formats/r1cs.js';
import { useTmpDir } from '../helpers/tmp.js';

function throwsCode(fn: () => unknown, code: string, ...parts: string[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CuzkError, `expected a CuzkError, got ${String(err)}`);
    assert.equal(err.code, code);
    for (const p of parts) assert.ok(err.message.includes(p), `${JSON.stringify(err.message)} lacks ${JSON.stringify(p)}`);
    return true;
  });
}

// out = (x·y + 1)·x with wires 0 = 1, 1 = out, 2 = x (public), 3 = y (private), 4 = t.
const INPUT: R1csInput = {
  prime: BN128.r,
  nWires: 5,
  nPubOut: 1,
  nPubIn: 1,
  nPrvIn: 1,
  constraints: [
    [[[2, 1n]], [[3, 1n]], [[4, 1n]]],
    [[[4, 1n], [0, 1n]], [[2, 1n]], [[1, 1n]]],
    [[], [], []],
    [[[1, BN128.r - 1n], [4, 12345678901234567890n]], [[0, 2n]], [[3, BN128.r - 2n]]],
  ],
};

function sectionsOf(image: Uint8Array): SectionInput[] {
  const f = BinFile.fromBytes(image, 'x', { magic: 'r1cs', versions: [1] });
  return [...f.sections.values()].map((s) => ({ type: s.type, bytes: f.readSection(s.type).slice() }));
}

function editSection(type: number, edit: (b: Uint8Array, v: DataView) => Uint8Array | void, input: R1csInput = INPUT): Uint8Array {
  return encodeBinFile('r1cs', 1, sectionsOf(encodeR1cs(input)).map((s) => {
    if (s.type !== type) return s;
    const out = edit(s.bytes, new DataView(s.bytes.buffer, s.bytes.byteOffset, s.bytes.byteLength));
    return { type, bytes: out ?? s.bytes };
  }));
}

describe('r1cs', () => {
  const tmp = useTmpDir();
  const file = (name: string, image: Uint8Array) => {
    const p = path.join(tmp(), name);
    fs.writeFileSync(p, image);
    return p;
  };

  it('round-trips constraints and header, with sections on disk in circom order 2,1,3', () => {
    const p = path.join(tmp(), 'c.r1cs');
    writeR1cs(p, INPUT);
    const f = BinFile.open(p, { magic: 'r1cs', versions: [1] });
    assert.deepEqual([...f.sections.keys()], [2, 1, 3]);
    assert.equal(f.section(1).size, 64);
    assert.deepEqual(new BigUint64Array(f.readSection(3).slice().buffer), BigUint64Array.from([0n, 1n, 2n, 3n, 4n]));
    f.close();
    const { header, constraints } = readR1cs(p);
    assert.deepEqual(header, { path: p, curve: 'bn128', n8: 32, prime: BN128.r, nWires: 5, nPubOut: 1, nPubIn: 1, nPrvIn: 1, nLabels: 5, nConstraints: 4 });
    assert.deepEqual([...constraints.lcStart], [0, 1, 2, 3, 5, 6, 7, 7, 7, 7, 9, 10, 11]);
    assert.deepEqual([...constraints.wires], [2, 3, 4, 4, 0, 2, 1, 1, 4, 0, 3]);
    assert.equal(constraints.coeffs.length, 11 * 32);
    INPUT.constraints.forEach((c, i) => assert.deepEqual(r1csConstraintAt(constraints, i), c));
  });

  it('reads a BLS12-381 system from memory and keeps nLabels', () => {
    const input = { ...INPUT, prime: BLS12381.r, nLabels: 2 ** 40, constraints: INPUT.constraints.slice(0, 2) };
    const r = parseR1cs(encodeR1cs(input), 'mem.r1cs');
    assert.equal(r.header.curve, 'bls12381');
    assert.equal(r.header.nLabels, 2 ** 40);
    assert.deepEqual(r1csConstraintAt(r.constraints, 1), input.constraints[1]);
  });

  it('rejects the file truncated at every byte', () => {
    const image = encodeR1cs(INPUT);
    for (let cut = 0; cut < image.length; cut++) throwsCode(() => parseR1cs(image.subarray(0, cut), 'cut.r1cs'), 'E_FORMAT', 'cut.r1cs');
    throwsCode(() => readR1cs(file('cut.r1cs', image.subarray(0, 200))), 'E_FORMAT', 'cut.r1cs', 'truncated');
  });

  it('rejects wrong magic, version and missing or duplicate sections', () => {
    throwsCode(() => readR1cs(file('a.r1cs', encodeBinFile('wtns', 2, []))), 'E_FORMAT', 'a.r1cs', 'not a r1cs file (it does not start with "r1cs")');
    throwsCode(() => readR1cs(file('b.r1cs', encodeBinFile('r1cs', 2, []))), 'E_FORMAT', 'b.r1cs', 'r1cs version 2');
    const [s2, s1] = sectionsOf(encodeR1cs(INPUT));
    throwsCode(() => readR1cs(file('m.r1cs', encodeBinFile('r1cs', 1, [s1]))), 'E_FORMAT', 'm.r1cs: r1cs section 2 is missing');
    throwsCode(() => readR1cs(file('m.r1cs', encodeBinFile('r1cs', 1, [s2]))), 'E_FORMAT', 'm.r1cs: r1cs section 1 is missing');
    throwsCode(() => readR1cs(file('d.r1cs', encodeBinFile('r1cs', 1, [s2, s1, s1]))), 'E_FORMAT', 'section 1 appears twice');
  });

  it('rejects bad header fields', () => {
    const open = (image: Uint8Array) => () => readR1cs(file('h.r1cs', image));
    throwsCode(open(editSection(1, (b) => void bigintToLe(BN128.q, 32, b, 4))), 'E_FORMAT', 'h.r1cs: r1cs section 1', 'BN254 base field prime');
    throwsCode(open(editSection(1, (_, v) => v.setUint32(0, 8, true))), 'E_FORMAT', 'n8 is 8, expected 32');
    throwsCode(open(editSection(1, (b) => b.subarray(0, 60))), 'E_FORMAT', 'r1cs section 1: expected 64 bytes', 'got 60');
    throwsCode(open(editSection(1, (_, v) => v.setUint32(36, 3, true))), 'E_FORMAT', 'nWires 3 is below 1 + outputs + inputs = 4');
    throwsCode(open(editSection(1, (_, v) => v.setBigUint64(52, 1n << 60n, true))), 'E_FORMAT', 'nLabels is 1152921504606846976, above 2^53');
    throwsCode(open(editSection(3, (b) => b.subarray(8))), 'E_FORMAT', 'r1cs section 3: expected 8 bytes per wire × 5 wires = 40 bytes, got 32');
  });

  it('rejects constraint counts and term counts the section cannot hold', () => {
    const open = (image: Uint8Array) => () => readR1cs(file('n.r1cs', image));
    throwsCode(open(editSection(1, (_, v) => v.setUint32(60, 0xffffffff, true))), 'E_FORMAT', 'n.r1cs: r1cs section 2: 4294967295 constraints need at least 12 bytes each');
    throwsCode(open(editSection(1, (_, v) => v.setUint32(60, 5, true))), 'E_FORMAT', 'r1cs section 2: constraint 4 A: section ends');
    throwsCode(open(editSection(1, (_, v) => v.setUint32(60, 3, true))), 'E_FORMAT', 'r1cs section 2: expected', 'bytes for 3 constraints');
    throwsCode(open(editSection(2, (_, v) => v.setUint32(0, 0xffffffff, true))), 'E_FORMAT', 'constraint 0 A: 4294967295 terms need 154618822620 bytes');
    throwsCode(open(editSection(2, (b) => Uint8Array.from([...b, 0, 0, 0, 0]))), 'E_FORMAT', 'r1cs section 2: expected');
  });

  it('rejects a wire id >= nWires and a coefficient >= prime', () => {
    const open = (image: Uint8Array) => () => readR1cs(file('t.r1cs', image));
    // Constraint 0: A at 0 (count, wire at 4, coeff at 8), B at 40, C at 80.
    throwsCode(open(editSection(2, (_, v) => v.setUint32(44, 5, true))), 'E_FORMAT', 't.r1cs: r1cs section 2: constraint 0 B term 0 has wire 5, expected < nWires 5');
    throwsCode(open(editSection(2, (b) => void bigintToLe(BN128.r, 32, b, 88))), 'E_FORMAT', 'constraint 0 C term 0 has a coefficient not below the prime');
  });

  it('refuses to write out-of-range terms or unknown primes', () => {
    throwsCode(() => encodeR1cs({ ...INPUT, constraints: [[[[5, 1n]], [], []]] }), 'E_INVALID_ARG', 'constraint 0 A');
    throwsCode(() => encodeR1cs({ ...INPUT, constraints: [[[], [[0, BN128.r]], []]] }), 'E_INVALID_ARG', 'constraint 0 B');
    throwsCode(() => encodeR1cs({ ...INPUT, prime: 7n }), 'E_INVALID_ARG', 'prime 0x7');
    throwsCode(() => encodeR1cs({ ...INPUT, nWires: -1 }), 'E_INVALID_ARG', 'nWires');
  });
});
