// Instantiates the GPU NTT over bn254 Fr (see ntt/ntt.cuh).
#include "../ntt.cuh"

namespace cuzk {
template void ntt_device<bn254_fr_t>(bn254_fr_t*, bn254_fr_t*, uint32_t, bool, bool, cudaStream_t, const gpu_tuning_t&);
template void intt_coset_ntt_device<bn254_fr_t>(bn254_fr_t*, bn254_fr_t*, uint32_t, cudaStream_t, const gpu_tuning_t&);
template void ntt_gpu_host<bn254_fr_t>(bn254_fr_t*, uint32_t, bool, bool);
}  // namespace cuzk
