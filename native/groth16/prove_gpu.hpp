// Hooks for a Groth16 proof on the GPU (CUDA build; the CPU build gets inline versions that decline
// or say there is no device). The caller names the device (cuzk_groth16_prove_ab); a CUDA failure
// throws. A key's points and its coefficients (the GPU synthesis layout, groth16/synth_layout.hpp) are
// uploaded to a device on its first proof there (or by gpu_key_upload) and stay resident until
// gpu_key_evict / gpu_key_release; cuzk_key_destroy must call gpu_key_release.
#pragma once
#include <cstdint>

#include "../util/error.hpp"
#include "key.hpp"

namespace cuzk {

#ifdef CUZK_BACKEND_CUDA
// A whole proof on GPU |device| from the witness alone: A·w and B·w are synthesized there (no CPU
// phase 1), then phase 2. tm.abc is the device's synthesis time.
template <class C>
void gpu_groth16_prove_ab(const cuzk_key& key, int device, const uint8_t* witness, const uint8_t* r, const uint8_t* s,
                          uint8_t* proof_out, const volatile int32_t* cancel, prove_timings_t& tm);
template <class C>
uint64_t gpu_key_bytes(const cuzk_key& key);
// Places the key on |device| (cuzk_gpu_key_upload): the sets whose bits are in |streamed| stay in host
// memory and are read per proof in chunks of |chunk_points| points / |chunk_records| records.
template <class C>
void gpu_key_upload(const cuzk_key& key, int device, uint32_t streamed, uint64_t chunk_points, uint64_t chunk_records);
void gpu_key_evict(const cuzk_key* key, int device);
void gpu_key_release(const cuzk_key* key);
#else
[[noreturn]] inline void no_gpu_build() { fail(CUZK_E_NO_DEVICE, "this is the CPU build of cuzk: it has no GPU code"); }
template <class C>
inline void gpu_groth16_prove_ab(const cuzk_key&, int, const uint8_t*, const uint8_t*, const uint8_t*,
                                 uint8_t*, const volatile int32_t*, prove_timings_t&) {
  no_gpu_build();
}
template <class C>
inline uint64_t gpu_key_bytes(const cuzk_key&) { return 0; }
template <class C>
inline void gpu_key_upload(const cuzk_key&, int, uint32_t, uint64_t, uint64_t) { no_gpu_build(); }
inline void gpu_key_evict(const cuzk_key*, int) {}
inline void gpu_key_release(const cuzk_key*) {}
#endif

}  // namespace cuzk
