// BigInt <-> byte images for tests: little-endian integers and snarkjs "LEM" (Montgomery) form,
// x·2^(8·n8) mod p. Independent of src/formats on purpose: the tests check the native core against it.

export function toLe(x: bigint, n8: number): Uint8Array {
  const out = new Uint8Array(n8);
  let v = x;
  for (let i = 0; i < n8; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  if (v !== 0n) throw new RangeError(`toLe: ${x} does not fit in ${n8} bytes`);
  return out;
}

export function fromLe(b: Uint8Array, offset = 0, n8 = b.length - offset): bigint {
  let v = 0n;
  for (let i = n8 - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[offset + i]);
  return v;
}

function modPow(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  let x = b % m;
  for (let k = e; k > 0n; k >>= 1n) {
    if (k & 1n) r = (r * x) % m;
    x = (x * x) % m;
  }
  return r;
}

/** x·R mod p with R = 2^(8·n8), as n8 little-endian bytes. */
export function toLem(x: bigint, p: bigint, n8: number): Uint8Array {
  return toLe(((x % p) << BigInt(8 * n8)) % p, n8);
}

const rInvCache = new Map<string, bigint>();

/** The integer whose LEM image is b[offset .. offset + n8). */
export function fromLem(b: Uint8Array, p: bigint, n8: number, offset = 0): bigint {
  const key = `${p}:${n8}`;
  let rInv = rInvCache.get(key);
  if (rInv === undefined) {
    rInv = modPow((1n << BigInt(8 * n8)) % p, p - 2n, p);
    rInvCache.set(key, rInv);
  }
  return (fromLe(b, offset, n8) * rInv) % p;
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
