// Instantiates the GPU MSM for bls12_381 G1 (one translation unit per group, so they compile in parallel).
#include "msm_gpu.cuh"

namespace cuzk {
CUZK_MSM_GPU_INSTANTIATE(bls12_381_g1_params)
}  // namespace cuzk
