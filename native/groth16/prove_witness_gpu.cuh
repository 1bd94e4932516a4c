// The witness MSMs of one GPU proof (prove_gpu.cu): A, B1, B2 and C weigh the witness alone, so they
// run on their own stream (and, unless CUZK_GPU_OVERLAP=serial, their own host thread) as soon as
// it has arrived, beside the main stream's synthesis and transforms (prove_chain_gpu.cuh).
#pragma once
#include "../msm/msm_gpu.cuh"
#include "key_gpu.cuh"
#include "msm_stream_gpu.cuh"
#include "prove.hpp"
#include "prove_timeline.cuh"

namespace cuzk {
namespace prove_gpu_detail {

// The witness side's results: g1[0] = A, g1[1] = B1, g1[2] = C (g1[3], H, is the main stream's), B2.
template <class C>
struct proof_points_t {
  jacobian_t<typename C::g1> g1[4];
  jacobian_t<typename C::g2> b2;
};

// A, B1, B2 and C over the device witness |d_w| (n_vars 32-byte scalars) on |st_w|, on |device|
// (made current here: this may run on its own thread). With overlap_t::sort_beside the first
// accumulation waits until |ntt_recorded| opens, then for ev.ntt. Records ev.w0 and ev.w1 around the
// work and returns once |st_w| has finished it (msm_device synchronises its stream).
// A set of |kd| as msm_sets reads it: its device points, or the key's host section when streamed.
template <class G>
point_set_t<G> set_of(const key_dev_t& kd, key_set_t set, void* dev, const uint8_t* host) {
  point_set_t<G> s;
  if (kd.streams(set)) s.host = reinterpret_cast<const affine_t<G>*>(host);
  else s.dev = static_cast<const affine_t<G>*>(dev);
  return s;
}

// The chunk length of MSMs over |sets| of |kd|: the placement's when one of them is streamed, else
// 0 (one MSM over the whole set).
inline size_t chunk_for(const key_dev_t& kd, uint32_t sets) {
  return (kd.place.streamed & sets) ? size_t(kd.place.chunk_points) : 0;
}

// A, B1, B2 and C over the device witness |d_w| (n_vars 32-byte scalars) on |st_w|, on |device|
// (made current here: this may run on its own thread). With overlap_t::sort_beside the first
// accumulation waits until |ntt_recorded| opens, then for ev.ntt. Records ev.w0 and ev.w1 around the
// work and returns once |st_w| has finished it. Streamed sets are read by chunks (msm_stream_gpu.cuh).
template <class C>
void witness_msms(const key_dev_t& kd, const cuzk_key_desc& d, const uint8_t* d_w, int device, cudaStream_t st_w,
                  overlap_t mode, gate_t& ntt_recorded, proof_events_t& ev, const volatile int32_t* cancel,
                  proof_points_t<C>& out) {
  using G1 = typename C::g1;
  using G2 = typename C::g2;
  using groth16_detail::check_cancel;
  CUZK_CUDA_OK(cudaSetDevice(device));
  ev.w0.record(st_w);
  check_cancel(cancel, "msm_b2");
  // B2, B1 and A weigh the same scalars (the whole witness); the scalars of wires whose points
  // are infinity are dropped before the sort (a key's mask per point set), so B2 and B1 share one
  // 0/1 split and sorted digits (per chunk when streamed), A has its own
  {
    dev_arena_t ar_b(st_w);
    cudaEvent_t accumulate_after = nullptr;
    if (mode == overlap_t::sort_beside) {
      ntt_recorded.wait();
      accumulate_after = ev.ntt;
    }
    const point_set_t<G2> b2 = set_of<G2>(kd, set_b2, kd.b2, d.points_b2);
    msm_sets<G1, G2>(ar_b, d_w, kd.b_present, d.n_vars, chunk_for(kd, set_b1 | set_b2),
                     set_of<G1>(kd, set_b1, kd.b1, d.points_b1), out.g1[1], &b2, &out.b2, accumulate_after);
  }
  check_cancel(cancel, "msm_a");
  {
    dev_arena_t ar_a(st_w);
    msm_sets<G1>(ar_a, d_w, kd.a_present, d.n_vars, chunk_for(kd, set_a), set_of<G1>(kd, set_a, kd.a, d.points_a),
                 out.g1[0]);
  }
  check_cancel(cancel, "msm_c");
  {
    dev_arena_t ar_c(st_w);
    const size_t n_priv = size_t(d.n_vars) - d.n_public - 1;
    msm_sets<G1>(ar_c, d_w + size_t(d.n_public + 1) * 32, nullptr, n_priv, chunk_for(kd, set_c),
                 set_of<G1>(kd, set_c, kd.c, d.points_c), out.g1[2]);
  }
  ev.w1.record(st_w);
  CUZK_CUDA_OK(cudaStreamSynchronize(st_w));
}

}  // namespace prove_gpu_detail
}  // namespace cuzk
