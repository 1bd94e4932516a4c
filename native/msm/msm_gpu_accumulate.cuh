// The GPU MSM's bucket accumulation, step 3, its host side: which kernel runs (the XYZZ one of
// msm_gpu_xyzz.cuh or the batch-affine one of msm_gpu_affine.cuh, by field, size and gpu_tuning_t),
// and its launch with the chunk plan before and the join after.
#pragma once
#include <algorithm>

#include "msm_gpu_affine.cuh"
#include "msm_gpu_digits.cuh"

namespace cuzk {
namespace msm_gpu {

// Which accumulation accumulate_buckets runs (accumulation_t, util/gpu_tuning.hpp): acc_xyzz the
// XYZZ kernel, acc_affine the batch-affine one for every MSM, acc_auto the batch-affine one where
// there are lanes enough (affine_lanes_cap of them with at least 4 pairs a chunk; the lanes share one
// inversion, so fewer than affine_min_lanes would not pay), acc_default (CUZK_GPU_ACC unset) what
// affine_min_pairs says for the field. CUZK_GPU_ACC=xyzz|affine|auto and CUZK_GPU_ACC_LANES=N
// (measuring knobs, in gpu_tuning_t) set these, and benchmarks may (a gpu_tuning_t of their own).
//
// The fewest sorted pairs for which acc_default means acc_auto for field DF (else acc_xyzz), by
// gpu_selftest bench's "by accumulation kernel" and "by affine blocks/SM" lines on the H200
// (2026-12-01, both kernels at the window the model picks; XYZZ ms against batch-affine at its
// initial blocks/SM, 2^20 / 2^22 / 2^24): G2 ahead at every size (BN254 22.4 / 71.1 / 247.2 against
// 20.4 / 58.5 / 198.5; BLS12-381 50.6 / 168.6 / 573.4 against 46.2 / 138.1 / 470.3); G1 ahead at 2^24
// only (BN254 7.02 / 22.3 / 77.1 against 8.18 / 22.2 / 71.6; BLS12-381 14.7 / 48.9 / 165.7 against
// 16.7 / 49.1 / 156.9), so from 2^27 pairs (2^24 scalars make 13 windows' worth, 2^22 about 2^26).
template <class DF>
struct affine_min_pairs {
  static constexpr size_t value = 0;
};
template <>
struct affine_min_pairs<dev::bn254_fq_t> {
  static constexpr size_t value = size_t(1) << 27;
};
template <>
struct affine_min_pairs<dev::bls12_381_fq_t> {
  static constexpr size_t value = size_t(1) << 27;
};
template <class DF>
inline int accumulate_choice_for(size_t npairs, const gpu_tuning_t& tuning) {
  int c = tuning.accumulation;
  return c != acc_default ? c : npairs >= affine_min_pairs<DF>::value ? acc_auto : acc_xyzz;
}
constexpr uint32_t affine_min_lanes = 16;

// Lanes per thread of the batch-affine accumulation over field DF for |npairs| pairs over |threads|
// resident threads, or 0 for the XYZZ kernel (|tuning|.affine_lanes, CUZK_GPU_ACC_LANES, overrides the rule).
template <class DF>
inline uint32_t affine_lanes_for(size_t npairs, uint32_t threads, const gpu_tuning_t& tuning) {
  constexpr uint32_t cap = affine_lanes_cap<DF>::value;
  const int choice = accumulate_choice_for<DF>(npairs, tuning);
  if (choice == acc_xyzz) return 0;
  uint32_t lanes = uint32_t(std::min<size_t>(cap, npairs / (4 * size_t(std::max(threads, 1u)))));
  if (tuning.affine_lanes) lanes = std::min<uint32_t>(tuning.affine_lanes, cap);
  if (choice == acc_affine) return std::max(lanes, 1u);
  return lanes >= affine_min_lanes ? lanes : 0;
}

// The most chunks an XYZZ accumulation is cut into (its whole waves of threads are fewer on the
// GPUs measured, ~2^17 on the H200): bounds its heads and tails, which key-placement.ts counts.
constexpr uint32_t max_xyzz_chunks = uint32_t(1) << 19;

// How accumulate_buckets runs over |npairs| pairs: the batch-affine kernel's lanes per thread and
// threads (lanes 0: the XYZZ kernel), the chunk count the chunk plan aims at (|target|, 0 for no
// bound: chunks of 32 pairs) and so the most chunks (heads and tails to allocate).
struct acc_plan_t {
  uint32_t lanes = 0, aff_threads = 0, target = 0;
  size_t max_chunks = 0;
};
template <class DF>
acc_plan_t accumulation_plan(size_t npairs, const gpu_tuning_t& tuning) {
  acc_plan_t a;
  auto aff = affine_for<DF>(affine_blocks_for<DF>(tuning));
  a.aff_threads = accumulate_choice_for<DF>(npairs, tuning) == acc_xyzz ? 0 : resident_threads(aff, 128);
  a.lanes = a.aff_threads ? affine_lanes_for<DF>(npairs, a.aff_threads, tuning) : 0;
  if (a.lanes) {
    a.target = a.lanes * a.aff_threads;
  } else {
    auto acc = accumulate_for<DF>(xyzz_blocks_for<DF>(tuning));
    a.target = std::min<uint32_t>(tuning.accumulate_waves * resident_threads(acc, 128), max_xyzz_chunks);
  }
  // chunk_len >= 32 and >= ceil(E / target): never more chunks than either allows
  a.max_chunks = ceil_div(npairs, size_t(32));
  if (a.target) a.max_chunks = std::min<size_t>(a.max_chunks, a.target);
  return a;
}

// Accumulates the sorted pairs |sd| over |pts| into |buckets| (nwin·2^(c-1) of them, zeroed by the
// caller), heads and tails (|plan|.max_chunks each) by the kernel |plan| says (accumulation_plan),
// then joins the buckets that cross chunks (|before_join|, if given, recorded between the two). The kernel waits for |points_ready| (if given), the first read of the points, so
// the digits and the sort overlap their upload.
// The XYZZ pass aims at |tuning|.accumulate_waves waves of resident threads (chunks), bounding the
// re-joins (see plan_chunks_kernel): whole waves, so the last one is not a partial one (G2 at 2^24 lost
// ~2% to a sixth wave 17% full with a fixed 2^18); benchmarks may set it (default 2;
// 0: chunks of 32 pairs). 2 against 4 (gpu_selftest bench, H200): BN254 G1
// 2^24 97.5 / 98.6 ms, G2 2^24 322 / 329, BLS12-381 G2 2^24 592 / 594; 1 is within 1% of 2 either way.
template <class DF>
void accumulate_buckets(const daffine_t<DF>* pts, const sorted_digits_t& sd, cudaEvent_t points_ready,
                        const gpu_tuning_t& tuning, const acc_plan_t& plan, dxyzz_t<DF>* buckets, dxyzz_t<DF>* heads,
                        dxyzz_t<DF>* tails, uint32_t* chunk_len, cudaStream_t st,
                        cudaEvent_t before_join = nullptr) {
  const size_t max_chunks = plan.max_chunks;
  unsigned acc_blocks = ceil_div(max_chunks, size_t(128));
  plan_chunks_kernel<<<1, 1, 0, st>>>(sd.maxc, sd.e_p, plan.target, tuning.chunk_sqrt, chunk_len);
  CUZK_CUDA_LAUNCHED();
  if (points_ready) CUZK_CUDA_OK(cudaStreamWaitEvent(st, points_ready, 0));
  if (plan.lanes) {  // one wave of threads, |lanes| chunks each
    auto aff = affine_for<DF>(affine_blocks_for<DF>(tuning));
    aff<<<plan.aff_threads / 128, 128, 0, st>>>(pts, sd.keys, sd.vals, sd.e_p, chunk_len, plan.lanes, buckets, heads,
                                                tails);
    CUZK_CUDA_LAUNCHED();
    gpu_counters().affine_accumulations++;
  } else {
    auto acc = accumulate_for<DF>(xyzz_blocks_for<DF>(tuning));
    acc<<<acc_blocks, 128, 0, st>>>(pts, sd.keys, sd.vals, sd.e_p, chunk_len, buckets, heads, tails);
    CUZK_CUDA_LAUNCHED();
  }
  if (before_join) CUZK_CUDA_OK(cudaEventRecord(before_join, st));
  // the rounds past a run's members return at once: a grid of a few blocks per SM, strided
  const uint32_t rounds = join_rounds_for(sd.npairs / sd.nwin, max_chunks);
  const unsigned round_blocks = std::min<unsigned>(acc_blocks, 4 * unsigned(gpu_info().sm_count));
  for (uint32_t r = 0; r < rounds; r++) {
    join_round_kernel<DF><<<round_blocks, 128, 0, st>>>(sd.keys, sd.e_p, chunk_len, sd.maxc, r, tails);
    CUZK_CUDA_LAUNCHED();
  }
  join_chunks_kernel<DF><<<acc_blocks, 128, 0, st>>>(sd.keys, sd.e_p, chunk_len, sd.maxc, rounds, heads, tails,
                                                     buckets);
  CUZK_CUDA_LAUNCHED();
}

// into[i] += from[i], i < count: a bucket pass's buckets added into the buckets kept over passes of
// the same window width (msm_gpu.cuh bucket_sum_t), one general addition a bucket, coalesced.
template <class DF>
__global__ void __launch_bounds__(128) add_buckets_kernel(dxyzz_t<DF>* into, const dxyzz_t<DF>* from, size_t count) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  dxyzz_t<DF> a = into[i];
  a.add(from[i]);
  into[i] = a;
}

}  // namespace msm_gpu
}  // namespace cuzk
