// The batch-affine bucket accumulation kernel (the lanes' text is msm/affine_lanes.hpp, shared with
// the host's tests), its blocks per SM, and when bucket_sums (msm_gpu.cuh) runs it instead of
// accumulate_kernel (pippenger.cuh).
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

template <class DF, int MIN_BLOCKS, bool PREFETCH>
__global__ void __launch_bounds__(128, MIN_BLOCKS) accumulate_affine_kernel(
    const daffine_t<DF>* pts, const uint32_t* keys, const uint32_t* vals, const uint32_t* e_p,
    const uint32_t* chunk_len, uint32_t lanes, dxyzz_t<DF>* buckets, dxyzz_t<DF>* heads, dxyzz_t<DF>* tails) {
  affine_lanes::io_t<daffine_t<DF>, dxyzz_t<DF>> io{pts, keys, vals, *e_p, *chunk_len, gridDim.x * blockDim.x,
                                                    lanes, buckets, heads, tails};
  affine_lanes::run_thread<DF, PREFETCH, affine_lanes_cap<DF>::value>(blockIdx.x * blockDim.x + threadIdx.x, io);
}

// Blocks of 128 per SM the affine kernel is compiled for (its sums live in local memory, so it needs
// fewer registers than accumulate_kernel).
template <class DF>
struct affine_blocks_of {
  static constexpr int value = 4;
};
template <>
struct affine_blocks_of<dev::bls12_381_fq_t> {
  static constexpr int value = 3;
};
template <>
struct affine_blocks_of<dev::bn254_fq2_t> {
  static constexpr int value = 3;
};
template <>
struct affine_blocks_of<dev::bls12_381_fq2_t> {
  static constexpr int value = 2;
};

// Which accumulation bucket_sums runs: acc_xyzz the XYZZ kernel, acc_affine the batch-affine one for
// every MSM, acc_auto the batch-affine one where there are lanes enough (affine_lanes_cap of them with
// at least 4 pairs a chunk; the lanes share one inversion, so fewer than affine_min_lanes would not pay),
// acc_default (CUZK_GPU_ACC unset) what affine_by_default says for the field. CUZK_GPU_ACC=
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
// Whether acc_default means acc_auto for field DF (else acc_xyzz), by gpu_selftest bench's "by
// accumulation kernel" lines on the H200 (2026-12-01, 32 lanes, no prefetch, against XYZZ): G2 ahead
// at every size (BN254 2^20/2^22/2^24: -1/-13/-2%; BLS12-381: -8/-17/-11%), G1 behind at 2^20 and
// 2^24 (BN254 +14%, BLS12-381 +15/+10%): its lanes' sums and prefix products live in local memory,
// ~220 bytes of traffic per addition, which XYZZ keeps in registers.
template <class DF>
struct affine_by_default {
  static constexpr bool value = false;
};
template <>
struct affine_by_default<dev::bn254_fq2_t> {
  static constexpr bool value = true;
};
template <>
struct affine_by_default<dev::bls12_381_fq2_t> {
  static constexpr bool value = true;
};
template <class DF>
inline int accumulate_choice_for() {
  int c = accumulate_choice();
  return c != acc_default ? c : affine_by_default<DF>::value ? acc_auto : acc_xyzz;
}
inline uint32_t& affine_lanes_override() {  // 0: by the rule above
  static uint32_t n = [] {
    const char* v = std::getenv("CUZK_GPU_ACC_LANES");
    return v ? uint32_t(std::clamp(std::atoi(v), 1, affine_lanes::lanes_max)) : 0u;
  }();
  return n;
}
// Whether the lanes' loads run one lane ahead (affine_lanes.hpp PREFETCH): off unless
// CUZK_GPU_ACC_PREFETCH=1, since it lost on the H200 in every case timed (the loads' registers cost
// more than their latency hidden: BN254 G2 2^24 262.9 ms against 249.9 without, 32 lanes).
inline bool& affine_prefetch() {
  static bool on = [] {
    const char* v = std::getenv("CUZK_GPU_ACC_PREFETCH");
    return v && std::string(v) == "1";
  }();
  return on;
}
constexpr uint32_t affine_min_lanes = 16;

// Lanes per thread of the batch-affine accumulation over field DF for |npairs| pairs over |threads|
// resident threads, or 0 for the XYZZ kernel.
template <class DF>
inline uint32_t affine_lanes_for(size_t npairs, uint32_t threads) {
  constexpr uint32_t cap = affine_lanes_cap<DF>::value;
  const int choice = accumulate_choice_for<DF>();
  if (choice == acc_xyzz) return 0;
  uint32_t lanes = uint32_t(std::min<size_t>(cap, npairs / (4 * size_t(std::max(threads, 1u)))));
  if (affine_lanes_override()) lanes = std::min<uint32_t>(affine_lanes_override(), cap);
  if (choice == acc_affine) return std::max(lanes, 1u);
  return lanes >= affine_min_lanes ? lanes : 0;
}

}  // namespace msm_gpu
}  // namespace cuzk
