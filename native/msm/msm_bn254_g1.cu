// Instantiates the GPU MSM for bn254 G1 (one translation unit per group, so they compile in parallel).
#include "msm_gpu.cuh"

namespace cuzk {
CUZK_MSM_GPU_INSTANTIATE(bn254_g1_params)
}  // namespace cuzk
