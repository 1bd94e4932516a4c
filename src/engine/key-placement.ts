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

/** The sizes placeKey reads, from a zkey's header. */
export function keyShape(h: { n8q: number; nVars: number; nPublic: number; domainSize: number; nCoefs: number }): KeyShape {
  return { g1Bytes: 2 * h.n8q, g2Bytes: 4 * h.n8q, nVars: h.nVars, nPublic: h.nPublic, domainSize: h.domainSize, nCoefs: h.nCoefs };
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
  /** The sets read from host memory, and their cuzk.h bits (none for a resident key, also one whose
   * MSMs run chunked because it fits only beside a chunk's MSM scratch: chunkPoints > 0). */
  streamed: KeySet[];
  streamedBits: number;
  chunkPoints: number;
  chunkRecords: number;
  /** Device bytes uploaded once (fixed part and resident sets). */
  residentBytes: number;
  /** Device bytes of the staging rings, two (the witness side's, the main chain's), two slots each, at
   * their peak (one proof's at a time: they live in the device's compute region, which proofs take in turn). */
  stagingBytes: number;
  /** What the key reserves in 'gpu:N': residentBytes + stagingBytes, never more than the budget less a proof's scratch. */
  deviceBytes: number;
  /** What each proof reserves in 'gpu:N' beside the key: its vectors and MSM scratch (a chunk's when streamed). */
  scratchBytes: number;
  /** A proof's chunks (chunkCount; 0 resident): each costs a sort's fixed work and host synchronisations. */
  chunks: number;
  /** The whole key on the device (cuzk_gpu_key_bytes). */
  keyBytes: number;
  /** Page-locked host bytes the native core allocates for streamed coefficients (a second copy of
   * section 4 in the GPU layout, n_coefs × 36), reserved by the key cache. */
  hostBytes: number;
}

// The MSM's device scratch as native allocates it (msm/msm_gpu_digits.cuh msm_scalars and sort_digits,
// msm_gpu.cuh bucket_sums, msm_gpu_reduce.cuh window_sums), at its worst: every scalar above 1 (none
// dropped by the 0/1 split) and of the width that makes the most pairs. One MSM plan (the 0/1 split and
// each block's sorted pairs) is shared by the point sets over the same scalars (B2 and B1), whose bucket
// passes run one after the other on its stream.
const BLOCK_SCALARS = 2 ** 26;
const MSM_SLACK = 16 * 2 ** 20;  // CUB's small temporaries (selection, run lengths, scans) and rounding

/** The widest window of a streamed key's chunked MSMs (native msm_stream_gpu.cuh chunk_max_window). */
export const CHUNK_MAX_WINDOW = 16;

/** The window width native choose_window picks for m scalars of nbits bits (the same cost model), at most maxC. */
export function chooseWindow(m: number, nbits: number, maxC = 22): number {
  for (const pass of [0, 1]) {
    let best = 0;
    let bestCost = Infinity;
    for (let c = 4; c <= maxC; c++) {
      const nwin = Math.floor((nbits + c) / c);
      const top = nbits + 1 - (nwin - 1) * c;
      if (pass === 0 && top < 8 && top < c) continue;
      const cost = m * nwin * 13 + nwin * 2 ** (c - 1) * 50;
      if (cost < bestCost) { bestCost = cost; best = c; }
    }
    if (best) return best;
  }
  return 4;
}

/** The most accumulation chunks over `npairs` pairs (native accumulation_plan): chunks of 32 pairs at
 * least; the XYZZ kernel's plan aims at no more than 2^19 (max_xyzz_chunks), the batch-affine one runs
 * from 2^27 pairs (affine_min_pairs, both curves) at up to pairs / 32. */
function maxChunks(npairs: number): number {
  const byLength = Math.ceil(npairs / 32);
  return npairs >= 2 ** 27 ? byLength : Math.min(byLength, 2 ** 19);
}

/** Device bytes of one block's sorted pairs (sort_digits: keys and values, sorted in place by CUB's
 * double buffer, whose own temporaries are about a byte a pair) and of one point set's bucket pass over
 * them (buckets, the accumulation's chunk heads and tails, the reduction's levels), `xyzz` the bytes of
 * a bucket (4 coordinates). */
function blockBytes(mb: number, nbits: number, xyzz: number[], maxC: number): { pairs: number; buckets: number } {
  const c = chooseWindow(mb, nbits, maxC);
  const nwin = Math.floor((nbits + c) / c);
  const half = 2 ** (c - 1);
  const npairs = mb * nwin;
  const rmax = Math.min(npairs, nwin * half + 1);
  let levels = 0;
  for (let items = half, first = true; first || items > 1; first = false) {
    const per = Math.floor(items / Math.min(items, first ? 8 : 4));
    levels += 2 * nwin * per;
    items = per;
  }
  return {
    pairs: npairs * 17 + 12 * (rmax + 1),
    buckets: Math.max(...xyzz.map((x) => (nwin * half + 2 * maxChunks(npairs) + levels) * x)),
  };
}

/** Peak device bytes of an MSM over `count` scalars (one plan) and point sets whose buckets take
 * `xyzz` bytes each (B2 and B1: [8·n8q, 4·n8q]), at worst over the scalars (all above 1, any width),
 * its window at most `maxC` bits wide. */
export function msmScratchBytes(count: number, xyzz: number[], maxC = 22): number {
  if (count === 0) return 0;
  // pure and called for every proof (a placement per job: pipeline.ts placeOn), ~3 ms a call over its
  // 256 bit lengths: remembered (a process sees a few key shapes)
  const memo = `${count}:${xyzz.join(',')}:${maxC}`;
  const known = scratchMemo.get(memo);
  if (known !== undefined) return known;
  if (scratchMemo.size >= 4096) scratchMemo.clear();
  const bytes = worstMsmScratchBytes(count, xyzz, maxC);
  scratchMemo.set(memo, bytes);
  return bytes;
}
const scratchMemo = new Map<string, number>();

function worstMsmScratchBytes(count: number, xyzz: number[], maxC: number): number {
  let worst = 0;
  for (let nbits = 1; nbits <= 256; nbits++) {
    let pairs = 0;
    let buckets = 0;
    for (let b0 = 0; b0 < count; b0 += BLOCK_SCALARS) {
      const r = blockBytes(Math.min(BLOCK_SCALARS, count - b0), nbits, xyzz, maxC);
      pairs += r.pairs;
      buckets += r.buckets;  // every block's bucket pass is held until the MSM returns
    }
    worst = Math.max(worst, 14 * count + pairs + buckets);
  }
  return worst + MSM_SLACK;
}

/** Device bytes of the buckets a chunked MSM keeps over its chunks, one set of them per point set
 * (native msm_stream_gpu.cuh msm_sets, msm_gpu.cuh bucket_sum_t): the width is the first chunk's (at
 * most CHUNK_MAX_WINDOW bits, the widest when all of a chunk's scalars are above 1), the windows room
 * for 256-bit scalars, (256 + c) / c. */
export function keptBucketsBytes(chunkPoints: number, xyzz: number[]): number {
  if (chunkPoints === 0) return 0;
  return keptBuckets(chunkPoints) * xyzz.reduce((s, x) => s + x, 0);
}

/** The most buckets one set keeps over chunks of `chunkPoints`, at worst over the scalars' width;
 * remembered (placeKey runs per job and asks for a few chunk lengths: ~1.7 ms a placement otherwise). */
function keptBuckets(chunkPoints: number): number {
  const known = keptMemo.get(chunkPoints);
  if (known !== undefined) return known;
  let worst = 0;
  for (let nbits = 1; nbits <= 256; nbits++) {
    const c = chooseWindow(chunkPoints, nbits, CHUNK_MAX_WINDOW);
    worst = Math.max(worst, Math.floor((256 + c) / c) * 2 ** (c - 1));
  }
  if (keptMemo.size >= 4096) keptMemo.clear();
  keptMemo.set(chunkPoints, worst);
  return worst;
}
const keptMemo = new Map<number, number>();

/** A proof's own device buffers: A ‖ B, C, the transforms' scratch (then the H scalars), the witness. */
function proofVectorsBytes(domainSize: number, nVars: number): number {
  return 4 * domainSize * 32 + nVars * 32 + (64 << 20);
}

/** Device scratch of one phase-2 call with every set resident: its vectors, the witness side's largest
 * MSM (B2 and B1 over one plan, A, C) beside the main chain's H MSM (they run at once). `n8q`: bytes
 * of a base field element (32 BN254, 48 BLS12-381). */
export function deviceScratchBytes(domainSize: number, nVars: number, n8q = 32): number {
  return proofScratchBytes({ g1Bytes: 2 * n8q, g2Bytes: 4 * n8q, nVars, nPublic: 0, domainSize, nCoefs: 0 }, new Set(), 0);
}

/** Device scratch of one phase-2 call when `streamed` sets are read in chunks of `chunkPoints`
 * points: with any set streamed every MSM runs chunk by chunk (resident sets' too, native chunk_for),
 * each chunk's plan and bucket pass freed before the next, its window at most CHUNK_MAX_WINDOW bits,
 * beside the buckets each point set keeps over its chunks. */
export function proofScratchBytes(k: KeyShape, streamed: ReadonlySet<KeySet>, chunkPoints: number): number {
  const x1 = 2 * k.g1Bytes;  // a bucket: XYZZ, 4 coordinates
  const x2 = 2 * k.g2Bytes;
  const chunked = streamed.size > 0;
  const msm = (n: number, xyzz: number[]) => {
    if (!chunked) return msmScratchBytes(n, xyzz);
    const pts = Math.min(n, chunkPoints);
    return msmScratchBytes(pts, xyzz, CHUNK_MAX_WINDOW) + keptBucketsBytes(pts, xyzz);
  };
  const witness = Math.max(msm(k.nVars, [x2, x1]), msm(k.nVars, [x1]), msm(Math.max(0, k.nVars - k.nPublic - 1), [x1]));
  return proofVectorsBytes(k.domainSize, k.nVars) + witness + msm(k.domainSize, [x1]);
}

/** Points per chunk tried, largest first: per-chunk costs (a sort's fixed work, a bucket merge, a host
 * synchronisation) stay small from 2^20 on; smaller chunks only when nothing larger fits. */
const CHUNKS = [2 ** 22, 2 ** 21, 2 ** 20, 2 ** 19, 2 ** 18, 2 ** 17, 2 ** 16];
/** Measured pinned H2D rate (shared/perf/h200.md), and what a chunk of an MSM costs beyond its share of
 * the whole set's MSM, to weigh plans: a chunk's sort is that of a smaller MSM (its window narrower),
 * its accumulation runs short of threads, and it takes a host synchronisation (the window reduction is
 * once a set since session 18); H200 2026-12-02, 2^24 in chunks of 2^18: ~2.3 ms a chunk-MSM over the
 * resident proof then, so about 1 ms at the 2^20-2^22 chunks the plans pick (a synthesis chunk costs
 * next to nothing: not counted). */
const H2D_BYTES_PER_MS = 55e6;
const CHUNK_MS = 1;

/** The coefficient records' bytes in one staging slot: their wires, then (256-byte aligned) values. */
function coefSlotBytes(records: number): number {
  return Math.ceil((records * 4) / 256) * 256 + records * 32;
}

/** Peak staging bytes with `streamed` sets: one ring of two slots for each of the two streams that read
 * streamed sets one after another, each slot sized for the largest chunk it carries. The witness side
 * reads B2 and B1 (one chunk: both sets' points), then A, then C; the main chain the coefficients
 * (synthesis), then H. */
export function stagingBytes(k: KeyShape, streamed: ReadonlySet<KeySet>, chunkPoints: number, chunkRecords: number): number {
  const has = (set: KeySet, bytes: number) => (streamed.has(set) ? bytes : 0);
  const pts = (n: number) => Math.min(n, chunkPoints);
  const b = has('b1', pts(k.nVars) * k.g1Bytes) + has('b2', pts(k.nVars) * k.g2Bytes);
  const witness = Math.max(b, has('a', pts(k.nVars) * k.g1Bytes), has('c', pts(k.nVars) * k.g1Bytes));
  const main = Math.max(has('coefs', coefSlotBytes(Math.min(chunkRecords, k.nCoefs))), has('h', pts(k.domainSize) * k.g1Bytes));
  return 2 * witness + 2 * main;
}

/**
 * The placement of a key of shape `k` on a GPU whose budget is `budgetBytes`, one proof's device
 * scratch (scratchBytes: what each proof reserves beside the key) included; undefined when not even the
 * streamed working set (resident part, staging rings and scratch) fits, or when it does not fit resident
 * and `residency` is 'resident': such a key's proofs run on the CPU core. Streamed, every MSM runs in
 * chunks (a resident set's chunks are ranges of its device points), so a proof's MSM scratch is a
 * chunk's whatever stays resident; of the chunk lengths that fit, the plan with the least modelled
 * copy time (streamed bytes at the H2D rate plus a fixed cost per chunk) wins.
 */
export function placeKey(k: KeyShape, budgetBytes: number, opts: PlacementOptions = {}): KeyPlacement | undefined {
  const { fixed, sets } = keySetBytes(k);
  const keyBytes = fixed + RESIDENT_FIRST.reduce((s, n) => s + sets[n], 0);
  const residency = opts.residency ?? 'auto';
  const residentScratch = proofScratchBytes(k, new Set(), 0);
  if (residency !== 'streamed' && keyBytes + residentScratch <= budgetBytes) {
    return {
      mode: 'resident', streamed: [], streamedBits: 0, chunkPoints: 0, chunkRecords: 0, stagingBytes: 0, hostBytes: 0, chunks: 0,
      residentBytes: keyBytes, deviceBytes: keyBytes, keyBytes, scratchBytes: residentScratch,
    };
  }
  if (residency === 'resident') return undefined;
  const longest = Math.max(k.nVars, k.domainSize);
  // no chunk longer than needed: the first one that holds the longest set whole ends the list
  const oneChunk = CHUNKS.findIndex((c) => c < longest);
  const tried = opts.chunkPoints !== undefined ? [opts.chunkPoints] : oneChunk < 0 ? [CHUNKS[CHUNKS.length - 1]!] : CHUNKS.slice(Math.max(0, oneChunk - 1));
  const all = new Set<KeySet>(RESIDENT_FIRST);
  let best: KeyPlacement | undefined;
  let bestMs = Infinity;
  for (const chunkPoints of tried) {
    const chunkRecords = opts.chunkRecords ?? Math.max(2 ** 16, Math.floor((chunkPoints * k.g1Bytes) / 36));
    const scratch = proofScratchBytes(k, all, chunkPoints);
    const streamed = new Set<KeySet>(all);
    let resident = fixed;
    const fits = () => resident + stagingBytes(k, streamed, chunkPoints, chunkRecords) + scratch <= budgetBytes;
    if (!fits()) continue;
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
    const chunks = chunkCount(k, streamed, chunkPoints, chunkRecords);
    const ms = (keyBytes - resident) / H2D_BYTES_PER_MS + chunkCount(k, new Set(), chunkPoints, chunkRecords) * CHUNK_MS;
    if (ms >= bestMs) continue;
    bestMs = ms;
    const staging = stagingBytes(k, streamed, chunkPoints, chunkRecords);
    best = {
      // every set resident beside a chunk's scratch: resident, its MSMs chunked (native chunk_for)
      mode: list.length > 0 ? 'streamed' : 'resident',
      streamed: list,
      streamedBits: list.reduce((b, s) => b | KEY_SET_BITS[s], 0),
      chunkPoints,
      chunkRecords: streamed.has('coefs') ? chunkRecords : 0,
      chunks,
      residentBytes: resident,
      stagingBytes: staging,
      deviceBytes: resident + staging,
      keyBytes,
      scratchBytes: scratch,
      hostBytes: streamed.has('coefs') ? sets.coefs : 0,
    };
  }
  return best;
}

/** A proof's chunks when streamed: every MSM's (resident sets' too: they run chunked beside the
 * streamed ones; B2 and B1 share theirs) and, with streamed coefficients, synthesis's (about). */
export function chunkCount(k: KeyShape, streamed: ReadonlySet<KeySet>, chunkPoints: number, chunkRecords: number): number {
  const of = (n: number) => Math.ceil(n / chunkPoints);
  const coefs = streamed.has('coefs') ? Math.ceil(k.nCoefs / chunkRecords) : 0;
  return of(k.nVars) * 2 + of(Math.max(0, k.nVars - k.nPublic - 1)) + of(k.domainSize) + coefs;
}
