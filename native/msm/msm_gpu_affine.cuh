// The GPU MSM's batch-affine bucket accumulation kernel (step 3 beside the XYZZ one of
// msm_gpu_xyzz.cuh, whose chunks, heads, tails and join it shares): the lanes' text is
// msm/affine_lanes.hpp, shared with the host's tests. When it runs: msm_gpu_accumulate.cuh.
#pragma once
#include "affine_lanes.hpp"
#include "msm_gpu_xyzz.cuh"

namespace cuzk {
namespace msm_gpu {

static_assert(affine_lanes::sign_bit == sign_bit, "one sign bit");
static_assert(affine_lanes::lanes_max == gpu_affine_lanes_max, "CUZK_GPU_ACC_LANES's clamp (util/gpu_tuning.hpp)");

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

// The batch-affine kernel's blocks/SM in field DF: |tuning|.affine_blocks (benchmarks), else the
// field's affine_initial.
template <class DF>
int affine_blocks_for(const gpu_tuning_t& tuning) {
  return tuning.affine_blocks ? tuning.affine_blocks : accumulate_blocks_of<DF>::affine_initial;
}
// The affine kernel compiled for |blocks| blocks per SM (one of accumulate_blocks_of<DF>::affine).
template <class DF>
auto affine_for(int blocks) {
  return kernel_at_blocks<accumulate_blocks_of<DF>::affine>(
      blocks, [](auto b) { return accumulate_affine_kernel<DF, decltype(b)::value>; });
}

}  // namespace msm_gpu
}  // namespace cuzk
