// Instantiates the GPU fixed-base multiplication (fixed_base_gpu.cuh) for the four groups.
#define CUZK_FIXED_BASE_GPU_INSTANTIATE 1
#include "fixed_base_gpu.cuh"

namespace cuzk {
CUZK_FIXED_BASE_GPU_INSTANCES(, bn254_g1_params)
CUZK_FIXED_BASE_GPU_INSTANCES(, bn254_g2_params)
CUZK_FIXED_BASE_GPU_INSTANCES(, bls12_381_g1_params)
CUZK_FIXED_BASE_GPU_INSTANCES(, bls12_381_g2_params)
}  // namespace cuzk
