// A zkey with a real key's layout and sizes but no ceremony: BN254, one public input, nVars =
// domainSize = 2^lg, 3 coefficient records per constraint, every point a generator (on its curve,
// in its subgroup, so the load-time checks run in full), written in constant memory. For measuring
// a key load (`npm run bench -- key-load`) at sizes whose dev-setup takes long (2^24: ~9 GB); it
// cannot prove anything.
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { BinWriter } from '../src/dev/bin-writer.js';
import { writeZkeyHeader } from '../src/dev/dev-setup.js';
import { generatorBytes } from '../src/dev/generators.js';
import { curveByName } from '../src/formats/curves.js';
import { bigintToLe } from '../src/formats/lem.js';

const RECORDS_PER_CONSTRAINT = 3;
const BLOCK_BYTES = 8 << 20;

function repeated(item: Uint8Array, bytes: number): Uint8Array {
  const out = new Uint8Array(bytes - (bytes % item.length));
  for (let o = 0; o < out.length; o += item.length) out.set(item, o);
  return out;
}

function points(zk: BinWriter, type: number, item: Uint8Array, count: number): void {
  const block = repeated(item, BLOCK_BYTES);
  const perBlock = block.length / item.length;
  zk.beginSection(type);
  for (let left = count; left > 0; left -= perBlock) zk.write(left >= perBlock ? block : block.subarray(0, left * item.length));
  zk.endSection();
}

/** Writes (once) `<dir>/synthetic-bn128-2_<lg>.zkey` and returns its path. */
export function syntheticZkey(dir: string, lg: number, log: (s: string) => void): string {
  const out = path.join(dir, `synthetic-bn128-2_${lg}.zkey`);
  if (existsSync(out)) return out;
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  const curve = curveByName('bn128')!;
  const gen = generatorBytes(curve);
  const n = 2 ** lg;
  const nPublic = 1;
  const zk = BinWriter.create(`${out}.partial`, 'zkey', 1, 9);
  try {
    writeZkeyHeader(zk, curve, { nVars: n, nPublic, domainSize: n }, [gen.g1, gen.g1, gen.g2, gen.g2, gen.g1, gen.g2]);
    points(zk, 3, gen.g1, nPublic + 1); // IC
    const one = bigintToLe((1n << 512n) % curve.r, 32); // 1 as snarkjs stores it (v·R² mod r)
    zk.beginSection(4);
    zk.u32(n * RECORDS_PER_CONSTRAINT);
    for (let c = 0; c < n; c++) {
      for (let k = 0; k < RECORDS_PER_CONSTRAINT; k++) {
        const o = zk.reserve(44);
        zk.view.setUint32(o, k & 1, true);
        zk.view.setUint32(o + 4, c, true);
        zk.view.setUint32(o + 8, (c * 7 + k) % n, true);
        zk.buffer.set(one, o + 12);
        zk.advance(44);
      }
    }
    zk.endSection();
    points(zk, 5, gen.g1, n); // A
    points(zk, 6, gen.g1, n); // B1
    points(zk, 7, gen.g2, n); // B2
    points(zk, 8, gen.g1, n - nPublic - 1); // C
    points(zk, 9, gen.g1, n); // H
    zk.close();
  } catch (err) {
    zk.abort();
    throw err;
  }
  renameSync(`${out}.partial`, out);
  log(`synthetic zkey 2^${lg} written in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${out}`);
  return out;
}
