// Where a proving key lives on one GPU: resident (every set uploaded once) when the key and a proof's
// scratch fit the GPU's budget, else streamed: the sets that fit stay resident, the rest are read by
// every proof from the key's page-locked host memory in chunks through a staging ring, each chunk's
// upload overlapped with the work on the chunk before (native key_gpu.cuh, chunk_ring_gpu.cuh). The
// native core does what the plan says (cuzk_gpu_key_upload's streamed sets and chunk lengths); the
// plan is made here, from the key's sizes and the budget alone, so it is one plain function.
import { InputError } from '../errors.js';

/** The sets a placement may stream, with their cuzk.h bits (CUZK_KEY_SET_*). */
export const KEY_SET_BITS = { a: 1, b1: 2, b2: 4, c: 8, h: 16, coefs: 32 } as const;
export type KeySet = keyof typeof KEY_SET_BITS;

/** Kept resident first, streamed first from the end: the coefficients are read by synthesis, the
 * cheapest work per byte (their upload would show whole on the main chain), then the witness MSMs'
 * sets, whose mostly 0/1 scalars make little work per point, G2's B2 (three times the work per point
 * of G1), and H last: its scalars are all full-width, so its accumulation hides its upload best. */
export const RESIDENT_FIRST: readonly KeySet[] = ['coefs', 'a', 'b1', 'c', 'b2', 'h'];

export type KeyResidency = 'auto' | 'resident' | 'streamed';

export interface KeyShape {
  /** Bytes of one affine G1 and G2 point on the device (the zkey's LEM sizes). */
  g1Bytes: number;
  g2Bytes: number;
  nVars: number;
  nPublic: number;
  domainSize: number;
  nCoefs: number;
}

export interface KeySetBytes {
  /** Always resident: the byte masks of A's and of B's points (a byte per wire each), and the
   * synthesis layout's row offsets and long-row list (at its largest). */
  fixed: number;
  sets: Record<KeySet, number>;
}

/** Device bytes of each set, as native gpu_key_bytes counts the whole (the sum is cuzk_gpu_key_bytes). */
export function keySetBytes(k: KeyShape): KeySetBytes {
  const rows = (2 * k.domainSize + 1) * 4 + Math.floor(k.nCoefs / 9) * 4;
  return {
    fixed: 2 * k.nVars + rows,
    sets: {
      a: k.nVars * k.g1Bytes,
      b1: k.nVars * k.g1Bytes,
      b2: k.nVars * k.g2Bytes,
      c: (k.nVars - k.nPublic - 1) * k.g1Bytes,
      h: k.domainSize * k.g1Bytes,
      coefs: k.nCoefs * 36,
    },
  };
}

export interface PlacementOptions {
  /** 'auto' (default): resident when it fits, else streamed; 'resident': never streamed (a key that
   * does not fit goes to the CPU core, as before streaming); 'streamed': streamed even when it fits
   * (every set, for tests and benchmarks of the streaming path). */
  residency?: KeyResidency;
  /** Points per chunk of a streamed point set (default: from the budget, 2^16..2^22). */
  chunkPoints?: number;
  /** Coefficient records per chunk (default: as many as chunkPoints G1 points take, 2^16 at least). */
  chunkRecords?: number;
}

/** E_INVALID_ARG naming the option unless `o` is well-formed (EngineConfig.gpu). */
export function checkPlacementOptions(o: PlacementOptions): void {
  if (o.residency !== undefined && !['auto', 'resident', 'streamed'].includes(o.residency)) {
    throw new InputError('E_INVALID_ARG', `gpu.keyResidency must be 'auto', 'resident' or 'streamed', not ${JSON.stringify(o.residency)}`);
  }
  for (const [name, v, max] of [['gpu.streamChunkPoints', o.chunkPoints, 2 ** 31 - 1], ['gpu.streamChunkRecords', o.chunkRecords, 2 ** 32 - 1]] as const) {
    if (v !== undefined && !(Number.isInteger(v) && v >= 1 && v <= max)) throw new InputError('E_INVALID_ARG', `${name} must be an integer in 1..${max}, not ${v}`);
  }
}

export interface KeyPlacement {
  mode: 'resident' | 'streamed';
  /** The sets read from host memory, and their cuzk.h bits. */
  streamed: KeySet[];
  streamedBits: number;
  chunkPoints: number;
  chunkRecords: number;
  /** Device bytes uploaded once (fixed part and resident sets). */
  residentBytes: number;
  /** Device bytes of the staging rings at their peak (one proof's at a time: they live in the
   * device's compute region, which proofs take in turn). */
  stagingBytes: number;
  /** What the key reserves in 'gpu:N': residentBytes + stagingBytes, never more than the budget less a proof's scratch. */
  deviceBytes: number;
  /** The whole key on the device (cuzk_gpu_key_bytes). */
  keyBytes: number;
  /** Page-locked host bytes the native core allocates for streamed coefficients (a second copy of
   * section 4 in the GPU layout, n_coefs × 36), reserved by the key cache. */
  hostBytes: number;
}

/** Device scratch of one phase-2 call: A, B, C, T vectors, the witness, and two concurrent MSMs. */
export function deviceScratchBytes(domainSize: number, nVars: number): number {
  return 4 * domainSize * 32 + nVars * 32 + 2 * (domainSize * 64 + nVars * 16) + (128 << 20);
}

const MIN_CHUNK = 2 ** 16;
const MAX_CHUNK = 2 ** 22;

/** Peak staging bytes with `streamed` sets: the witness side (B2 and B1 at once, then A, then C) beside
 * the main chain (the coefficients during synthesis, then H); two slots per streamed set. */
export function stagingBytes(k: KeyShape, streamed: ReadonlySet<KeySet>, chunkPoints: number, chunkRecords: number): number {
  const slots = (set: KeySet, bytes: number) => (streamed.has(set) ? 2 * bytes : 0);
  const g1 = chunkPoints * k.g1Bytes;
  const witness = Math.max(slots('b1', g1) + slots('b2', chunkPoints * k.g2Bytes), slots('a', g1), slots('c', g1));
  const main = Math.max(slots('coefs', Math.ceil((chunkRecords * 4) / 256) * 256 + chunkRecords * 32), slots('h', g1));
  return witness + main;
}

function pow2Floor(x: number): number {
  return x < 1 ? 0 : 2 ** Math.floor(Math.log2(x));
}

/**
 * The placement of a key of shape `k` on a GPU whose budget is `budgetBytes`, beside one proof's
 * device scratch `scratchBytes`; undefined when not even the streamed working set (resident part,
 * staging rings and scratch) fits, or when it does not fit resident and `residency` is 'resident':
 * such a key's proofs run on the CPU core.
 */
export function placeKey(k: KeyShape, budgetBytes: number, scratchBytes: number, opts: PlacementOptions = {}): KeyPlacement | undefined {
  const { fixed, sets } = keySetBytes(k);
  const keyBytes = fixed + RESIDENT_FIRST.reduce((s, n) => s + sets[n], 0);
  const room = budgetBytes - scratchBytes;
  const residency = opts.residency ?? 'auto';
  const none = { streamed: [], streamedBits: 0, chunkPoints: 0, chunkRecords: 0, stagingBytes: 0, hostBytes: 0 };
  if (residency !== 'streamed' && keyBytes <= room) return { mode: 'resident', ...none, residentBytes: keyBytes, deviceBytes: keyBytes, keyBytes };
  if (residency === 'resident') return undefined;
  const longest = Math.max(k.nVars, k.domainSize);
  // chunks from the budget: the largest power of two whose rings, every set streamed, take at most a
  // quarter of the room (fewer chunks: fewer per-chunk sorts and syncs), none longer than the sets
  const all = new Set<KeySet>(RESIDENT_FIRST);
  let chunkPoints = opts.chunkPoints ?? Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, pow2Floor(longest)));
  const recordsFor = (points: number) => opts.chunkRecords ?? Math.max(MIN_CHUNK, Math.floor((points * k.g1Bytes) / 36));
  if (opts.chunkPoints === undefined) {
    while (chunkPoints > MIN_CHUNK && stagingBytes(k, all, chunkPoints, recordsFor(chunkPoints)) > (room - fixed) / 4) chunkPoints /= 2;
  }
  const chunkRecords = recordsFor(chunkPoints);
  const streamed = new Set<KeySet>(all);
  let resident = fixed;
  const fits = () => resident + stagingBytes(k, streamed, chunkPoints, chunkRecords) <= room;
  if (!fits()) return undefined;
  if (residency === 'auto') {
    for (const set of RESIDENT_FIRST) {
      streamed.delete(set);
      resident += sets[set];
      if (fits()) continue;
      streamed.add(set);
      resident -= sets[set];
    }
  }
  const list = RESIDENT_FIRST.filter((s) => streamed.has(s));
  const staging = stagingBytes(k, streamed, chunkPoints, chunkRecords);
  return {
    mode: 'streamed',
    streamed: list,
    streamedBits: list.reduce((b, s) => b | KEY_SET_BITS[s], 0),
    chunkPoints,
    chunkRecords: streamed.has('coefs') ? chunkRecords : 0,
    residentBytes: resident,
    stagingBytes: staging,
    deviceBytes: resident + staging,
    keyBytes,
    hostBytes: streamed.has('coefs') ? sets.coefs : 0,
  };
}
