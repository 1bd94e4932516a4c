// A proving key resident on a GPU (CUDA build): its points, the byte masks of the points that count
// and its coefficient layout (groth16/synth_layout.hpp), uploaded to a device on its first proof there
// (or by gpu_key_upload, prove_gpu.hpp) and kept until gpu_key_evict / gpu_key_release. A proof holds
// the key's shared_ptr, so an eviction during it frees the memory only when the proof returns.
#pragma once
#include <memory>

#include "../util/gpu.hpp"
#include "key.hpp"
#include "synth_gpu.cuh"

namespace cuzk {

struct key_dev_t {
  int device = 0;
  void *a = nullptr, *b1 = nullptr, *b2 = nullptr, *c = nullptr, *h = nullptr;
  // a byte per wire: 1 where its A point (a_present) or its B1 or B2 point (b_present) is not infinity
  uint8_t *a_present = nullptr, *b_present = nullptr;
  synth_dev_t coefs;
  ~key_dev_t() {
    int prev = 0;
    (void)cudaGetDevice(&prev);
    (void)cudaSetDevice(device);
    for (void* p : {a, b1, b2, c, h, static_cast<void*>(a_present), static_cast<void*>(b_present)})
      if (p) (void)cudaFree(p);
    coefs.free_all();
    (void)cudaSetDevice(prev);
  }
};


// The key's points and coefficient layout on the current device (|device|, made current by the
// caller), uploaded on first use (under a lock, so concurrent first proofs upload once). A key that
// does not fit fails with CUZK_E_DEVICE_OOM, and what it had uploaded is freed.
template <class C>
std::shared_ptr<key_dev_t> resident_key(const cuzk_key& key, int device);

}  // namespace cuzk
