#!/usr/bin/env node
// What a compact witness encoding would save (issue #28): the values of .wtns files by size class
// (0 or 1, one byte, four, eight, more: full width), and the bytes of two encodings against the
// file's: "bitmap" (one bit per value, 0/1 values in the bitmap, the others full width) and
// "varlen" (a 2-bit class per value: 0/1, 8 bytes, full width; the 8-byte values as 8 bytes).
// Usage: node scripts/measure-witness-values.mjs file.wtns...
import { readFileSync } from 'node:fs';

for (const file of process.argv.slice(2)) {
  const b = readFileSync(file);
  // .wtns: "wtns", version, nSections; section 1 (n8, prime, nWitness), section 2 (values, n8 each)
  let o = 12;
  let n8 = 0;
  let nWitness = 0;
  let values = 0;
  for (let s = 0; s < b.readUInt32LE(8); s++) {
    const type = b.readUInt32LE(o);
    const size = Number(b.readBigUInt64LE(o + 4));
    if (type === 1) {
      n8 = b.readUInt32LE(o + 12);
      nWitness = b.readUInt32LE(o + 12 + 4 + n8);
    }
    if (type === 2) values = o + 12;
    o += 12 + size;
  }
  const classes = { zeroOrOne: 0, byte: 0, u32: 0, u64: 0, full: 0 };
  for (let i = 0; i < nWitness; i++) {
    const v = b.subarray(values + i * n8, values + (i + 1) * n8);
    let top = n8 - 1;
    while (top >= 0 && v[top] === 0) top--;
    const bytes = top + 1;
    if (bytes === 0 || (bytes === 1 && v[0] === 1)) classes.zeroOrOne++;
    else if (bytes <= 1) classes.byte++;
    else if (bytes <= 4) classes.u32++;
    else if (bytes <= 8) classes.u64++;
    else classes.full++;
  }
  const raw = nWitness * n8;
  const bitmap = Math.ceil(nWitness / 8) + (nWitness - classes.zeroOrOne) * n8;
  const varlen = Math.ceil(nWitness / 4) + (classes.byte + classes.u32 + classes.u64) * 8 + classes.full * n8;
  const pct = (x) => `${((100 * x) / nWitness).toFixed(1)}%`;
  console.log(`${file}: ${nWitness} values of ${n8} bytes (${(raw / 2 ** 20).toFixed(1)} MiB)`);
  console.log(`  0/1 ${pct(classes.zeroOrOne)}  <2^8 ${pct(classes.byte)}  <2^32 ${pct(classes.u32)}  <2^64 ${pct(classes.u64)}  full width ${pct(classes.full)}`);
  console.log(`  bitmap encoding ${(bitmap / raw).toFixed(3)}x the values' bytes, varlen ${(varlen / raw).toFixed(3)}x`);
}
