// Opens an .r1cs (reference §2.4) for dev-setup's one streaming pass (qap.ts): the header checked, section 2
// left on disk. formats/r1cs.ts's readR1cs holds the whole section plus a copy (≈ 4 GB at 2^24 constraints).

import { FormatError } from '../errors.js';
import { BinFile } from '../formats/binfile.js';
import { curveByR, describePrime, type CurveInfo } from '../formats/curves.js';
import { SectionCursor } from '../formats/section-cursor.js';

const N8 = 32;

export interface R1csInfo {
  readonly curve: CurveInfo;
  readonly nWires: number;
  readonly nPubOut: number;
  readonly nPubIn: number;
  readonly nPrvIn: number;
  readonly nConstraints: number;
}

export function openR1cs(path: string): { file: BinFile; info: R1csInfo } {
  const file = BinFile.open(path, { magic: 'r1cs', versions: [1] });
  try {
    const cur = new SectionCursor(file.readSection(1), file.where(1));
    const n8 = cur.u32('n8');
    if (n8 !== N8) throw cur.fail(`n8 is ${n8}, expected ${N8}`);
    const prime = cur.bigint(n8, 'prime');
    const curve = curveByR(prime);
    if (!curve) throw cur.fail(`prime is ${describePrime(prime)}, not the scalar field of BN254 or BLS12-381`);
    const info = {
      curve, nWires: cur.u32('nWires'), nPubOut: cur.u32('nPubOut'), nPubIn: cur.u32('nPubIn'), nPrvIn: cur.u32('nPrvIn'),
      nLabels: cur.u64('nLabels'), nConstraints: cur.u32('nConstraints'),
    };
    if (info.nPubOut + info.nPubIn + info.nPrvIn + 1 > info.nWires) {
      throw cur.fail(`nWires ${info.nWires} is below 1 + outputs + inputs`);
    }
    return { file, info };
  } catch (err) {
    file.close();
    throw err;
  }
}
