// The batch-affine bucket accumulation kernel (the lanes' text is msm/affine_lanes.hpp, shared with
// the host's tests), its choice of blocks per SM (the table is accumulate_blocks_of, pippenger.cuh),
// and when bucket_sums (msm_gpu.cuh) runs it instead of accumulate_kernel (pippenger.cuh).
#pragma once
#include <string>

#include "affine_lanes.hpp"
#include "pippenger.cuh"

namespace cuzk {
namespace msm_gpu {

static_assert(affine_lanes::sign_bit == sign_bit, "one sign bit");

// Lanes a thread can hold, per field: its local memory is lanes × (2 coordinates + a product), and the
// driver reserves that for every thread an SM could hold (BN254 G1 at 64: 6.4 KiB, ~1.7 GB on an H200).
template <class DF>
struct affine_lanes_cap {
  static constexpr int value = 32;
};
template <>
struct affine_lanes_cap<dev::bn254_fq_t> {
  static constexpr int value = 64;
};

// MIN_BLOCKS: blocks of 128 per SM that ptxas must fit (see accumulate_blocks_of's affine).
template <class DF, int MIN_BLOCKS>
__global__ void __launch_bounds__(128, MIN_BLOCKS) accumulate_affine_kernel(
    const daffine_t<DF>* pts, const uint32_t* keys, const uint32_t* vals, const uint32_t* e_p,
    const uint32_t* chunk_len, uint32_t lanes, dxyzz_t<DF>* buckets, dxyzz_t<DF>* heads, dxyzz_t<DF>* tails) {
  affine_lanes::io_t<daffine_t<DF>, dxyzz_t<DF>> io{pts, keys, vals, *e_p, *chunk_len, gridDim.x * blockDim.x,
                                                    lanes, buckets, heads, tails};
  affine_lanes::run_thread<DF, affine_lanes_cap<DF>::value>(blockIdx.x * blockDim.x + threadIdx.x, io);
}

template <class DF>
inline int& affine_blocks() {  // one of accumulate_blocks_of<DF>::affine (benchmarks set it)
  static int b = accumulate_blocks_of<DF>::affine_initial;
  return b;
}
// The affine kernel compiled for |blocks| blocks per SM (one of accumulate_blocks_of<DF>::affine).
template <class DF>
auto affine_for(int blocks) {
  return kernel_at_blocks<accumulate_blocks_of<DF>::affine>(
      blocks, [](auto b) { return accumulate_affine_kernel<DF, decltype(b)::value>; });
}

// Which accumulation bucket_sums runs: acc_xyzz the XYZZ kernel, acc_affine the batch-affine one for
// every MSM, acc_auto the batch-affine one where there are lanes enough (affine_lanes_cap of them with
// at least 4 pairs a chunk; the lanes share one inversion, so fewer than affine_min_lanes would not pay),
// acc_default (CUZK_GPU_ACC unset) what affine_min_pairs says for the field. CUZK_GPU_ACC=
// xyzz|affine|auto and CUZK_GPU_ACC_LANES=N (read once; measuring knobs) set these, and benchmarks may.
enum accumulation_t : int { acc_auto = 0, acc_xyzz = 1, acc_affine = 2, acc_default = 3 };
inline int& accumulate_choice() {
  static int c = [] {
    const char* v = std::getenv("CUZK_GPU_ACC");
    std::string s = v ? v : "";
    return s == "affine" ? acc_affine : s == "auto" ? acc_auto : s == "xyzz" ? acc_xyzz : acc_default;
  }();
  return c;
}
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
inline int accumulate_choice_for(size_t npairs) {
  int c = accumulate_choice();
  return c != acc_default ? c : npairs >= affine_min_pairs<DF>::value ? acc_auto : acc_xyzz;
}
inline uint32_t& affine_lanes_override() {  // 0: by the rule above
  static uint32_t n = [] {
    const char* v = std::getenv("CUZK_GPU_ACC_LANES");
    return v ? uint32_t(std::clamp(std::atoi(v), 1, affine_lanes::lanes_max)) : 0u;
  }();
  return n;
}
constexpr uint32_t affine_min_lanes = 16;

// Lanes per thread of the batch-affine accumulation over field DF for |npairs| pairs over |threads|
// resident threads, or 0 for the XYZZ kernel.
template <class DF>
inline uint32_t affine_lanes_for(size_t npairs, uint32_t threads) {
  constexpr uint32_t cap = affine_lanes_cap<DF>::value;
  const int choice = accumulate_choice_for<DF>(npairs);
  if (choice == acc_xyzz) return 0;
  uint32_t lanes = uint32_t(std::min<size_t>(cap, npairs / (4 * size_t(std::max(threads, 1u)))));
  if (affine_lanes_override()) lanes = std::min<uint32_t>(affine_lanes_override(), cap);
  if (choice == acc_affine) return std::max(lanes, 1u);
  return lanes >= affine_min_lanes ? lanes : 0;
}

}  // namespace msm_gpu
}  // namespace cuzk
