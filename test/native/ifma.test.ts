// The AVX-512 IFMA path of the CPU MSM: BN254 Fq and Fq2 on 8 lanes of radix 2^52 (native/field/mont_ifma.hpp,
// through the cuzk_debug_fq8_op hook) against the BigInt reference and the scalar field, on inputs
// at 0, 1, p - 1, p/2 and around every 52- and 64-bit limb boundary (where a lost carry, a missed
// subtraction or the 48-bit last reduction digit would show); and the 8-lane batch-affine flush
// (native/msm/batch_affine_ifma.cpp) in MSMs big enough to take it, with P + P, P + (-P), infinity
// and 0 / 1 scalars, against @noble/curves; the divsteps inversion both flushes use. On an IFMA machine the MSM suites run again in a child
// with CUZK_NO_IFMA=1: both paths then give the reference's bytes, i.e. the same bytes.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { FIELD, FIELD_OP, GROUP, batchMul, debugFq8Op, debugIfma, fieldOp, getThreads, msm, setThreads } from '../../src/ffi/native.js';
import { concat, fromLe, toLe } from '../helpers/lem.js';
import { refGroup, type RefGroup } from '../helpers/ref-curve.js';
import { MODULI, pow, primeField } from '../helpers/ref-field.js';
import { runSuitesInChild } from '../helpers/child-suites.js';
import { createRng } from '../helpers/rng.js';

const rng = createRng();
const seedNote = `(CUZK_TEST_SEED=${rng.seed})`;
const forcedOff = !!process.env.CUZK_NO_IFMA && process.env.CUZK_NO_IFMA !== '0';
const ifma = debugIfma();

const p = MODULI.bn128.q;
const F = primeField(p);
const rInv = pow(2n ** 256n, p - 2n, p);
const mont = (a: bigint, b: bigint) => F.mul(F.mul(a, b), rInv); // a·b·2^-256 on Montgomery images
const enc = (xs: bigint[]) => concat(xs.map((x) => toLe(x, 32)));
const dec = (b: Uint8Array) => Array.from({ length: b.length / 32 }, (_, i) => fromLe(b, 32 * i, 32));

// Montgomery images worth hitting: 0, 1, 2, around p/2 and p, and around each 52- and 64-bit
// boundary below p (limb edges of both radices).
function images(): bigint[] {
  const out = [0n, 1n, 2n, (p - 1n) / 2n, (p + 1n) / 2n, p - 2n, p - 1n];
  for (const bits of [52n, 64n, 104n, 128n, 156n, 192n, 208n, 253n]) {
    const b = 1n << bits;
    out.push(b - 1n, b, b + 1n, p - b);
  }
  return out;
}

function fq8(op: number, a: bigint[], b: bigint[]): bigint[] {
  const out = new Uint8Array(32 * a.length);
  debugFq8Op(op, enc(a), enc(b), out, a.length);
  return dec(out);
}

describe('IFMA Fq lanes (field/mont_ifma.hpp)', { skip: !ifma && 'the IFMA path is off on this machine' }, () => {
  // every pair of edge images, then random pairs, padded to whole vectors of 8
  const edge = images();
  const pa: bigint[] = [];
  const pb: bigint[] = [];
  for (const x of edge) for (const y of edge) (pa.push(x), pb.push(y));
  while (pa.length % 8 !== 0 || pa.length < edge.length ** 2 + 256) (pa.push(rng.below(p)), pb.push(rng.below(p)));

  const ops = [
    ['a + b', 0, (a: bigint, b: bigint) => F.add(a, b)],
    ['a - b', 1, (a: bigint, b: bigint) => F.sub(a, b)],
    ['a·b', 2, mont],
    ['a·a', 3, (a: bigint) => mont(a, a)],
    ['(a + b)(a - b)', 4, (a: bigint, b: bigint) => mont(F.add(a, b), F.sub(a, b))],
    ['(a + b)^2', 5, (a: bigint, b: bigint) => mont(F.add(a, b), F.add(a, b))],
  ] as const;
  for (const [name, op, ref] of ops) {
    it(`${name} matches the BigInt reference`, () => {
      const got = fq8(op, pa, pb);
      pa.forEach((x, i) => assert.equal(got[i], ref(x, pb[i]!), `${name} at a = ${x}, b = ${pb[i]} ${seedNote}`));
    });
  }

  it('a·b matches the scalar field (cuzk_field_op, standard form in and out)', () => {
    const std = (m: bigint) => F.mul(m, rInv);
    const out = new Uint8Array(32 * pa.length);
    fieldOp('bn128', FIELD.fq, FIELD_OP.mul, enc(pa.map(std)), enc(pb.map(std)), out, pa.length);
    const scalar = dec(out).map((x) => F.mul(x, 2n ** 256n)); // back to Montgomery images
    assert.deepEqual(fq8(2, pa, pb), scalar, seedNote);
  });

  // Fq2 keeps Karatsuba's products wide and adds 4p^2 to a0·b0 - a1·b1 (mont_ifma.hpp fp2_mul):
  // coefficients at 0, p - 1 and the limb edges make that difference most negative or largest.
  it('Fq2 a·b and (a + b)(a - b) match (a0·b0 − a1·b1, a0·b1 + a1·b0) on edge coefficients', () => {
    const pairs: [bigint, bigint][] = [];
    for (const x of edge) for (const y of edge) pairs.push([x, y]);
    const a: [bigint, bigint][] = [];
    const b: [bigint, bigint][] = [];
    for (const x of pairs) {
      for (let k = 0; k < 3; k++) (a.push(x), b.push(pairs[rng.u32() % pairs.length]!));
      a.push(x), b.push(x);
    }
    while (a.length % 8 !== 0) (a.push([rng.below(p), rng.below(p)]), b.push([rng.below(p), rng.below(p)]));
    const flat = (xs: [bigint, bigint][]) => xs.flat();
    const fq2mul = ([a0, a1]: [bigint, bigint], [b0, b1]: [bigint, bigint]) => [F.sub(mont(a0, b0), mont(a1, b1)), F.add(mont(a0, b1), mont(a1, b0))];
    const got = fq8(6, flat(a), flat(b));
    const gotSd = fq8(7, flat(a), flat(b));
    a.forEach((x, i) => {
      const y = b[i]!;
      assert.deepEqual(got.slice(2 * i, 2 * i + 2), fq2mul(x, y), `(${x})·(${y}) ${seedNote}`);
      const sum: [bigint, bigint] = [F.add(x[0], y[0]), F.add(x[1], y[1])];
      const dif: [bigint, bigint] = [F.sub(x[0], y[0]), F.sub(x[1], y[1])];
      assert.deepEqual(gotSd.slice(2 * i, 2 * i + 2), fq2mul(sum, dif), `(a + b)(a - b) at a = (${x}), b = (${y}) ${seedNote}`);
    });
  });

  it('refuses a count that is not a multiple of 8 and an input >= p', () => {
    const bad = (fn: () => unknown, part: string) =>
      assert.throws(fn, (e: unknown) => e instanceof CuzkError && e.code === 'E_INVALID_ARG' && e.message.includes(part));
    bad(() => fq8(2, [1n], [1n]), 'multiple of 8');
    bad(() => fq8(2, [p, ...Array(7).fill(1n)], Array(8).fill(1n)), 'not below p');
  });
});

// The flushes' one inversion per batch (native/field/inv_divsteps.hpp, on IFMA or not): the
// Montgomery image of a^-1 for the image x of a is R^2/x; 0 maps to 0.
describe('divsteps inversion (field/inv_divsteps.hpp)', () => {
  it('matches the BigInt inverse on edge images and random ones', () => {
    const xs = [...images(), ...Array.from({ length: 200 }, () => rng.below(p))];
    while (xs.length % 8 !== 0) xs.push(rng.below(p));
    const got = fq8(8, xs, xs);
    const R2 = F.mul(2n ** 256n, 2n ** 256n);
    xs.forEach((x, i) => assert.equal(got[i], x === 0n ? 0n : F.mul(R2, F.inv(x)), `inv(${x}) ${seedNote}`));
  });
});

describe('MSM batch-affine flush on IFMA lanes (BN254, 1 thread, 12-bit windows)', () => {
  const threads = getThreads();
  after(() => setThreads(threads));
  const { r } = MODULI.bn128;
  const n = 1 << 14; // choose_plan gives these 12-bit windows: batched affine buckets

  for (const group of ['g1', 'g2'] as const) {
    const G: RefGroup = refGroup('bn128', group);
    const points = (logs: bigint[]) => {
      const out = new Uint8Array(logs.length * G.bytes);
      batchMul('bn128', GROUP[group], G.toLem(G.base), enc(logs), logs.length, out);
      return out;
    };
    const check = (logs: bigint[], ks: bigint[], what: string) => {
      setThreads(1);
      const out = new Uint8Array(G.bytes);
      msm('bn128', GROUP[group], points(logs), enc(ks), ks.length, out);
      const sum = ks.reduce((s, k, i) => (s + (k % r) * logs[i]!) % r, 0n);
      assert.deepEqual(out, G.toLem(G.mul(G.base, sum)), `${group} ${what} ${seedNote}`);
    };

    it(`${group}: repeated, opposite and infinity points, random and 0 / 1 scalars`, () => {
      const base = rng.below(r);
      const logs = Array.from({ length: n }, (_, i) => (i % 5 === 0 ? 0n : i % 3 === 0 ? base : i % 7 === 0 ? r - base : rng.below(r)));
      const ks = Array.from({ length: n }, (_, i) => (i % 11 === 0 ? BigInt(i & 1) : rng.below(r)));
      check(logs, ks, 'mixed');
    });

    it(`${group}: one point with two scalars (every batch meets P + P)`, () => {
      const a = rng.below(r);
      const k2 = [rng.below(r), rng.below(r)];
      check(Array(n).fill(a), Array.from({ length: n }, (_, i) => k2[i & 1]!), 'one point');
    });
  }
});

describe('IFMA path selection', () => {
  // on Linux the CPU's flags are in /proc/cpuinfo, a second opinion beside the core's own cpuid check
  const cpuFlags = existsSync('/proc/cpuinfo') ? (/^flags\s*:(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? '') : undefined;
  it(forcedOff ? 'is off under CUZK_NO_IFMA=1' : 'is on exactly where the CPU has AVX-512 F, DQ, BW, VL and IFMA', () => {
    if (forcedOff) return assert.equal(ifma, false);
    assert.ok(cpuFlags !== undefined, 'no /proc/cpuinfo: cannot tell what this CPU has');
    const has = ['avx512f', 'avx512dq', 'avx512bw', 'avx512vl', 'avx512ifma'].every((f) => cpuFlags.split(/\s+/).includes(f));
    assert.equal(ifma, has, `CPU flags say IFMA ${has ? 'present' : 'absent'}, the core chose ${ifma ? 'IFMA' : 'the scalar path'}`);
  });

  const suites = ['ifma', 'msm'].map((s) => fileURLToPath(new URL(`./${s}.test.ts`, import.meta.url)));
  it('the MSM suites pass on the scalar flush too (child, CUZK_NO_IFMA=1)', { skip: forcedOff || !ifma }, () => {
    const r = runSuitesInChild(suites, { CUZK_NO_IFMA: '1', CUZK_TEST_SEED: String(rng.seed) });
    assert.equal(r.status, 0, `child with CUZK_NO_IFMA=1 failed:\n${r.failures}\n${r.stderr}`);
    assert.match(r.stdout, /^\s*ok \d+ - is off under CUZK_NO_IFMA=1$/m, 'the child did not run with the IFMA path off');
  });
});
