// Instantiates the GPU MSM for bn254 G2 (one translation unit per group, so they compile in parallel).
#include "msm_gpu.cuh"

namespace cuzk {
template jacobian_t<bn254_g2_params> msm_device<bn254_g2_params>(const affine_t<bn254_g2_params>*, const uint8_t*,
                                                                    size_t, cudaStream_t, cudaEvent_t);
template jacobian_t<bn254_g2_params> msm_gpu_host<bn254_g2_params>(const affine_t<bn254_g2_params>*, const uint8_t*,
                                                                      size_t);
template jacobian_t<bn254_g2_params> msm_planned<bn254_g2_params>(dev_arena_t&, const affine_t<bn254_g2_params>*, const msm_gpu::msm_scalars_t&,
                                                     cudaEvent_t);
}  // namespace cuzk
