// The H200's arithmetic floors, sppark's times and the CUDA issue's targets, copied from
// ../shared/perf/h200.md ("Arithmetic floors" and "The peer to beat", measured 2026-11 on this
// project's GPU machine) and issue 3 ("Benchmark"). A floor is a model: field multiplications at the
// measured multiply rate; the table gives ranges, and this file uses their midpoints. Sizes the
// table lacks are interpolated geometrically between (or extrapolated from) the nearest two.

export type GpuKernel = 'bn254-g1-msm' | 'bn254-g2-msm' | 'bls12381-g1-msm' | 'bn254-ntt' | 'bn254-groth16';

/** [low, high] ms by lg n (h200.md, "Arithmetic floors"; MSMs with XYZZ buckets, best window). */
const FLOORS_MS: Record<GpuKernel, Record<number, [number, number]>> = {
  'bn254-g1-msm': { 16: [0.4, 0.4], 20: [4.3, 4.9], 24: [56, 63] },
  'bn254-g2-msm': { 16: [1.1, 1.1], 20: [12, 13.7], 24: [156, 177] },
  'bls12381-g1-msm': { 16: [0.9, 0.9], 20: [9.6, 10.9], 24: [124, 141] },
  'bn254-ntt': { 20: [0.25, 0.28], 24: [4.7, 5.4] },
  'bn254-groth16': { 20: [31, 35], 24: [410, 470] },
};

/**
 * sppark on the same H200 (h200.md, "The peer to beat"), median ms, random scalars; from pinned host
 * memory where the table gives it (G1 MSMs), else with the inputs already in GPU memory.
 */
export const SPPARK_MS: Partial<Record<GpuKernel, Record<number, number>>> = {
  'bn254-g1-msm': { 16: 4.31, 20: 12.9, 22: 27.9, 24: 83.1 },
  'bn254-g2-msm': { 16: 5.76, 20: 24.6, 22: 64.2, 24: 208 },
  'bls12381-g1-msm': { 16: 6.86, 20: 20.3, 22: 54.4, 24: 169 },
  'bn254-ntt': { 16: 0.032, 20: 0.276, 22: 1.1, 24: 4.66 },
};

/** Pinned host → device copy rate (h200.md, "Host <-> device transfers"). */
export const PINNED_H2D_GB_PER_S = 55.3;

export interface Floor {
  ms: number;
  /** 'table': a size h200.md lists; 'model': interpolated or extrapolated here. */
  source: 'table' | 'model';
}

export function floorMs(kernel: GpuKernel, lg: number): Floor | undefined {
  const table = FLOORS_MS[kernel];
  const mid = (k: number) => (table[k]![0] + table[k]![1]) / 2;
  if (table[lg]) return { ms: mid(lg), source: 'table' };
  const lgs = Object.keys(table).map(Number).sort((a, b) => a - b);
  if (lgs.length < 2) return undefined;
  // the two nearest table sizes, on either side when there are such
  const below = lgs.filter((k) => k < lg).at(-1);
  const above = lgs.find((k) => k > lg);
  const [a, b] = below !== undefined && above !== undefined ? [below, above] : below === undefined ? [lgs[0]!, lgs[1]!] : [lgs.at(-2)!, lgs.at(-1)!];
  const ms = mid(a) * (mid(b) / mid(a)) ** ((lg - a) / (b - a));
  return { ms, source: 'model' };
}

export interface Target {
  what: string;
  /** Row of the bench table it reads. */
  row: 'bn254-g1-msm' | 'bn254-g2-msm' | 'bls12381-g1-msm' | 'bn254-ntt' | 'proof-wall' | 'proof-ntt' | 'h2d';
  lg: number;
  /** ms at most, or GB/s at least for 'h2d'. */
  limit: number;
}

/** Issue 10 ("ahead of sppark everywhere"): H200, BN254 unless said; proofs with the key resident. */
export const TARGETS: Target[] = [
  { what: 'BN254 G1 MSM 2^20 <= 10 ms', row: 'bn254-g1-msm', lg: 20, limit: 10 },
  { what: 'BN254 G1 MSM 2^24 <= 70 ms', row: 'bn254-g1-msm', lg: 24, limit: 70 },
  { what: 'BLS12-381 G1 MSM 2^24 <= 140 ms', row: 'bls12381-g1-msm', lg: 24, limit: 140 },
  { what: 'BN254 G2 MSM 2^24 <= 200 ms', row: 'bn254-g2-msm', lg: 24, limit: 200 },
  { what: 'BN254 NTT 2^24 <= 5 ms', row: 'bn254-ntt', lg: 24, limit: 5 },
  { what: 'the 7 NTTs of a 2^20 proof <= 5 ms', row: 'proof-ntt', lg: 20, limit: 5 },
  { what: 'Groth16 2^20 wall per proof <= 40 ms', row: 'proof-wall', lg: 20, limit: 40 },
  { what: 'Groth16 2^22 wall per proof <= 130 ms', row: 'proof-wall', lg: 22, limit: 130 },
  { what: 'Groth16 2^24 wall per proof <= 500 ms', row: 'proof-wall', lg: 24, limit: 500 },
  { what: 'H2D >= 45 GB/s (proof phase 2)', row: 'h2d', lg: 20, limit: 45 },
];
