// Hooks for a Groth16 proof on the GPU (CUDA build; the CPU build gets the inline "declined"
// versions). gpu_groth16_prove_try returns false when the caller should prove on the CPU (no GPU,
// CUZK_GPU=0, domain below the threshold); a CUDA failure throws. The key's points are uploaded on
// its first GPU proof and stay resident until gpu_key_release, which cuzk_key_destroy must call.
#pragma once
#include <cstdint>

#include "key.hpp"

namespace cuzk {

#ifdef CUZK_BACKEND_CUDA
template <class C>
bool gpu_groth16_prove_try(const cuzk_key& key, const uint8_t* witness, const uint8_t* r, const uint8_t* s,
                           uint8_t* proof_out, const volatile int32_t* cancel, prove_timings_t& tm);
void gpu_key_release(const cuzk_key* key);
#else
template <class C>
inline bool gpu_groth16_prove_try(const cuzk_key&, const uint8_t*, const uint8_t*, const uint8_t*, uint8_t*,
                                  const volatile int32_t*, prove_timings_t&) {
  return false;
}
inline void gpu_key_release(const cuzk_key*) {}
#endif

}  // namespace cuzk
