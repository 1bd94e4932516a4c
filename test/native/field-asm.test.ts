// The x86-64 mulx/adx field arithmetic (native/field/mont_x86.hpp) and the generic C++ it falls back
// to, on inputs whose Montgomery images, sums, differences and products land next to p or on limb
// boundaries (where a missed final subtraction or a lost carry shows), against the BigInt reference.
// On an ADX machine this file also runs the field, curve and MSM suites again in a child process
// with CUZK_NO_ASM=1, so every run checks both paths.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { FIELD, FIELD_OP, fieldImpl, fieldOp } from '../../src/ffi/native.js';
import { concat, fromLe, toLe } from '../helpers/lem.js';
import { MODULI, pow, primeField, type CurveName } from '../helpers/ref-field.js';
import { runSuitesInChild } from '../helpers/child-suites.js';
import { createRng } from '../helpers/rng.js';

const rng = createRng();
const seedNote = `(CUZK_TEST_SEED=${rng.seed})`;
const forcedGeneric = !!process.env.CUZK_NO_ASM && process.env.CUZK_NO_ASM !== '0';

interface Case {
  curve: CurveName;
  name: string;
  id: number;
  p: bigint;
  n8: number;
}

const CASES: Case[] = (['bn128', 'bls12381'] as const).flatMap((curve) => [
  { curve, name: 'fr', id: FIELD.fr, p: MODULI[curve].r, n8: MODULI[curve].n8r },
  { curve, name: 'fq', id: FIELD.fq, p: MODULI[curve].q, n8: MODULI[curve].n8q },
]);

// Montgomery images (the limbs the asm sees) worth hitting: 0, 1, 2, around p/2 and p, and around
// each 64-bit limb boundary below p.
function images(p: bigint, n8: number): bigint[] {
  const out = [0n, 1n, 2n, (p - 1n) / 2n, (p + 1n) / 2n, p - 2n, p - 1n];
  for (let bits = 64n; bits < BigInt(8 * n8); bits += 64n) {
    const b = 1n << bits;
    if (b < p) out.push(b - 1n, b, b + 1n, p - b);
  }
  return out;
}

function run(c: Case, op: number, a: bigint[], b: bigint[] | null): bigint[] {
  const enc = (xs: bigint[]) => concat(xs.map((x) => toLe(x, c.n8)));
  const out = new Uint8Array(a.length * c.n8);
  fieldOp(c.curve, c.id, op, enc(a), b ? enc(b) : null, out, a.length);
  return a.map((_, i) => fromLe(out, i * c.n8, c.n8));
}

for (const c of CASES) {
  describe(`field ops near p: ${c.curve} ${c.name} (${fieldImpl()})`, () => {
    const F = primeField(c.p);
    const rInv = pow(2n ** BigInt(8 * c.n8), c.p - 2n, c.p);
    // cuzk_field_op takes standard form: the element whose Montgomery image is |m| is m·R^-1.
    const std = (m: bigint) => F.mul(m, rInv);
    const edge = images(c.p, c.n8).map(std);
    const rand = () => rng.below(c.p);

    // every pair of edge images (a = b included), then pairs whose Montgomery product is an edge
    // image: a·b·R ≡ t, i.e. a = t·R^-1·b^-1 for a random b.
    const pa: bigint[] = [];
    const pb: bigint[] = [];
    for (const x of edge) for (const y of edge) (pa.push(x), pb.push(y));
    for (const t of images(c.p, c.n8)) {
      for (let k = 0; k < 4; k++) {
        const b = rand() || 1n;
        pa.push(F.mul(std(t), F.inv(b)));
        pb.push(b);
      }
    }

    const binary = [['add', FIELD_OP.add, F.add], ['sub', FIELD_OP.sub, F.sub], ['mul', FIELD_OP.mul, F.mul]] as const;
    for (const [name, op, f] of binary) {
      it(`${name} matches the reference`, () => {
        const got = run(c, op, pa, pb);
        pa.forEach((x, i) => assert.equal(got[i], f(x, pb[i]!), `${name}(${x}, ${pb[i]}) ${seedNote}`));
      });
    }
    it('sqr and neg match the reference', () => {
      const xs = [...edge, ...Array.from({ length: 16 }, rand)];
      const sq = run(c, FIELD_OP.sqr, xs, null);
      const ng = run(c, FIELD_OP.neg, xs, null);
      xs.forEach((x, i) => {
        assert.equal(sq[i], F.mul(x, x), `sqr(${x}) ${seedNote}`);
        assert.equal(ng[i], F.neg(x), `neg(${x}) ${seedNote}`);
      });
    });
  });
}

// Fq2 products: on BN254 the asm path keeps the three Karatsuba products at 512 bits and reduces
// twice (mont_x86.hpp fp2_mul4), so a0·b0 − a1·b1 below zero, and coefficients whose images sit at
// 0, p − 1 or a limb boundary, are where a wrong borrow or bound would show.
for (const curve of ['bn128', 'bls12381'] as const) {
  describe(`fq2 mul near p: ${curve} (${fieldImpl()})`, () => {
    const p = MODULI[curve].q;
    const n8 = MODULI[curve].n8q;
    const F = primeField(p);
    const rInv = pow(2n ** BigInt(8 * n8), p - 2n, p);
    const std = (m: bigint) => F.mul(m, rInv);
    const edge = images(p, n8).map(std);
    const pairs: [bigint, bigint][] = [];
    for (const x of edge) for (const y of edge) pairs.push([x, y]);
    it('matches (a0·b0 − a1·b1, a0·b1 + a1·b0) on edge coefficients', () => {
      const a: [bigint, bigint][] = [];
      const b: [bigint, bigint][] = [];
      for (const x of pairs) {
        for (let k = 0; k < 6; k++) (a.push(x), b.push(pairs[rng.u32() % pairs.length]!));
        a.push(x), b.push(x);
        a.push([rng.below(p), rng.below(p)]), b.push(x);
      }
      const enc = (xs: [bigint, bigint][]) => concat(xs.flatMap(([u, v]) => [toLe(u, n8), toLe(v, n8)]));
      const out = new Uint8Array(a.length * 2 * n8);
      fieldOp(curve, FIELD.fq2, FIELD_OP.mul, enc(a), enc(b), out, a.length);
      a.forEach(([a0, a1], i) => {
        const [b0, b1] = b[i]!;
        const want = [F.sub(F.mul(a0, b0), F.mul(a1, b1)), F.add(F.mul(a0, b1), F.mul(a1, b0))];
        const got = [fromLe(out, 2 * i * n8, n8), fromLe(out, (2 * i + 1) * n8, n8)];
        assert.deepEqual(got, want, `(${a0}, ${a1})·(${b0}, ${b1}) ${seedNote}`);
      });
    });
  });
}

// BMI2 and ADX as the kernel reports them (Linux x86-64; elsewhere the asm is not expected).
function cpuHasMulxAdx(): boolean {
  try {
    const flags = readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:(.*)$/m)?.[1]?.split(/\s+/) ?? [];
    return process.arch === 'x64' && flags.includes('bmi2') && flags.includes('adx');
  } catch {
    return false;
  }
}

describe('field arithmetic selection', () => {
  it('uses the asm where the CPU has BMI2 and ADX, and the generic path under CUZK_NO_ASM=1', () => {
    if (forcedGeneric) assert.equal(fieldImpl(), 'generic');
    else assert.equal(fieldImpl(), cpuHasMulxAdx() ? 'x86-64-adx' : 'generic');
  });

  const suites = ['field-asm', 'field', 'curve', 'msm'].map((s) => fileURLToPath(new URL(`./${s}.test.ts`, import.meta.url)));
  it('passes the field, curve and MSM suites on the generic path (child, CUZK_NO_ASM=1)', { skip: forcedGeneric || fieldImpl() === 'generic' }, () => {
    const r = runSuitesInChild(suites, { CUZK_NO_ASM: '1', CUZK_TEST_SEED: String(rng.seed) });
    assert.equal(r.status, 0, `child with CUZK_NO_ASM=1 failed:\n${r.failures}\n${r.stderr}`);
    const passed = Number(/^# pass (\d+)$/m.exec(r.stdout)?.[1] ?? 0);
    assert.ok(passed > 100, `child with CUZK_NO_ASM=1 ran only ${passed} tests:\n${r.stdout.slice(-2000)}`);
  });
});
