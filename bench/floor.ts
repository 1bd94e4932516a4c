// The CPU arithmetic floor of one dense Groth16 proof: field multiplications of its 5 MSMs (Pippenger,
// best window, Jacobian costs from the EFD: mixed add 7M+4S, add 11M+5S, squares counted as
// multiplies; Fq2 multiply = 3 Fq multiplies) and its 7 NTTs, at this machine's measured multiply
// rate spread over all cores. A model, not a bound: real witnesses (many 0/1 scalars) go below it.
import { randomBytes } from 'node:crypto';
import { FIELD, FIELD_OP, fieldOp, sizesOf, type CurveName } from '../src/ffi/native.js';

const rateCache = new Map<string, number>();

/** ns per multiplication in `field`, one thread: cuzk_field_op MUL does 4 (2 to-Montgomery, 1 mul, 1 from). */
export function nsPerMul(curve: CurveName, field: number): number {
  const k = `${curve}/${field}`;
  const hit = rateCache.get(k);
  if (hit) return hit;
  const bytes = field === FIELD.fr ? 32 : sizesOf(curve).n8q;
  const n = 1 << 16;
  const a = randomBytes(bytes * n);
  for (let i = 0; i < n; i++) a[i * bytes + bytes - 1] = 0; // top byte 0: below the modulus
  const out = new Uint8Array(bytes * n);
  fieldOp(curve, field, FIELD_OP.mul, a, a, out, n);
  let best = Infinity;
  for (let rep = 0; rep < 5; rep++) {
    const t = process.hrtime.bigint();
    fieldOp(curve, field, FIELD_OP.mul, a, a, out, n);
    best = Math.min(best, Number(process.hrtime.bigint() - t));
  }
  // the op may run on several threads: this is wall time, so it is the all-core rate already
  const ns = best / (4 * n);
  rateCache.set(k, ns);
  return ns;
}

function pippengerMuls(n: number, fieldMulFactor: number): number {
  let best = Infinity;
  for (let c = 4; c <= 20; c++) {
    const windows = Math.ceil(254 / c);
    const cost = windows * (n * 11 + 2 ** (c - 1) * 2 * 16);
    best = Math.min(best, cost);
  }
  return best * fieldMulFactor;
}

/** Floor in ms for a proof whose domain is 2^lg with about 2^lg wires (dev-circuits are shaped so). */
export function cpuFloorMs(curve: CurveName, lg: number, _cores: number): number {
  const n = 2 ** lg;
  const fqMuls = 4 * pippengerMuls(n, 1) + pippengerMuls(n, 3);
  const frMuls = 6 * (n / 2) * lg + 5 * n;
  return (fqMuls * nsPerMul(curve, FIELD.fq) + frMuls * nsPerMul(curve, FIELD.fr)) / 1e6;
}
