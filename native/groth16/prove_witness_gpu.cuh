// The witness MSMs of one GPU proof (prove_gpu.cu): A, B1, B2 and C weigh the witness alone, so they
// run on their own stream (and, unless CUZK_GPU_OVERLAP=serial, their own host thread) as soon as
// it has arrived, beside the main stream's synthesis and transforms (prove_chain_gpu.cuh).
#pragma once
#include "../msm/msm_gpu.cuh"
#include "key_gpu.cuh"
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
template <class C>
void witness_msms(const key_dev_t& kd, const cuzk_key_desc& d, const uint8_t* d_w, int device, cudaStream_t st_w,
                  overlap_t mode, gate_t& ntt_recorded, proof_events_t& ev, const volatile int32_t* cancel,
                  proof_points_t<C>& out) {
  using G1 = typename C::g1;
  using G2 = typename C::g2;
  using groth16_detail::check_cancel;
  auto pts1 = [](void* p) { return static_cast<const affine_t<G1>*>(p); };
  CUZK_CUDA_OK(cudaSetDevice(device));
  ev.w0.record(st_w);
  check_cancel(cancel, "msm_b2");
  // B2, B1 and A weigh the same scalars (the whole witness); the scalars of wires whose points
  // are infinity are dropped before the sort (a key's mask per point set), so B2 and B1 share one
  // 0/1 split and sorted digits, A has its own
  const uint32_t* w32 = reinterpret_cast<const uint32_t*>(d_w);
  {
    dev_arena_t ar_b(st_w);
    const msm_gpu::msm_scalars_t wit_b = msm_gpu::msm_scalars(ar_b, w32, d.n_vars, kd.b_present);
    cudaEvent_t accumulate_after = nullptr;
    if (mode == overlap_t::sort_beside) {
      ntt_recorded.wait();
      accumulate_after = ev.ntt;
    }
    out.b2 = msm_planned<G2>(ar_b, static_cast<const affine_t<G2>*>(kd.b2), wit_b, accumulate_after);
    check_cancel(cancel, "msm_b1");
    out.g1[1] = msm_planned<G1>(ar_b, pts1(kd.b1), wit_b);
  }
  check_cancel(cancel, "msm_a");
  {
    dev_arena_t ar_a(st_w);
    out.g1[0] = msm_planned<G1>(ar_a, pts1(kd.a), msm_gpu::msm_scalars(ar_a, w32, d.n_vars, kd.a_present));
  }
  check_cancel(cancel, "msm_c");
  size_t n_priv = size_t(d.n_vars) - d.n_public - 1;
  out.g1[2] = msm_device<G1>(pts1(kd.c), d_w + size_t(d.n_public + 1) * 32, n_priv, st_w);
  ev.w1.record(st_w);
  CUZK_CUDA_OK(cudaStreamSynchronize(st_w));
}

}  // namespace prove_gpu_detail
}  // namespace cuzk
