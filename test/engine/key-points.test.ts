// A key's points are checked when it is loaded: one flipped bit in any point section (section 2's
// alpha1 ... delta2, IC, A, B1, B2, C, H) of a test-vector zkey is E_FORMAT naming the file, the
// section and the point, before any proof (the CLI: one line, exit 2, not a witness blamed); a
// coordinate not below q is caught too, and the untouched keys load.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ProvingKey } from '../../src/engine/proving-key.js';
import { curveByName } from '../../src/formats/curves.js';
import { ZkeyFile } from '../../src/formats/zkey.js';
import { runCli } from '../helpers/capture.js';
import { vectorFile, vectorSets, type VectorSet } from '../helpers/vectors.js';

const sets = vectorSets();
const bn = sets.find((s) => s.curve === 'bn128' && s.circuit === 'poseidon')!;
const bls = sets.find((s) => s.curve === 'bls12381' && s.circuit === 'multiplier')!;
let dir: string;
before(() => void (dir = mkdtempSync(path.join(tmpdir(), 'cuzk-keypoints-'))));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Byte offsets of point `index` in each point section of `set`'s zkey, with the section number. */
function pointOffsets(set: VectorSet, index: number): [string, number, number][] {
  const z = ZkeyFile.open(vectorFile(set, 'circuit.zkey'));
  try {
    const h = z.header;
    const g1 = 2 * h.n8q;
    const g2 = 4 * h.n8q;
    const s = h.sections;
    // section 2: n8q, q, n8r, r, nVars, nPublic, domainSize, then alpha1 beta1 beta2 gamma2 delta1 delta2
    const vk0 = s.groth16.offset + 4 + h.n8q + 4 + h.n8r + 12;
    const header: [string, number, number][] = [['alpha1', vk0, 2], ['beta1', vk0 + g1, 2], ['beta2', vk0 + 2 * g1, 2], ['gamma2', vk0 + 2 * g1 + g2, 2], ['delta1', vk0 + 2 * g1 + 2 * g2, 2], ['delta2', vk0 + 3 * g1 + 2 * g2, 2]];
    const big = (['IC', 'A', 'B1', 'B2', 'C', 'H'] as const).map((n): [string, number, number] => [n, s[n].offset + index * (n === 'B2' ? g2 : g1), s[n].type]);
    return [...header, ...big];
  } finally {
    z.close();
  }
}

function corrupt(set: VectorSet, name: string, at: number, change: (b: Buffer, at: number) => void): string {
  const bytes = Buffer.from(readFileSync(vectorFile(set, 'circuit.zkey')));
  change(bytes, at);
  const out = path.join(dir, `${set.curve}-${name}.zkey`);
  writeFileSync(out, bytes);
  return out;
}

const flipLowBit = (b: Buffer, at: number) => void (b[at] = b[at]! ^ 1);

describe('zkey points checked at load', () => {
  for (const set of [bn, bls]) {
    it(`a flipped bit in each point section is E_FORMAT naming file, section and point (${set.curve})`, async () => {
      for (const [name, at, section] of pointOffsets(set, 1)) {
        const file = corrupt(set, name, at, flipLowBit);
        await assert.rejects(ProvingKey.load(file), (err: Error & { code?: string }) => {
          assert.equal(err.code, 'E_FORMAT', `${name}: ${err.message}`);
          const point = section === 2 ? 'the point' : 'point 1';
          assert.ok(err.message.startsWith(`${file}: zkey section ${section} (${name}): ${point} is not on the curve`), err.message);
          return true;
        });
      }
    });
  }

  it('a coordinate not below q is named too', async () => {
    const [, at] = pointOffsets(bn, 2).find(([n]) => n === 'H')!;
    const file = corrupt(bn, 'Hq', at, (b, o) => b.fill(0xff, o, o + 32));
    await assert.rejects(ProvingKey.load(file), /zkey section 9 \(H\): point 2 has a coordinate not below q/);
  });

  it('an alpha1 on the curve but outside the r-torsion (BLS12-381 G1, cofactor > 1) is named', async () => {
    const q = curveByName('bls12381')!.q;
    const pow = (b: bigint, e: bigint) => { let r = 1n; for (b %= q; e > 0n; e >>= 1n, b = (b * b) % q) if (e & 1n) r = (r * b) % q; return r; };
    let x = 1n;
    let y = 0n;
    for (; ; x++) { // y^2 = x^3 + 4; q = 3 mod 4, so a root is (x^3 + 4)^((q + 1) / 4) when one exists
      const rhs = (x * x * x + 4n) % q;
      y = pow(rhs, (q + 1n) / 4n);
      if ((y * y) % q === rhs) break;
    }
    const lem = (v: bigint) => { const m = (v * (1n << 384n)) % q; const b = Buffer.alloc(48); for (let i = 0; i < 48; i++) b[i] = Number((m >> BigInt(8 * i)) & 0xffn); return b; };
    const [, at] = pointOffsets(bls, 0).find(([n]) => n === 'alpha1')!;
    const file = corrupt(bls, 'alpha1-torsion', at, (b, o) => { lem(x).copy(b, o); lem(y).copy(b, o + 48); });
    await assert.rejects(ProvingKey.load(file), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'E_FORMAT');
      assert.ok(err.message.startsWith(`${file}: zkey section 2 (alpha1): the point is not in the subgroup`), err.message);
      return true;
    });
  });

  it('the CLI: one line, exit 2, the key blamed (not the witness); the repro offset 116 too', async () => {
    const [, at] = pointOffsets(bn, 0).find(([n]) => n === 'B1')!;
    for (const file of [corrupt(bn, 'cliB1', at, flipLowBit), corrupt(bn, 'off116', 116, flipLowBit)]) {
      const r = await runCli(['prove', file, vectorFile(bn, 'witness.wtns'), path.join(dir, 'p.json'), path.join(dir, 'q.json')]);
      assert.equal(r.code, 2, r.stderr);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, new RegExp(`^cuzk: E_FORMAT: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
      assert.doesNotMatch(r.stderr, /witness/);
    }
  });

  it('with several bad sections, the first in file order is named (they are read and checked at once)', async () => {
    const offsets = pointOffsets(bn, 1);
    const at = (n: string) => offsets.find(([name]) => name === n)![1];
    for (const [first, later, section] of [['IC', 'H', 3], ['A', 'C', 5], ['B2', 'H', 7]] as const) {
      const file = corrupt(bn, `${first}-${later}`, at(first), (b, o) => {
        flipLowBit(b, o);
        flipLowBit(b, at(later));
      });
      await assert.rejects(ProvingKey.load(file), (err: Error) => {
        assert.ok(err.message.startsWith(`${file}: zkey section ${section} (${first}): point 1 is not on the curve`), err.message);
        return true;
      });
    }
  });

  it('the untouched vector keys load', async () => {
    for (const set of sets) (await ProvingKey.load(vectorFile(set, 'circuit.zkey'))).release();
  });
});
