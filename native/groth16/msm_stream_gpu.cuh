// MSMs over a key's point sets where a set may be streamed (key_gpu.cuh): the points [0, n) are
// taken in chunks of the placement's chunk_points, and the MSM is the sum over chunks of the MSMs over
// each chunk's points, its scalars and mask offset to the chunk (group sums are exact in any order,
// so the result, and the proof, is the resident path's). A streamed set's chunk is read from the key's
// page-locked host section through a staging ring (chunk_ring_gpu.cuh), its upload overlapping the
// previous chunk's accumulation; a resident set's chunk is a range of its device points. Sets that
// weigh the same scalars (B2 and B1) are chunked at the same boundaries and share each chunk's
// scalar plan.
#pragma once
#include <memory>

#include "../msm/msm_gpu.cuh"
#include "chunk_ring_gpu.cuh"

namespace cuzk {

// One point set of an MSM: device points (resident) or the key's host section (streamed).
template <class G>
struct point_set_t {
  const affine_t<G>* dev = nullptr;
  const affine_t<G>* host = nullptr;
};

namespace msm_stream_detail {

// A set's chunks: device ranges, or a ring's slots.
template <class G>
class set_chunks_t {
 public:
  set_chunks_t(dev_arena_t& ar, const point_set_t<G>& s, size_t n, size_t chunk) : s_(s), n_(n), chunk_(chunk) {
    if (!s.dev) ring_ = std::make_unique<chunk_ring_t>(ar, std::min(chunk, n) * sizeof(affine_t<G>));
  }
  void load(size_t k) {
    const size_t p0 = k * chunk_;
    if (ring_ && p0 < n_) ring_->load(k, {{s_.host + p0, std::min(chunk_, n_ - p0) * sizeof(affine_t<G>), 0}});
  }
  const affine_t<G>* points(size_t k) const {
    return ring_ ? reinterpret_cast<const affine_t<G>*>(ring_->slot(k)) : s_.dev + k * chunk_;
  }
  cudaEvent_t ready(size_t k) const { return ring_ ? ring_->ready(k) : nullptr; }
  void done(size_t k) {
    if (!ring_) return;
    ring_->done(k);
    load(k + 2);
  }

 private:
  point_set_t<G> s_;
  size_t n_, chunk_;
  std::unique_ptr<chunk_ring_t> ring_;
};

}  // namespace msm_stream_detail

// sum k_i·P1_i and (with |s2|) sum k_i·P2_i over the n 32-byte device scalars |d_scalars| on |ar|'s
// stream, P1 and P2 chunked alike; |present| (device, may be null) the byte mask of the points that
// count. |chunk| 0: one MSM over each whole set, which must then be resident (a streamed set has a
// chunk length, and a set of at most one chunk is one chunk through its ring). The first
// accumulation waits for |first_after| when given. Returns once the stream has finished.
template <class G1, class G2 = G1>
void msm_sets(dev_arena_t& ar, const uint8_t* d_scalars, const uint8_t* present, size_t n, size_t chunk,
              const point_set_t<G1>& s1, jacobian_t<G1>& out1, const point_set_t<G2>* s2 = nullptr,
              jacobian_t<G2>* out2 = nullptr, cudaEvent_t first_after = nullptr) {
  using namespace msm_stream_detail;
  cudaStream_t st = ar.stream();
  const uint32_t* sc = reinterpret_cast<const uint32_t*>(d_scalars);
  out1 = jacobian_t<G1>::infinity();
  if (out2) *out2 = jacobian_t<G2>::infinity();
  if (n == 0) return;
  if (chunk == 0) {
    dev_arena_t ar_k(st);
    const msm_gpu::msm_scalars_t plan = msm_gpu::msm_scalars(ar_k, sc, n, present);
    if (s2) *out2 = msm_planned<G2>(ar_k, s2->dev, plan, first_after);
    out1 = msm_planned<G1>(ar_k, s1.dev, plan, s2 ? nullptr : first_after);
    return;
  }
  set_chunks_t<G1> c1(ar, s1, n, chunk);
  std::unique_ptr<set_chunks_t<G2>> c2;
  if (s2) c2 = std::make_unique<set_chunks_t<G2>>(ar, *s2, n, chunk);
  for (size_t k : {size_t(0), size_t(1)}) {
    c1.load(k);
    if (c2) c2->load(k);
  }
  const size_t chunks = (n + chunk - 1) / chunk;
  for (size_t k = 0; k < chunks; k++) {
    const size_t p0 = k * chunk, cnt = std::min(chunk, n - p0);
    dev_arena_t ar_k(st);  // the chunk's plan and MSM scratch, freed in stream order
    const msm_gpu::msm_scalars_t plan = msm_gpu::msm_scalars(ar_k, sc + 8 * p0, cnt, present ? present + p0 : nullptr);
    if (k == 0 && first_after) CUZK_CUDA_OK(cudaStreamWaitEvent(st, first_after, 0));
    if (c2) {
      *out2 = out2->add(msm_planned<G2>(ar_k, c2->points(k), plan, c2->ready(k)));
      c2->done(k);
    }
    out1 = out1.add(msm_planned<G1>(ar_k, c1.points(k), plan, c1.ready(k)));
    c1.done(k);
  }
}

}  // namespace cuzk
