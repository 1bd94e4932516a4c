// A proving key on a GPU (CUDA build): its points, the byte masks of the points that count and its
// coefficient layout (groth16/synth_layout.hpp), placed on a device on its first proof there (or by
// gpu_key_upload, prove_gpu.hpp) and kept until gpu_key_evict / gpu_key_release. A proof holds the
// key's shared_ptr, so an eviction during it frees the memory only when the proof returns.
// Each point set, and the coefficient records, is either resident (uploaded once) or streamed: read
// by each proof from page-locked host memory in chunks through a staging ring (key_stream_gpu.cuh),
// as the placement the engine passes says (key_placement_t). The masks and the layout's row offsets
// are always resident.
#pragma once
#include <memory>

#include "../util/gpu.hpp"
#include "key.hpp"
#include "synth_gpu.cuh"

namespace cuzk {

// The sets a placement may stream, one bit each (cuzk.h's CUZK_KEY_SET_*).
enum key_set_t : uint32_t { set_a = 1, set_b1 = 2, set_b2 = 4, set_c = 8, set_h = 16, set_coefs = 32, set_all = 63 };

// Where a key's sets live on one device: |streamed| bits are read from host memory per proof, in chunks
// of |chunk_points| points (A, B1, B2, C, H) and |chunk_records| coefficient records.
struct key_placement_t {
  uint32_t streamed = 0;
  uint64_t chunk_points = 0, chunk_records = 0;
};

struct key_dev_t {
  int device = 0;
  key_placement_t place;
  // device points (null where the set is streamed: its points are the key's host section)
  void *a = nullptr, *b1 = nullptr, *b2 = nullptr, *c = nullptr, *h = nullptr;
  // a byte per wire: 1 where its A point (a_present) or its B1 or B2 point (b_present) is not infinity
  uint8_t *a_present = nullptr, *b_present = nullptr;
  synth_dev_t coefs;
  bool streams(key_set_t s) const { return (place.streamed & s) != 0; }
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


// The key on the current device (|device|, made current by the caller), placed on first use (under a
// lock, so concurrent first proofs place it once) as |place| says (all resident by default); a key
// already there keeps the placement it was given. A key that does not fit fails with
// CUZK_E_DEVICE_OOM, and what it had uploaded is freed.
template <class C>
std::shared_ptr<key_dev_t> resident_key(const cuzk_key& key, int device, const key_placement_t& place = {});

}  // namespace cuzk
