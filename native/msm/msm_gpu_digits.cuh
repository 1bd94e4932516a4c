// The GPU MSM's scalar side, steps 1-2 (msm_gpu.cuh runs them): classify (scalars 0 dropped, 1s
// summed apart, the rest compacted: supraseal's 0/1 split, Groth16 witnesses being mostly 0/1), then
// signed c-bit digits as (bucket, point|sign) pairs, CUB radix-sorted by bucket and run-length
// encoded. No step reads a point, so all of it overlaps the points' upload; MSMs over the same
// scalars share it (msm_scalars_t).
#pragma once
#include <cub/cub.cuh>

#include <algorithm>
#include <vector>

#include "msm_gpu_base.cuh"

namespace cuzk {
namespace msm_gpu {

constexpr size_t block_scalars = size_t(1) << 26;  // keeps pairs = m·nwin below 2^32

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

// CUB's two-call convention: size query, then the call with scratch from the arena.
template <class F>
void cub_run(dev_arena_t& ar, F&& f) {
  size_t bytes = 0;
  CUZK_CUDA_OK(f(nullptr, bytes));
  void* tmp = ar.alloc<uint8_t>(bytes);
  CUZK_CUDA_OK(f(tmp, bytes));
}

// Window width by modelled cost, calibrated on the H200 (gpu_selftest bench, random scalars): m·nwin
// mixed additions at ~13 mults against nwin·2^(c-1) buckets at ~50 (memset, the reduction's two
// general additions, and their share of the sort and flushes; fitted 2026-12-01 to BN254 G1 2^24 at
// c = 17, 19, 20: 85.3, 83.7, 80.3 ms, so c = 20 there and c = 16 at 2^20, as timed). Widths whose top window keeps fewer
// than 8 bits are skipped: its few buckets hold m/2^(t-1) points each, the chunk length grows to
// the square root of that for every window, and the accumulation runs short of threads (2^24, c = 18:
// a 3-bit top window, 147 ms against 105 for c = 19).
// A benchmark may force the width (|tuning|.window 4..22). |max_c| caps it (a streamed key's chunked
// MSMs: their buckets, nwin·2^(c-1), are then bounded whatever the scalars' width, as key-placement.ts
// counts them).
inline uint32_t choose_window(size_t m, uint32_t nbits, const gpu_tuning_t& tuning = gpu_tuning(), uint32_t max_c = 22) {
  if (tuning.window >= 4 && tuning.window <= max_c) return tuning.window;
  uint32_t best = 0;
  double best_cost = 1e300;
  for (int pass = 0; pass < 2 && !best; pass++) {
    for (uint32_t c = 4; c <= max_c; c++) {
      uint32_t nwin = (nbits + c) / c, top = nbits + 1 - (nwin - 1) * c;
      if (pass == 0 && top < 8 && top < c) continue;
      double cost = double(m) * nwin * 13.0 + double(nwin) * double(1u << (c - 1)) * 50.0;
      if (cost < best_cost) { best_cost = cost; best = c; }
    }
  }
  return best;
}

// The sorted digits of one block of scalars (device, in the arena that made them): the (bucket,
// point|sign) pairs by bucket, the number before the zero-digit sentinel and the chunk length of
// the accumulation. They depend on the scalars alone, so MSMs over the same scalars share them.
struct sorted_digits_t {
  uint32_t c = 0, nwin = 0, half = 0, sentinel = 0;
  size_t npairs = 0;
  const uint32_t *keys = nullptr, *vals = nullptr, *e_p = nullptr, *maxc = nullptr;
};

// Signed c-bit digits of the m scalars scalars[idx[k]] (> 1, of at most nbits bits), sorted by bucket.
inline sorted_digits_t sort_digits(dev_arena_t& ar, const uint32_t* scalars, const uint32_t* idx, uint32_t m,
                                   uint32_t nbits, const gpu_tuning_t& tuning, uint32_t max_c) {
  cudaStream_t st = ar.stream();
  sorted_digits_t sd;
  sd.c = choose_window(m, nbits, tuning, max_c);
  sd.nwin = (nbits + sd.c) / sd.c;
  sd.half = 1u << (sd.c - 1);
  sd.sentinel = sd.nwin * sd.half;
  sd.npairs = size_t(m) * sd.nwin;
  const size_t npairs = sd.npairs;
  int end_bit = 32 - __builtin_clz(sd.sentinel);
  uint32_t rmax = uint32_t(std::min<size_t>(npairs, size_t(sd.sentinel) + 1));

  uint32_t *keys = ar.alloc<uint32_t>(npairs), *vals = ar.alloc<uint32_t>(npairs);
  uint32_t *keys2 = ar.alloc<uint32_t>(npairs), *vals2 = ar.alloc<uint32_t>(npairs);
  digits_kernel<<<ceil_div(m, 256), 256, 0, st>>>(scalars, idx, m, sd.c, sd.nwin, keys, vals);
  CUZK_CUDA_LAUNCHED();
  // sorted within the two buffer pairs (CUB's double buffer): its own scratch is then a few histograms,
  // not another copy of the pairs (key-placement.ts msmScratchBytes counts 16 bytes a pair and one more)
  cub::DoubleBuffer<uint32_t> d_keys(keys, keys2), d_vals(vals, vals2);
  cub_run(ar, [&](void* t, size_t& b) {
    return cub::DeviceRadixSort::SortPairs(t, b, d_keys, d_vals, npairs, 0, end_bit, st);
  });
  const uint32_t *sorted_keys = d_keys.Current(), *sorted_vals = d_vals.Current();

  uint32_t *uniq = ar.alloc<uint32_t>(rmax + 1), *counts = ar.alloc<uint32_t>(rmax + 1);
  uint32_t *starts = ar.alloc<uint32_t>(rmax + 1), *scal = ar.alloc<uint32_t>(4);
  uint32_t *nr = scal, *maxc = scal + 1;
  CUZK_CUDA_OK(cudaMemsetAsync(counts, 0, (rmax + 1) * sizeof(uint32_t), st));
  CUZK_CUDA_OK(cudaMemsetAsync(scal, 0, 4 * sizeof(uint32_t), st));
  cub_run(ar, [&](void* t, size_t& b) {
    return cub::DeviceRunLengthEncode::Encode(t, b, sorted_keys, uniq, counts, nr, npairs, st);
  });
  drop_sentinel_kernel<<<1, 1, 0, st>>>(uniq, counts, nr, sd.sentinel);
  CUZK_CUDA_LAUNCHED();
  cub_run(ar, [&](void* t, size_t& b) { return cub::DeviceScan::ExclusiveSum(t, b, counts, starts, rmax + 1, st); });
  cub_run(ar, [&](void* t, size_t& b) { return cub::DeviceReduce::Max(t, b, counts, maxc, rmax, st); });
  sd.e_p = starts + rmax;  // pairs before the sentinel run (counts[rmax] = 0)
  sd.maxc = maxc;
  sd.keys = sorted_keys;
  sd.vals = sorted_vals;
  return sd;
}

// The scalar side of an MSM (device buffers in the arena that made it): the 0/1 split (indices of
// the 1 scalars and of the rest) and each block's sorted digits. MSMs over the same scalars (the
// prover's A, B1 and B2 share the witness) make it once (msm_scalars) and run msm_planned per point set.
struct msm_scalars_t {
  uint32_t n = 0, m = 0, n1 = 0, nbits = 0;
  const uint32_t* one = nullptr;
  std::vector<sorted_digits_t> blocks;
};

// Classifies the n 32-byte scalars at |sc| (device) and sorts the digits of the ones above 1, in
// blocks of block_scalars. With |present| (device, a byte per point, 0 for infinity; see
// classify_kernel) the scalars of infinity points are dropped too. One host synchronisation (to size
// the bucket pass). |tuning|: the window width a benchmark may force; |max_c| the widest window.
inline msm_scalars_t msm_scalars(dev_arena_t& ar, const uint32_t* sc, size_t count, const uint8_t* present = nullptr,
                                 const gpu_tuning_t& tuning = gpu_tuning(), uint32_t max_c = 22) {
  if (count >= (size_t(1) << 31)) fail(CUZK_E_INVALID_ARG, "msm: n must be below 2^31");
  cudaStream_t st = ar.stream();
  msm_scalars_t p;
  const uint32_t n = uint32_t(count);
  p.n = n;
  if (n == 0) return p;
  uint8_t *is_big = ar.alloc<uint8_t>(n), *is_one = ar.alloc<uint8_t>(n);
  uint32_t *iota = ar.alloc<uint32_t>(n), *big = ar.alloc<uint32_t>(n), *one = ar.alloc<uint32_t>(n);
  uint32_t* cnt = ar.alloc<uint32_t>(4);  // m, n1, max bits
  CUZK_CUDA_OK(cudaMemsetAsync(cnt, 0, 4 * sizeof(uint32_t), st));
  classify_kernel<<<ceil_div(n, 256), 256, 0, st>>>(reinterpret_cast<const uint4*>(sc), present, n, is_big, is_one,
                                                    iota, cnt + 2);
  CUZK_CUDA_LAUNCHED();
  cub_run(ar, [&](void* t, size_t& b) { return cub::DeviceSelect::Flagged(t, b, iota, is_big, big, cnt, n, st); });
  cub_run(ar, [&](void* t, size_t& b) { return cub::DeviceSelect::Flagged(t, b, iota, is_one, one, cnt + 1, n, st); });
  uint32_t h_cnt[4];
  CUZK_CUDA_OK(cudaMemcpyAsync(h_cnt, cnt, sizeof h_cnt, cudaMemcpyDeviceToHost, st));
  CUZK_CUDA_OK(cudaStreamSynchronize(st));
  p.m = h_cnt[0];
  p.n1 = h_cnt[1];
  p.nbits = h_cnt[2];
  p.one = one;
  // every block at the first's width: one set of buckets holds them all (msm_gpu.cuh bucket_sum_t)
  gpu_tuning_t t = tuning;
  for (size_t b0 = 0; b0 < p.m; b0 += block_scalars) {
    uint32_t mb = uint32_t(std::min<size_t>(block_scalars, p.m - b0));
    p.blocks.push_back(sort_digits(ar, sc, big + b0, mb, p.nbits, t, max_c));
    t.window = p.blocks.back().c;
  }
  return p;
}

}  // namespace msm_gpu
}  // namespace cuzk
