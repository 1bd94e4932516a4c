// GPU multi-scalar multiplication: Pippenger with signed c-bit windows and XYZZ buckets.
// 1. classify (scalars only): scalars 0 are dropped, scalars 1 summed by a plain reduction, the rest
//    compacted (supraseal's 0/1 split: Groth16 witnesses are mostly 0/1); infinity points are skipped
//    where points are added, so steps 1-2 need no points and overlap their upload (msm_gpu_host).
// 2. digits -> (bucket, point|sign) pairs, CUB radix sort by bucket, run-length encode.
// 3. accumulation: one thread per chunk of L consecutive sorted pairs (equal work per thread; L >= sqrt
//    of the largest bucket, so a skewed bucket - all-equal scalars - is re-joined in <= L steps).
// 4. reduction on the GPU, per window sum_b (b+1)·B_b, in levels of K items per thread (see
//    reduce_level_kernel); the c-bit window combination (Horner) and the 1-sum finish on the host.
#pragma once
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <type_traits>
#include <vector>

#include "../curve/dev.cuh"
#include "../util/gpu.hpp"

namespace cuzk {
namespace msm_gpu {

using dev::daffine_t;
using dev::dxyzz_t;
// Kernels are templates over DF, the device field of the point coordinates (Fq or Fq2).

constexpr uint32_t sign_bit = 1u << 31;
constexpr size_t block_scalars = size_t(1) << 26;  // keeps pairs = m·nwin below 2^32

template <class X>
__device__ __forceinline__ void block_reduce(X acc, X* sm, X* out) {
  sm[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      X a = sm[threadIdx.x];
      a.add(sm[threadIdx.x + s]);
      sm[threadIdx.x] = a;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = sm[0];
}

// Flags and the largest bit length among the scalars that need the bucket method. From the scalars
// alone when |present| is null (infinity points are then skipped where points are added), so the
// classification, digits and sort can run while the points are still being uploaded; with |present|
// (a byte per point, 0 for infinity: resident keys have one) such points are dropped here, because a
// pair whose point is infinity still costs its warp a whole addition slot in the accumulation (its
// neighbours add) - ~22% of a dev key's A and B points, most of B in real circuits.
static __global__ void classify_kernel(const uint4* scalars, const uint8_t* present, uint32_t n, uint8_t* is_big,
                                       uint8_t* is_one, uint32_t* iota, uint32_t* maxbits) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t bits = 0;
  if (i < n) {
    uint4 lo = scalars[2 * size_t(i)], hi = scalars[2 * size_t(i) + 1];
    uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    uint32_t rest = w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7];
    bool zero = (w[0] | rest) == 0 || (present && !present[i]), one = !zero && w[0] == 1 && rest == 0;
    bool big = !zero && !one;
    is_big[i] = big;
    is_one[i] = one;
    iota[i] = i;
    if (big) {
#pragma unroll
      for (int k = 7; k >= 0; k--)
        if (w[k] && !bits) bits = 32 * k + 32 - __clz(w[k]);
    }
  }
  for (int o = 16; o > 0; o >>= 1) bits = max(bits, __shfl_xor_sync(0xffffffffu, bits, o));
  if ((threadIdx.x & 31) == 0 && bits) atomicMax(maxbits, bits);
}

// present[i] |= pts[i] is not infinity (a resident key's mask of the points that count, see classify_kernel).
template <class DF>
__global__ void mark_present_kernel(const daffine_t<DF>* pts, uint32_t n, uint8_t* present) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && !pts[i].is_inf()) present[i] = 1;
}

// Signed recoding (as msm/pippenger_cpu.hpp recode): window w of scalar idx[k] goes to pair w·m + k;
// zero digits get the sentinel key, which sorts last and is dropped.
static __global__ void digits_kernel(const uint32_t* scalars, const uint32_t* idx, uint32_t m, uint32_t c,
                              uint32_t nwin, uint32_t* keys, uint32_t* vals) {
  uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= m) return;
  uint32_t i = idx[k];
  const uint32_t* s = scalars + 8 * size_t(i);
  uint32_t half = 1u << (c - 1), mask = (1u << c) - 1, carry = 0, sentinel = nwin * half;
  for (uint32_t w = 0; w < nwin; w++) {
    uint32_t off = w * c, wi = off >> 5, sh = off & 31;
    uint64_t v = wi < 8 ? s[wi] : 0;
    if (wi + 1 < 8) v |= uint64_t(s[wi + 1]) << 32;
    uint32_t raw = (uint32_t(v >> sh) & mask) + carry;
    carry = raw > half;
    int32_t d = int32_t(raw) - int32_t(carry << c);
    size_t o = size_t(w) * m + k;
    keys[o] = d == 0 ? sentinel : w * half + uint32_t(abs(d) - 1);
    vals[o] = i | (d < 0 ? sign_bit : 0);
  }
}

// The sentinel (zero digits) is the largest key, so it can only be the last run.
static __global__ void drop_sentinel_kernel(const uint32_t* uniq, uint32_t* counts, uint32_t* nr, uint32_t sentinel) {
  uint32_t r = *nr;
  if (r && uniq[r - 1] == sentinel) {
    counts[r - 1] = 0;
    *nr = r - 1;
  }
}

// Chunk length L: every accumulation thread takes L consecutive sorted pairs, whatever buckets they
// belong to, so the threads of a warp do the same number of additions (one thread per bucket made
// a warp wait for its fullest bucket). L >= sqrt(largest bucket) bounds the serial re-join of a bucket
// split over chunks. Nearly every chunk ends inside a bucket (buckets hold ~m·nwin/2^(c-1)·nwin
// pairs), so there are about as many re-joins as chunks: L >= E / |threads| keeps the chunks to about
// |threads| (whole waves of the accumulation's resident threads), so the join pass, a latency-bound
// one at 5-35% of the SMs (ncu, 8-17 ms of a 2^22-2^24 MSM at L = 32), stays small. |threads| 0: no such bound.
static __global__ void plan_chunks_kernel(const uint32_t* maxc, const uint32_t* e_p, uint32_t threads,
                                          uint32_t* chunk_len) {
  uint32_t sq = uint32_t(ceilf(sqrtf(float(*maxc)))) + 1;
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

// One thread per chunk whose last run goes on into the next chunk and began in this one: the run's
// bucket = its tail here + the tails of the through chunks after it + the head of the chunk it ends in.
template <class DF>
__global__ void join_chunks_kernel(const uint32_t* keys, const uint32_t* e_p, const uint32_t* chunk_len,
                                   const dxyzz_t<DF>* heads, const dxyzz_t<DF>* tails, dxyzz_t<DF>* buckets) {
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x, E = *e_p, L = *chunk_len;
  size_t b = size_t(t) * L;
  if (b >= E) return;
  uint32_t e = uint32_t(min(b + L, size_t(E)));
  if (e >= E || keys[e] != keys[e - 1]) return;           // no run goes on from here
  if (b > 0 && keys[b - 1] == keys[b] && keys[b] == keys[e - 1]) return;  // a through chunk
  uint32_t key = keys[e - 1];
  dxyzz_t<DF> acc = tails[t];
  for (uint32_t u = t + 1;; u++) {
    size_t ub = size_t(u) * L;
    uint32_t ue = uint32_t(min(ub + L, size_t(E)));
    bool through = keys[ub] == key && keys[ue - 1] == key && ue < E && keys[ue] == key;
    if (through) {
      acc.add(tails[u]);
    } else {
      acc.add(heads[u]);
      break;
    }
  }
  buckets[key] = acc;
}

// One level of the weighted bucket sum. Input per window: |items| pairs (a_j, s_j), each standing for
// a run of 2^lg_len buckets with a_j = sum (local index + 1)·B and s_j = sum B. A thread joins K
// consecutive pairs: a = sum a_j + 2^lg_len · sum j·s_j, s = sum s_j, with sum j·s_j by running sums.
// Level 0 reads the buckets themselves (a_j = s_j = B_j, lg_len = 0), so a = s + sum j·s_j.
template <class DF>
__global__ void __launch_bounds__(128) reduce_level_kernel(
    const dxyzz_t<DF>* a_in, const dxyzz_t<DF>* s_in, uint32_t items, uint32_t K, uint32_t lg_len,
    uint32_t nwin, bool first, dxyzz_t<DF>* a_out, dxyzz_t<DF>* s_out) {
  using X = dxyzz_t<DF>;
  uint32_t per = items / K, tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= nwin * per) return;
  size_t base = size_t(tid / per) * items + size_t(tid % per) * K;
  X run = X::infinity(), wsum = X::infinity();
  for (uint32_t j = K - 1; j >= 1; j--) {
    run.add(s_in[base + j]);
    wsum.add(run);
  }
  run.add(s_in[base]);
  X acc;
  if (first) {
    acc = run;
    acc.add(wsum);
  } else {
    for (uint32_t i = 0; i < lg_len; i++) wsum = wsum.dbl();
    acc = wsum;
    for (uint32_t j = 0; j < K; j++) acc.add(a_in[base + j]);
  }
  a_out[tid] = acc;
  s_out[tid] = run;
}

// sum of pts[idx[i]], i < count: per-thread strided sums, then a tree in shared memory per block.
template <class DF>
__global__ void sum_points_kernel(const daffine_t<DF>* pts, const uint32_t* idx, uint32_t count,
                                  dxyzz_t<DF>* out) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  using X = dxyzz_t<DF>;
  X acc = X::infinity();
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    const daffine_t<DF>& q = pts[idx[i]];
    if (!q.is_inf()) acc.add_affine(q.x, q.y, false);
  }
  block_reduce(acc, reinterpret_cast<X*>(smem_raw), out + blockIdx.x);
}

template <class DF>
__global__ void sum_xyzz_kernel(const dxyzz_t<DF>* in, uint32_t count, dxyzz_t<DF>* out) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  using X = dxyzz_t<DF>;
  X acc = X::infinity();
  for (uint32_t i = threadIdx.x; i < count; i += blockDim.x) acc.add(in[i]);
  block_reduce(acc, reinterpret_cast<X*>(smem_raw), out);
}

// CUB's two-call convention: size query, then the call with scratch from the arena.
template <class F>
void cub_run(dev_arena_t& ar, F&& f) {
  size_t bytes = 0;
  CUZK_CUDA_OK(f(nullptr, bytes));
  void* tmp = ar.alloc<uint8_t>(bytes);
  CUZK_CUDA_OK(f(tmp, bytes));
}

// How many waves of resident accumulation threads (chunks) a bucket pass aims at, bounding the
// re-joins (see plan_chunks_kernel): whole waves, so the last one is not a partial one (G2 at 2^24 lost
// ~2% to a sixth wave 17% full with a fixed 2^18); benchmarks may set it (0: chunks of 32 pairs or
// sqrt(largest bucket)). 2 against 4 (gpu_selftest bench, H200): BN254 G1 2^24 97.5 / 98.6 ms, G2 2^24
// 322 / 329, BLS12-381 G2 2^24 592 / 594; 1 is within 1% of 2 either way.
inline uint32_t& accumulate_waves() {
  static uint32_t w = 2;
  return w;
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

// Benchmarks may force the window width (0 = the cost model below).
inline uint32_t& window_override() {
  static uint32_t c = 0;
  return c;
}

// Blocks of 128 per SM each accumulation kernel is compiled for, per field: `xyzz` for accumulate_kernel
// (below), `affine` for accumulate_affine_kernel (msm/accumulate_affine.cuh); `*_initial` is what runs,
// the rest what gpu_selftest bench times beside it (benchmarks may set another choice; for the XYZZ
// kernel also CUZK_GPU_ACC_BLOCKS). The count bounds a kernel's registers (65536 per SM / (128 ·
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
// CUZK_GPU_ACC_BLOCKS=N (read once; a measuring knob) starts every field whose choices include N at N.
template <class DF>
inline int& accumulate_blocks() {
  static int b = [] {
    const char* v = std::getenv("CUZK_GPU_ACC_BLOCKS");
    int want = v ? std::atoi(v) : 0;
    for (int c : accumulate_blocks_of<DF>::xyzz)
      if (c == want) return c;
    return accumulate_blocks_of<DF>::xyzz_initial;
  }();
  return b;
}

// Window width by modelled cost, calibrated on the H200 (gpu_selftest bench, random scalars): m·nwin
// mixed additions at ~13 mults against nwin·2^(c-1) buckets at ~50 (memset, the reduction's two
// general additions, and their share of the sort and flushes; fitted 2026-12-01 to BN254 G1 2^24 at
// c = 17, 19, 20: 85.3, 83.7, 80.3 ms, so c = 20 there and c = 16 at 2^20, as timed). Widths whose top window keeps fewer
// than 8 bits are skipped: its few buckets hold m/2^(t-1) points each, the chunk length grows to
// the square root of that for every window, and the accumulation runs short of threads (2^24, c = 18:
// a 3-bit top window, 147 ms against 105 for c = 19).
inline uint32_t choose_window(size_t m, uint32_t nbits) {
  if (window_override() >= 4 && window_override() <= 22) return window_override();
  uint32_t best = 0;
  double best_cost = 1e300;
  for (int pass = 0; pass < 2 && !best; pass++) {
    for (uint32_t c = 4; c <= 22; c++) {
      uint32_t nwin = (nbits + c) / c, top = nbits + 1 - (nwin - 1) * c;
      if (pass == 0 && top < 8 && top < c) continue;
      double cost = double(m) * nwin * 13.0 + double(nwin) * double(1u << (c - 1)) * 50.0;
      if (cost < best_cost) { best_cost = cost; best = c; }
    }
  }
  return best;
}

// Threads per block for the shared-memory trees: <= 32 KiB of buckets.
template <class X>
constexpr unsigned tree_threads() {
  unsigned t = 256;
  while (t > 32 && t * sizeof(X) > 32768) t /= 2;
  return t;
}

}  // namespace msm_gpu
}  // namespace cuzk
