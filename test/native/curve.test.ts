// cuzk_curve_op against @noble/curves (test/helpers/ref-curve.ts) for G1 and G2 of both curves:
// add (incl. P+P, P+(-P), infinity on either side), dbl, neg, mul (0, 1, r-1, r, 2^256-1, random
// 256-bit), on_curve (incl. an off-curve point), and E_INVALID_ARG for a coordinate >= q.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CuzkError } from '../../src/errors.js';
import { CURVE_OP, GROUP, curveOp } from '../../src/ffi/native.js';
import { concat, fromLe, toLe, toLem } from '../helpers/lem.js';
import { refGroup, type GroupName, type RefGroup, type RefPoint } from '../helpers/ref-curve.js';
import { MODULI, type CurveName } from '../helpers/ref-field.js';
import { createRng } from '../helpers/rng.js';

const rng = createRng();
const seedNote = `(CUZK_TEST_SEED=${rng.seed})`;

function expectCode(fn: () => unknown, code: string, part: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CuzkError, `expected CuzkError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.ok(err.message.includes(part), `${JSON.stringify(err.message)} lacks ${JSON.stringify(part)}`);
    return true;
  });
}

function apply(G: RefGroup, op: number, a: RefPoint[], b: Uint8Array | null): RefPoint[] {
  const out = new Uint8Array(a.length * G.bytes);
  curveOp(G.curve, GROUP[G.group], op, concat(a.map(G.toLem)), b, out, a.length);
  return a.map((_, i) => G.fromLem(out, i * G.bytes));
}

function assertPoints(G: RefGroup, got: RefPoint[], want: RefPoint[], what: string): void {
  assert.equal(got.length, want.length);
  // byte images too: infinity must come back as all-zero bytes, coordinates canonical
  got.forEach((p, i) => assert.deepEqual(G.toLem(p), G.toLem(want[i]), `${what} #${i} ${seedNote}`));
}

for (const curve of ['bn128', 'bls12381'] as CurveName[]) {
  for (const group of ['g1', 'g2'] as GroupName[]) {
    describe(`cuzk_curve_op ${curve} ${group}`, () => {
      const G = refGroup(curve, group);
      const { r, q, n8q } = MODULI[curve];
      const pts = [G.base, ...Array.from({ length: 6 }, () => G.random(rng))];
      const P = pts[1];

      it('add matches noble, including P+P, P+(-P) and infinity', () => {
        const a = [...pts, P, P, G.zero, P, G.zero, pts[2]];
        const b = [...pts.slice(1), pts[0], P, G.neg(P), P, G.zero, G.zero, G.neg(pts[2])];
        const got = apply(G, CURVE_OP.add, a, concat(b.map(G.toLem)));
        assertPoints(G, got, a.map((x, i) => G.add(x, b[i])), 'add');
      });

      it('dbl and neg match noble, infinity stays infinity', () => {
        const a = [...pts, G.zero];
        assertPoints(G, apply(G, CURVE_OP.dbl, a, null), a.map(G.dbl), 'dbl');
        assertPoints(G, apply(G, CURVE_OP.neg, a, null), a.map(G.neg), 'neg');
      });

      it('mul matches noble for edge and random 256-bit scalars', () => {
        const ks = [0n, 1n, 2n, r - 1n, r, r + 1n, (1n << 256n) - 1n, rng.below(r), rng.below(1n << 256n)];
        const a = ks.map((_, i) => (i === 2 ? G.zero : pts[i % pts.length]));
        const got = apply(G, CURVE_OP.mul, a, concat(ks.map((k) => toLe(k, 32))));
        assertPoints(G, got, a.map((x, i) => G.mul(x, ks[i])), 'mul');
      });

      it('on_curve: 1 for points and infinity, 0 off the curve', () => {
        const good = concat([...pts, G.zero].map(G.toLem));
        const off = G.toLem(P).slice();
        // y + 1 (first y coefficient, as LEM: add R mod q)
        const yOff = G.bytes / 2;
        const y = fromLe(off, yOff, n8q);
        off.set(toLe((y + fromLe(toLem(1n, q, n8q))) % q, n8q), yOff);
        const out = new Uint8Array(pts.length + 2);
        curveOp(curve, GROUP[group], CURVE_OP.onCurve, concat([good, off]), null, out, pts.length + 2);
        assert.deepEqual([...out], [...Array(pts.length + 1).fill(1), 0]);
      });

      it('rejects a coordinate >= q with E_INVALID_ARG', () => {
        const bad = G.toLem(P).slice();
        bad.set(toLe(q, n8q), 0);
        const out = new Uint8Array(2 * G.bytes);
        expectCode(() => curveOp(curve, GROUP[group], CURVE_OP.dbl, concat([G.toLem(P), bad]), null, out, 2), 'E_INVALID_ARG', 'a[1]');
        expectCode(() => curveOp(curve, GROUP[group], CURVE_OP.add, G.toLem(P), bad, out, 1), 'E_INVALID_ARG', 'b[0]');
      });
    });
  }
}

describe('cuzk_curve_op argument errors', () => {
  it('rejects an unknown opcode, group or curve', () => {
    const a = new Uint8Array(256);
    const out = new Uint8Array(256);
    expectCode(() => curveOp('bn128', GROUP.g1, 42, a, a, out, 1), 'E_INVALID_ARG', 'unknown opcode');
    expectCode(() => curveOp('bn128', 3, CURVE_OP.neg, a, null, out, 1), 'E_INVALID_ARG', 'unknown group id 3');
  });
});
