// The GPU MSM's common ground (its steps: msm_gpu_digits.cuh, msm_gpu_accumulate.cuh,
// msm_gpu_reduce.cuh; the driver that runs them: msm_gpu.cuh): the device point types and the sign
// bit of a sorted pair's point index. Kernels are templates over DF, the device field of the point
// coordinates (Fq or Fq2).
#pragma once
#include <cstdint>

#include "../curve/dev.cuh"
#include "../util/gpu.hpp"
#include "../util/gpu_tuning.hpp"

namespace cuzk {
namespace msm_gpu {

using dev::daffine_t;
using dev::dxyzz_t;

constexpr uint32_t sign_bit = 1u << 31;  // of a sorted pair's value: the point is negated

}  // namespace msm_gpu
}  // namespace cuzk
