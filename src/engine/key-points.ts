// The points of a zkey, checked when it is loaded: every point of sections 5-9 (A, B1, B2, C, H)
// canonical and on its curve, and the verification-key points (section 2's alpha1, beta1, beta2,
// gamma2, delta1, delta2 and section 3's IC) in their r-torsion subgroups too. A flipped bit in a key
// is then E_FORMAT naming the file, the section and the point, not a proof that fails to verify and
// blames the witness. The native core does the arithmetic, threaded and off the event loop.
import { FormatError } from '../errors.js';
import { ZKEY_SECTION, type ZkeyBigSection, type ZkeyHeader } from '../formats/zkey.js';
import { GROUP, pointsCheckAsync, sizesOf } from '../ffi/native.js';

export type PointSection = Exclude<ZkeyBigSection, 'coefs'>;
const G2_SECTIONS: readonly PointSection[] = ['B2'];

function fail(h: ZkeyHeader, where: string, what: string, index: number | undefined, defect: string): never {
  throw new FormatError(`${h.path}: zkey ${where} (${what}): ${index === undefined ? 'the point' : `point ${index}`} ${defect}: the key file is corrupt (make or download it again)`);
}

/** Section 2's points and section 3's IC, each in its subgroup; `ic` as read from the file. All at once; the first bad one in file order is named. */
export async function checkVerificationKeyPoints(h: ZkeyHeader, ic: Uint8Array): Promise<void> {
  const g1 = sizesOf(h.curve).g1;
  const points = (['alpha1', 'beta1', 'beta2', 'gamma2', 'delta1', 'delta2'] as const).map((name) => {
    const group = name.endsWith('2') ? GROUP.g2 : GROUP.g1;
    return { where: `section ${ZKEY_SECTION.groth16}`, name, check: pointsCheckAsync(h.curve, group, h[name], 1, true) };
  });
  const all = [...points, { where: `section ${ZKEY_SECTION.IC}`, name: 'IC', check: pointsCheckAsync(h.curve, GROUP.g1, ic, ic.byteLength / g1, true) }];
  const results = await Promise.all(all.map((p) => p.check));
  results.forEach((bad, i) => {
    if (bad) fail(h, all[i]!.where, all[i]!.name, all[i]!.name === 'IC' ? bad.index : undefined, bad.defect);
  });
}

/** One of sections 5-9 as loaded (`bytes` at least the section's points): canonical and on the curve. */
export async function checkSectionPoints(h: ZkeyHeader, name: PointSection, bytes: Uint8Array, sectionBytes: number): Promise<void> {
  const z = sizesOf(h.curve);
  const g2 = G2_SECTIONS.includes(name);
  const n = sectionBytes / (g2 ? z.g2 : z.g1);
  const bad = await pointsCheckAsync(h.curve, g2 ? GROUP.g2 : GROUP.g1, bytes, n, false);
  if (bad) fail(h, `section ${ZKEY_SECTION[name]}`, name, bad.index, bad.defect);
}
