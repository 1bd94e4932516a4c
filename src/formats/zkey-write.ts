// Groth16 .zkey writer for tests and dev tools (synthetic keys for benches, corrupt keys for error tests).
// Writes the layout of reference §2.2 in `zkey new`'s section order 1,2,4,3,9,8,5,6,7,10 unless told otherwise;
// it checks sizes against the counts but not the math (points are taken as given).

import { InputError } from '../errors.js';
import { encodeBinFile, writeBinFile, type SectionInput } from './binfile.js';
import { curveByName, type CurveName } from './curves.js';
import { dataViewOf } from './field-check.js';
import { bigintToLe } from './lem.js';

export interface ZkeyInput {
  readonly curve: CurveName;
  readonly nVars: number;
  readonly nPublic: number;
  readonly domainSize: number;
  /** LEM point bytes (G1: 2·n8q, G2: 4·n8q). */
  readonly alpha1: Uint8Array;
  readonly beta1: Uint8Array;
  readonly beta2: Uint8Array;
  readonly gamma2: Uint8Array;
  readonly delta1: Uint8Array;
  readonly delta2: Uint8Array;
  readonly IC: Uint8Array;
  /** nCoefs × (12 + n8r) record bytes, e.g. from coefRecords(); the u32 count prefix is added here. */
  readonly coefs: Uint8Array;
  readonly A: Uint8Array;
  readonly B1: Uint8Array;
  readonly B2: Uint8Array;
  readonly C: Uint8Array;
  readonly H: Uint8Array;
  readonly contributions?: Uint8Array;
  /** Section types in on-disk order. */
  readonly order?: readonly number[];
}

export interface CoefRecord {
  readonly matrix: 0 | 1;
  readonly constraint: number;
  readonly signal: number;
  /** The plain coefficient; stored as value·R² mod r, R = 2^(8·n8r) (snarkjs's "double Montgomery"). */
  readonly value: bigint;
}

const NEW_ZKEY_ORDER = [1, 2, 4, 3, 9, 8, 5, 6, 7, 10];

export function coefRecords(curve: CurveName, records: readonly CoefRecord[]): Uint8Array {
  const info = curveByName(curve)!;
  const rs = 12 + info.n8r;
  const r2 = (1n << BigInt(16 * info.n8r)) % info.r;
  const out = new Uint8Array(records.length * rs);
  const v = dataViewOf(out);
  records.forEach((rec, i) => {
    v.setUint32(i * rs, rec.matrix, true);
    v.setUint32(i * rs + 4, rec.constraint, true);
    v.setUint32(i * rs + 8, rec.signal, true);
    bigintToLe((((rec.value % info.r) + info.r) % info.r) * r2 % info.r, info.n8r, out, i * rs + 12);
  });
  return out;
}

function zkeySections(z: ZkeyInput): SectionInput[] {
  const info = curveByName(z.curve);
  if (!info) throw new InputError('E_INVALID_ARG', `zkey curve ${JSON.stringify(z.curve)} is unknown`);
  const sG1 = 2 * info.n8q;
  const sG2 = 4 * info.n8q;
  const rs = 12 + info.n8r;
  const expect = (name: string, b: Uint8Array, n: number) => {
    if (b.length !== n) throw new InputError('E_INVALID_ARG', `zkey ${name}: expected ${n} bytes, got ${b.length}`);
  };
  [['alpha1', z.alpha1, sG1], ['beta1', z.beta1, sG1], ['delta1', z.delta1, sG1],
    ['beta2', z.beta2, sG2], ['gamma2', z.gamma2, sG2], ['delta2', z.delta2, sG2],
    ['IC', z.IC, (z.nPublic + 1) * sG1], ['A', z.A, z.nVars * sG1], ['B1', z.B1, z.nVars * sG1],
    ['B2', z.B2, z.nVars * sG2], ['C', z.C, (z.nVars - z.nPublic - 1) * sG1], ['H', z.H, z.domainSize * sG1],
  ].forEach(([name, b, n]) => expect(name as string, b as Uint8Array, n as number));
  if (z.coefs.length % rs !== 0) throw new InputError('E_INVALID_ARG', `zkey coefs: ${z.coefs.length} bytes is not a multiple of ${rs}`);

  const s1 = new Uint8Array(4);
  dataViewOf(s1).setUint32(0, 1, true);
  const s2 = new Uint8Array(4 + info.n8q + 4 + info.n8r + 12 + 3 * sG1 + 3 * sG2);
  const v2 = dataViewOf(s2);
  let p = 0;
  const u32 = (n: number) => {
    v2.setUint32(p, n, true);
    p += 4;
  };
  const put = (b: Uint8Array) => {
    s2.set(b, p);
    p += b.length;
  };
  u32(info.n8q);
  put(bigintToLe(info.q, info.n8q));
  u32(info.n8r);
  put(bigintToLe(info.r, info.n8r));
  [z.nVars, z.nPublic, z.domainSize].forEach(u32);
  [z.alpha1, z.beta1, z.beta2, z.gamma2, z.delta1, z.delta2].forEach(put);
  const s4 = new Uint8Array(4 + z.coefs.length);
  dataViewOf(s4).setUint32(0, z.coefs.length / rs, true);
  s4.set(z.coefs, 4);

  const byType = new Map<number, Uint8Array>([[1, s1], [2, s2], [3, z.IC], [4, s4], [5, z.A], [6, z.B1], [7, z.B2], [8, z.C], [9, z.H]]);
  if (z.contributions) byType.set(10, z.contributions);
  const order = z.order ?? NEW_ZKEY_ORDER.filter((t) => byType.has(t));
  return order.map((type) => ({ type, bytes: byType.get(type) ?? new Uint8Array(0) }));
}

export function encodeZkey(z: ZkeyInput): Uint8Array {
  return encodeBinFile('zkey', 1, zkeySections(z));
}

export function writeZkey(path: string, z: ZkeyInput): void {
  writeBinFile(path, 'zkey', 1, zkeySections(z));
}
