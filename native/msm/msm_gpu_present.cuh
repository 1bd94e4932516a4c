// Which points of a set count: a byte per point, 0 for infinity. A resident key keeps one per point
// set (groth16/key_gpu.cu), and classify_kernel (msm_gpu_digits.cuh) drops the scalars of the rest.
#pragma once
#include "msm_gpu_base.cuh"

namespace cuzk {
namespace msm_gpu {

// present[i] |= pts[i] is not infinity (a resident key's mask of the points that count, see classify_kernel).
template <class DF>
__global__ void mark_present_kernel(const daffine_t<DF>* pts, uint32_t n, uint8_t* present) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && !pts[i].is_inf()) present[i] = 1;
}

}  // namespace msm_gpu
}  // namespace cuzk
