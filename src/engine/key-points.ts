// The points of a zkey, checked when it is loaded: every point of sections 5-9 (A, B1, B2, C, H)
// canonical and on its curve (checked as they are read, with section 4's records), and the
// verification-key points (section 2's alpha1, beta1, beta2, gamma2, delta1, delta2 and section 3's
// IC) in their r-torsion subgroups too. A flipped bit in a key is then E_FORMAT naming the file, the
// section and the point, not a proof that fails to verify and blames the witness. The native core
// does the reading and the arithmetic, threaded and off the event loop.
import { getSystemErrorName } from 'node:util';
import { FormatError, InternalError } from '../errors.js';
import { coefRecordError, ZKEY_SECTION, zkeySectionLayout, type ZkeyBigSection, type ZkeyFile, type ZkeyHeader } from '../formats/zkey.js';
import { readFileChecked, type ReadCheck } from '../ffi/key-read.js';
import type { NativeBuffer } from '../ffi/native-buffer.js';
import { GROUP, pointsCheckAsync, sizesOf } from '../ffi/native.js';

/** The sections the native key holds: 4's coefficient records and the points of 5-9. */
export type NativeSection = Exclude<ZkeyBigSection, 'IC'>;

function defectError(h: ZkeyHeader, where: string, what: string, index: number | undefined, defect: string): FormatError {
  return new FormatError(`${h.path}: zkey ${where} (${what}): ${index === undefined ? 'the point' : `point ${index}`} ${defect}: the key file is corrupt (make or download it again)`);
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
    if (bad) throw defectError(h, all[i]!.where, all[i]!.name, all[i]!.name === 'IC' ? bad.index : undefined, bad.defect);
  });
}

const CHECK_OF: Readonly<Record<NativeSection, ReadCheck>> = { coefs: 'coefs', A: 'g1', B1: 'g1', B2: 'g2', C: 'g1', H: 'g1' };

/**
 * Sections 4-9 read from `file` into `into` (one buffer each, at least the section's bytes) and
 * checked in the same native pass: every point canonical and on the curve, every coefficient record
 * in range (zkey.ts's rules). Throws for the defect lowest in the file: FormatError naming file,
 * section and point or record; a file that shrank while it was read is FormatError too. `fresh`:
 * the buffers are fresh mappings (zeros, untouched), so holes of a sparse file are not copied.
 */
export async function readKeySections(file: ZkeyFile, into: ReadonlyMap<NativeSection, NativeBuffer>, opts: { fresh?: boolean } = {}): Promise<void> {
  const h = file.header;
  const fd = file.fd;
  if (fd === undefined) throw new InternalError('E_INTERNAL', `${h.path}: readKeySections needs a file, not an in-memory image`);
  const parts = [...into].map(([name, buf]) => ({ name, fileOffset: file.sectionPosition(name), bytes: file.sectionBytes(name), into: buf, check: CHECK_OF[name], zeroed: opts.fresh }));
  const found = await readFileChecked(fd, h.curve, h, parts);
  const rs = zkeySectionLayout(h, 'coefs').itemBytes; // the bad record alone is viewed: the section may be past 4 GiB
  let first: { at: number; err: Error } | undefined;
  found.forEach((d, i) => {
    if (!d) return;
    const p = parts[i]!;
    const at = d.kind === 'ended' || d.kind === 'io' ? d.at : p.fileOffset + d.index * zkeySectionLayout(h, p.name).itemBytes;
    if (first && first.at <= at) return;
    const err =
      d.kind === 'point' ? defectError(h, `section ${ZKEY_SECTION[p.name]}`, p.name, d.index, d.defect)
      : d.kind === 'record' ? coefRecordError(h, p.into.view(d.index * rs, rs), d.index, file.where('coefs'), d.index)
      : d.kind === 'ended' ? file.endedError(d.at)
      : new InternalError('E_INTERNAL', `${h.path}: read at byte ${d.at} failed: ${getSystemErrorName(-d.errno)}`);
    first = { at, err };
  });
  if (first) throw first.err;
}
