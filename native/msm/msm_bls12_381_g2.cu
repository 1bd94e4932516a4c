// Instantiates the GPU MSM for bls12_381 G2 (one translation unit per group, so they compile in parallel).
#include "msm_gpu.cuh"

namespace cuzk {
template jacobian_t<bls12_381_g2_params> msm_device<bls12_381_g2_params>(const affine_t<bls12_381_g2_params>*, const uint8_t*,
                                                                    size_t, cudaStream_t, cudaEvent_t);
template jacobian_t<bls12_381_g2_params> msm_gpu_host<bls12_381_g2_params>(const affine_t<bls12_381_g2_params>*, const uint8_t*,
                                                                      size_t);
template jacobian_t<bls12_381_g2_params> msm_planned<bls12_381_g2_params>(dev_arena_t&, const affine_t<bls12_381_g2_params>*, const msm_gpu::msm_scalars_t&,
                                                     cudaEvent_t);
}  // namespace cuzk
