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

// The witness side's ring plan, in the order witness_msms reads it: B2 (at 0) and B1 (after a chunk
// of B2) in one chunk each, then A, then C, each where streamed.
template <class C>
std::vector<chunk_ring_t::chunk_t> witness_chunks(const key_dev_t& kd, const cuzk_key_desc& d) {
  using G1 = typename C::g1_affine_t;
  using G2 = typename C::g2_affine_t;
  std::vector<chunk_ring_t::chunk_t> plan;
  const size_t chunk = chunk_for(kd), n = d.n_vars, n_priv = n - d.n_public - 1;
  if (!chunk) return plan;
  const size_t b_at = kd.streams(set_b2) ? std::min(chunk, n) * sizeof(G2) : 0;
  if (kd.streams(set_b2)) plan_set(plan, 0, d.points_b2, n, chunk, sizeof(G2), 0);
  if (kd.streams(set_b1)) plan_set(plan, 0, d.points_b1, n, chunk, sizeof(G1), b_at);
  if (kd.streams(set_a)) plan_set(plan, plan.size(), d.points_a, n, chunk, sizeof(G1), 0);
  if (kd.streams(set_c)) plan_set(plan, plan.size(), d.points_c, n_priv, chunk, sizeof(G1), 0);
  return plan;
}

// A, B1, B2 and C over the device witness |d_w| (n_vars 32-byte scalars) on |st_w|, on |device|
// (made current here: this may run on its own thread). With overlap_t::sort_beside the first
// accumulation waits until |ntt_recorded| opens, then for ev.ntt. Records ev.w0 and ev.w1 around the
// work and returns once |st_w| has finished it. Streamed sets are read by chunks (msm_stream_gpu.cuh)
// from |ring| (witness_chunks' plan).
template <class C>
void witness_msms(const key_dev_t& kd, const cuzk_key_desc& d, const uint8_t* d_w, int device, cudaStream_t st_w,
                  overlap_t mode, gate_t& ntt_recorded, proof_events_t& ev, const volatile int32_t* cancel,
                  proof_points_t<C>& out, chunk_ring_t& ring) {
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
    const size_t chunk = chunk_for(kd);
    const size_t b_at = kd.streams(set_b2) ? std::min<size_t>(chunk, d.n_vars) * sizeof(affine_t<G2>) : 0;
    const point_set_t<G2> b2 = set_of<G2>(kd, set_b2, kd.b2, d.points_b2);
    msm_sets<G1, G2>(ar_b, d_w, kd.b_present, d.n_vars, chunk, set_of<G1>(kd, set_b1, kd.b1, d.points_b1, b_at),
                     out.g1[1], &b2, &out.b2, accumulate_after, &ring, "b2+b1");
  }
  ev.wb.record(st_w);
  check_cancel(cancel, "msm_a");
  {
    dev_arena_t ar_a(st_w);
    msm_sets<G1, G1>(ar_a, d_w, kd.a_present, d.n_vars, chunk_for(kd), set_of<G1>(kd, set_a, kd.a, d.points_a),
                 out.g1[0], nullptr, nullptr, nullptr, &ring, "a");
  }
  ev.wa.record(st_w);
  check_cancel(cancel, "msm_c");
  {
    dev_arena_t ar_c(st_w);
    const size_t n_priv = size_t(d.n_vars) - d.n_public - 1;
    msm_sets<G1, G1>(ar_c, d_w + size_t(d.n_public + 1) * 32, nullptr, n_priv, chunk_for(kd),
                 set_of<G1>(kd, set_c, kd.c, d.points_c), out.g1[2], nullptr, nullptr, nullptr, &ring, "c");
  }
  ev.w1.record(st_w);
  CUZK_CUDA_OK(cudaStreamSynchronize(st_w));
}

}  // namespace prove_gpu_detail
}  // namespace cuzk
