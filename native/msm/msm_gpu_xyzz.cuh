// The GPU MSM's bucket accumulation, step 3, its XYZZ kernel and what both kernels share (the batch-
// affine kernel: msm_gpu_affine.cuh; which runs: msm_gpu_accumulate.cuh). One thread per chunk of L
// consecutive sorted pairs (equal work per thread), then the buckets that cross chunks re-joined in
// log depth (a skewed bucket, all-equal scalars, may span thousands of chunks).
#pragma once
#include <algorithm>
#include <iterator>
#include <map>
#include <mutex>
#include <type_traits>

#include "msm_gpu_base.cuh"

namespace cuzk {
namespace msm_gpu {

// Chunk length L: every accumulation thread takes L consecutive sorted pairs, whatever buckets they
// belong to, so the threads of a warp do the same number of additions (one thread per bucket made
// a warp wait for its fullest bucket). Nearly every chunk ends inside a bucket (buckets hold
// ~m·nwin/2^(c-1)·nwin pairs), so there are about as many re-joins as chunks: L >= E / |threads| keeps
// the chunks to about |threads| (whole waves of the XYZZ kernel's resident threads; the batch-affine
// kernel's lanes × threads), so the join pass, a latency-bound one at 5-35% of the SMs (ncu, 8-17 ms of
// a 2^22-2^24 MSM at L = 32), stays small. |threads| 0: no such bound. L was held at sqrt(largest
// bucket) while the join was one thread's chain over the chunks a bucket spans; in log depth it need
// not be, and the bound cost threads (|sqrt_bound|: CUZK_GPU_CHUNK_SQRT, to measure it again).
static __global__ void plan_chunks_kernel(const uint32_t* maxc, const uint32_t* e_p, uint32_t threads,
                                          bool sqrt_bound, uint32_t* chunk_len) {
  uint32_t sq = sqrt_bound ? uint32_t(ceilf(sqrtf(float(*maxc)))) + 1 : 0;
  uint32_t spread = threads ? (*e_p + threads - 1) / threads : 0;
  *chunk_len = max(max(32u, sq), spread);
}

// The pairs of chunk t are keys/vals [t·L, min(t·L + L, E)). A run (bucket) wholly inside the chunk
// goes straight to its bucket; the chunk's first run, when it began in an earlier chunk, to heads[t];
// its last run, when it goes on into the next chunk, to tails[t] (also when it is the only run and
// began earlier: a "through" chunk, joined by the chunk where the run began).
// MIN_BLOCKS: blocks of 128 per SM that ptxas must fit (see accumulate_blocks_of's xyzz).
template <class DF, int MIN_BLOCKS>
__global__ void __launch_bounds__(128, MIN_BLOCKS) accumulate_kernel(const daffine_t<DF>* pts, const uint32_t* keys,
                                                         const uint32_t* vals, const uint32_t* e_p,
                                                         const uint32_t* chunk_len, dxyzz_t<DF>* buckets,
                                                         dxyzz_t<DF>* heads, dxyzz_t<DF>* tails) {
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x, E = *e_p, L = *chunk_len;
  size_t b = size_t(t) * L;
  if (b >= E) return;
  uint32_t e = uint32_t(min(b + L, size_t(E)));
  bool from_before = b > 0 && keys[b - 1] == keys[b];
  bool to_after = e < E && keys[e] == keys[e - 1];
  uint32_t cur = keys[b];
  bool first_run = true;
  dxyzz_t<DF> acc = dxyzz_t<DF>::infinity();
  for (uint32_t p = uint32_t(b); p < e; p++) {
    uint32_t k = keys[p], v = vals[p];
    if (k != cur) {
      if (first_run && from_before) heads[t] = acc;
      else buckets[cur] = acc;
      first_run = false;
      cur = k;
      acc = dxyzz_t<DF>::infinity();
    }
    const daffine_t<DF>& q = pts[v & ~sign_bit];
    if (!q.is_inf()) acc.add_affine(q.x, q.y, (v & sign_bit) != 0);
  }
  if (to_after) tails[t] = acc;
  else if (first_run && from_before) heads[t] = acc;
  else buckets[cur] = acc;
}

// The join, in log depth (a skewed bucket, the dev witness's small values or all-equal scalars, spans
// up to maxc / L chunks: one thread adding their tails one after another took 2.3 ms of each 2^21-point
// G2 chunk-MSM even with L held at sqrt(maxc)).
// A chunk is a member of a run when the run goes on from it into the next chunk (tails[t] holds a
// part of it); a run's members are the chunks t0..t1-1 before the chunk t1 it ends in (heads[t1] its
// last part). join_round_kernel, for strides s = 1, 2, 4, ..., 2^(R-1), in place: each member t with
// t mod 2s = 0 adds tails[t + s] when chunk t + s is a member of the same run (the readers, t + s mod 2s
// = s, are never written in that round). After R rounds tails[u] sums the members u..u + 2^k - 1 of
// its run, 2^k = min(u's largest power-of-two divisor, 2^R), so join_chunks_kernel walks a run in
// blocks of that size: at most ~2R + span / 2^R additions against span. A run of at most maxc pairs
// has at most ceil(maxc / L) members, so rounds of a stride past that return at once.
__device__ __forceinline__ uint32_t join_members_bound(const uint32_t* maxc, uint32_t L) { return (*maxc + L - 1) / L; }

// Chunk u is a member of the run |key| (begun before it): its pairs are all |key|'s, the run goes on.
__device__ __forceinline__ bool through_chunk(const uint32_t* keys, uint32_t E, uint32_t L, size_t u, uint32_t key) {
  size_t ub = u * L;
  if (ub >= E) return false;
  uint32_t ue = uint32_t(min(ub + L, size_t(E)));
  return keys[ub] == key && keys[ue - 1] == key && ue < E && keys[ue] == key;
}

// Round |r| of the join (stride s = 2^r): tails[t] += tails[t + s] for the members t = 0 mod 2s whose
// run has chunk t + s as a member too. Grid-stride over t = 2s·i.
template <class DF>
__global__ void __launch_bounds__(128) join_round_kernel(const uint32_t* keys, const uint32_t* e_p,
                                                         const uint32_t* chunk_len, const uint32_t* maxc, uint32_t r,
                                                         dxyzz_t<DF>* tails) {
  const uint32_t E = *e_p, L = *chunk_len;
  const size_t s = size_t(1) << r;
  if (s >= join_members_bound(maxc, L)) return;
  const size_t chunks = (size_t(E) + L - 1) / L;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; 2 * s * i < chunks; i += size_t(gridDim.x) * blockDim.x) {
    const size_t t = 2 * s * i;
    const uint32_t e = uint32_t(min((t + 1) * L, size_t(E)));
    if (e >= E || keys[e] != keys[e - 1]) continue;  // not a member
    if (!through_chunk(keys, E, L, t + s, keys[e - 1])) continue;
    dxyzz_t<DF> acc = tails[t];
    acc.add(tails[t + s]);
    tails[t] = acc;
  }
}

// The members tails[u] sums after the rounds: u's largest power-of-two divisor, at most |top| = 2^R
// (every power divides 0).
__device__ __forceinline__ size_t join_block(size_t u, size_t top) { return u ? min(u & (~u + 1), top) : top; }

// One thread per chunk whose last run goes on into the next chunk and began in this one (a run's
// first member t0): the run's bucket = its members' tails, in the blocks the |rounds| rounds summed,
// + the head of the chunk t1 its last pair is in (a binary search over at most maxc keys).
template <class DF>
__global__ void join_chunks_kernel(const uint32_t* keys, const uint32_t* e_p, const uint32_t* chunk_len,
                                   const uint32_t* maxc, uint32_t rounds, const dxyzz_t<DF>* heads,
                                   const dxyzz_t<DF>* tails, dxyzz_t<DF>* buckets) {
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x, E = *e_p, L = *chunk_len;
  size_t b = size_t(t) * L;
  if (b >= E) return;
  uint32_t e = uint32_t(min(b + L, size_t(E)));
  if (e >= E || keys[e] != keys[e - 1]) return;                          // no run goes on from here
  if (b > 0 && keys[b - 1] == keys[b] && keys[b] == keys[e - 1]) return;  // a through chunk
  const uint32_t key = keys[e - 1];
  // the run's last pair: keys[lo] == key, keys[hi] != key (or hi == E); a run is at most maxc long
  uint32_t lo = e - 1, hi = uint32_t(min(size_t(lo) + *maxc, size_t(E)));
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (keys[mid] == key) lo = mid;
    else hi = mid;
  }
  const size_t t1 = lo / L, top = size_t(1) << rounds;
  dxyzz_t<DF> acc = tails[t];
  for (size_t u = t + join_block(t, top); u < t1; u += join_block(u, top)) acc.add(tails[u]);
  acc.add(heads[t1]);
  buckets[key] = acc;
}

// The join's rounds for a block of |m| scalars over at most |max_chunks| chunks: a run has at most
// ceil(maxc / L) <= ceil(m / 32) members (maxc <= m, L >= 32), and no more than there are chunks, so
// 2^rounds at least that makes every run's walk ~2·rounds steps (the rounds past a pass's largest run
// return at once).
inline uint32_t join_rounds_for(size_t m, size_t max_chunks) {
  const size_t members = std::min((m + 31) / 32, max_chunks);
  uint32_t r = 0;
  while ((size_t(1) << r) < members) r++;
  return r;
}

// Threads of |kernel| (blocks of |block| threads) resident at once on the current device: its
// occupancy by registers and shared memory times the SMs. Cached per kernel (one GPU model per host).
template <class K>
uint32_t resident_threads(K kernel, int block) {
  static std::mutex mu;
  static std::map<const void*, uint32_t> cache;
  std::lock_guard<std::mutex> lk(mu);
  auto it = cache.find(reinterpret_cast<const void*>(kernel));
  if (it != cache.end()) return it->second;
  int blocks = 0;
  CUZK_CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, 0));
  uint32_t t = uint32_t(std::max(blocks, 1)) * uint32_t(block) * uint32_t(gpu_info().sm_count);
  cache.emplace(reinterpret_cast<const void*>(kernel), t);
  return t;
}

// Blocks of 128 per SM each accumulation kernel is compiled for, per field: `xyzz` for accumulate_kernel
// (below), `affine` for accumulate_affine_kernel (msm_gpu_affine.cuh); `*_initial` is what runs,
// the rest what gpu_selftest bench times beside it (benchmarks may set another choice; for the XYZZ
// kernel also CUZK_GPU_ACC_BLOCKS: gpu_tuning_t). The count bounds a kernel's registers (65536 per SM / (128 ·
// blocks)), so more warps hide the multiply chains' latency, at the price of spills when the bound is
// tight.
// XYZZ, with the Fq multiply a call (field/mont.cuh), ptxas (CUDA 13, sm_90): BN254 G1 162 registers
// unbounded, 124 at 4 blocks, 96 at 5 (a few bytes of spill); BN254 G2 188 unbounded, 168 at 3 (14
// bytes of spill); BLS12-381 G1 242 / 160 at 3. Measured (gpu_selftest bench, H200, 2^24 / 2^20 ms):
// BN254 G1 1 / 4 / 5 blocks 86.9 / 83.4 / 84.7 and 7.57 / 7.44 / 7.55; BN254 G2 1 / 3 255.1 / 266.0 and
// 22.9 / 23.7; BLS12-381 G1 1 / 3 179.8 / 171.2 and 15.4 / 14.8. (With the multiply inlined, G2 needed
// the bound: 437.7 unbounded against 328.6 at 3.) BLS12-381 G2 stays unbounded (603 against 637 ms at 3).
// Batch-affine: its sums live in local memory, so it needs fewer registers. ncu (2026-12-01, BN254 G1
// 2^24): stalled 47% on L1TEX (its local memory) at 16 warps per SM, DRAM 50% busy; yet more blocks lost
// (fewer registers, spills) and fewer won where a point is larger: H200 ms at 2^20 / 2^22 / 2^24 by
// blocks/SM, 32 lanes (64 on BN254 G1):
//   BN254 G1      b2 8.05 / 23.2 / 76.6    b4 8.18 / 22.2 / 71.6    b6 9.38 / 24.3 / 81.7
//   BLS12-381 G1  b2 15.7 / 47.8 / 159.8   b3 16.7 / 49.1 / 156.9   b4 18.2 / 52.6 / 158.4
//   BN254 G2      b2 20.4 / 58.5 / 198.5   b3 21.8 / 61.0 / 206.5   b4 23.8 / 66.8 / 218.6
//   BLS12-381 G2  b1 46.4 / 138.3 / 470.0  b2 46.2 / 138.1 / 470.3  b3 49.3 / 152.7 / 485.7
template <class DF>
struct accumulate_blocks_of {  // BLS12-381 G2
  static constexpr int xyzz[1] = {1};
  static constexpr int xyzz_initial = 1;
  static constexpr int affine[3] = {1, 2, 3};
  static constexpr int affine_initial = 2;
};
template <>
struct accumulate_blocks_of<dev::bn254_fq_t> {
  static constexpr int xyzz[3] = {1, 4, 5};
  static constexpr int xyzz_initial = 4;
  static constexpr int affine[3] = {2, 4, 6};
  static constexpr int affine_initial = 4;
};
template <>
struct accumulate_blocks_of<dev::bls12_381_fq_t> {
  static constexpr int xyzz[2] = {1, 3};
  static constexpr int xyzz_initial = 3;
  static constexpr int affine[3] = {2, 3, 4};
  static constexpr int affine_initial = 3;
};
template <>
struct accumulate_blocks_of<dev::bn254_fq2_t> {
  static constexpr int xyzz[2] = {1, 3};
  static constexpr int xyzz_initial = 1;
  static constexpr int affine[3] = {2, 3, 4};
  static constexpr int affine_initial = 2;
};
// A kernel's instantiation for |blocks| among the blocks/SM counts |C| it is compiled for (the last
// when none matches): pick(std::integral_constant<int, B>{}) names the kernel at B.
template <const auto& C, size_t I = 0, class Pick>
auto kernel_at_blocks(int blocks, Pick pick) {
  if constexpr (I + 1 < std::size(C)) {
    if (blocks != C[I]) return kernel_at_blocks<C, I + 1>(blocks, pick);
  }
  return pick(std::integral_constant<int, C[I]>{});
}
// The XYZZ kernel's blocks/SM in field DF: |tuning|.xyzz_blocks (CUZK_GPU_ACC_BLOCKS) where the field
// is compiled for it, else the field's xyzz_initial.
template <class DF>
int xyzz_blocks_for(const gpu_tuning_t& tuning) {
  for (int c : accumulate_blocks_of<DF>::xyzz)
    if (c == tuning.xyzz_blocks) return c;
  return accumulate_blocks_of<DF>::xyzz_initial;
}

// The XYZZ accumulation kernel compiled for |blocks| blocks per SM (one of accumulate_blocks_of<DF>::xyzz).
template <class DF>
auto accumulate_for(int blocks) {
  return kernel_at_blocks<accumulate_blocks_of<DF>::xyzz>(
      blocks, [](auto b) { return accumulate_kernel<DF, decltype(b)::value>; });
}

}  // namespace msm_gpu
}  // namespace cuzk
