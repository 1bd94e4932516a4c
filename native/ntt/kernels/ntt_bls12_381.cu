// Instantiates the GPU NTT over bls12_381 Fr (see ntt/ntt.cuh).
#include "../ntt.cuh"

namespace cuzk {
template void ntt_device<bls12_381_fr_t>(bls12_381_fr_t*, bls12_381_fr_t*, uint32_t, bool, bool, cudaStream_t, const gpu_tuning_t&);
template void intt_coset_ntt_device<bls12_381_fr_t>(bls12_381_fr_t*, bls12_381_fr_t*, uint32_t, cudaStream_t, const gpu_tuning_t&);
template void ntt_gpu_host<bls12_381_fr_t>(bls12_381_fr_t*, uint32_t, bool, bool);
}  // namespace cuzk
