// The main chain of one GPU proof (prove_gpu.cu), on the main stream: A·w and B·w synthesized on
// the device from the key's coefficients (synth_gpu.cuh) straight into the buffers the transforms
// read, C = A∘B, the six transforms (iNTT, then NTT on the odd coset), H = A·B − C, then the H MSM.
// Included by prove_gpu.cu alone: its kernels sit in that translation unit's anonymous namespace.
#pragma once
#include "../field/mont.cuh"
#include "../msm/msm_gpu.cuh"
#include "../ntt/ntt.cuh"
#include "key_gpu.cuh"
#include "msm_stream_gpu.cuh"
#include "prove.hpp"
#include "prove_timeline.cuh"
#include "synth_gpu.cuh"

namespace cuzk {
namespace {

template <class DF>
__global__ void mul_kernel(DF* c, const DF* a, const DF* b, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] * b[i];
}

// H scalars: A·B − C on the coset, Montgomery -> standard form
template <class DF>
__global__ void h_kernel(DF* h, const DF* a, const DF* b, const DF* c, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) h[i] = (a[i] * b[i] - c[i]).from_mont();
}

}  // namespace

namespace prove_gpu_detail {

// A proof's device buffers over a domain of n: a ‖ b (2n, synthesis writes both), c, t (the
// transforms' scratch, then the H scalars), and the witness w.
template <class F>
struct proof_buffers_t {
  F *a, *b, *c, *t;
  uint8_t* w;
  proof_buffers_t(dev_arena_t& ar, size_t n, size_t w_bytes)
      : a(ar.alloc<F>(2 * n)), b(a + n), c(ar.alloc<F>(n)), t(ar.alloc<F>(n)), w(ar.alloc<uint8_t>(w_bytes)) {}
};

// The main chain's ring plan, in the order main_chain reads it: the coefficients' row ranges, then H's
// chunks, each where streamed.
template <class C>
std::vector<chunk_ring_t::chunk_t> main_chunks(const key_dev_t& kd, const cuzk_key_desc& d) {
  std::vector<chunk_ring_t::chunk_t> plan = synth_chunks(kd.coefs);
  if (kd.streams(set_h))
    plan_set(plan, plan.size(), d.points_h, d.domain_size, chunk_for(kd), sizeof(typename C::g1_affine_t), 0);
  return plan;
}

// Synthesis, transforms, H and the H MSM over the domain of n = 2^lg_n on |st|; records ev.syn and ev.ntt
// (then opens |ntt_recorded|) and ev.h, and returns the H MSM once |st| has finished it. Streamed
// coefficients and H points are read by chunks from the key's host memory through |ring| (main_chunks'
// plan; |h_host|: the key's H section), H's first chunks uploading during the transforms.
template <class C>
jacobian_t<typename C::g1> main_chain(const key_dev_t& kd, const proof_buffers_t<typename C::fr_t>& buf,
                                      size_t n, uint32_t lg_n, cudaStream_t st, proof_events_t& ev,
                                      gate_t& ntt_recorded, const volatile int32_t* cancel, const uint8_t* h_host,
                                      chunk_ring_t& ring) {
  using F = typename C::fr_t;
  using DF = gpu_t<F>;
  using groth16_detail::check_cancel;
  auto dv = [](F* p) { return reinterpret_cast<DF*>(p); };
  synth_device<F>(st, kd.coefs, buf.w, buf.a, &ring);  // writes a ‖ b whole
  ev.syn.record(st);
  mul_kernel<DF><<<ceil_div(n, 256), 256, 0, st>>>(dv(buf.c), dv(buf.a), dv(buf.b), n);
  CUZK_CUDA_LAUNCHED();
  F* const abc[3] = {buf.a, buf.b, buf.c};
  for (F* v : abc) {
    check_cancel(cancel, "ntt");
    intt_coset_ntt_device<F>(v, buf.t, lg_n, st);  // evaluations -> coefficients -> on the odd coset
  }
  h_kernel<DF><<<ceil_div(n, 256), 256, 0, st>>>(dv(buf.t), dv(buf.a), dv(buf.b), dv(buf.c), n);
  CUZK_CUDA_LAUNCHED();
  ev.ntt.record(st);
  ntt_recorded.release();
  check_cancel(cancel, "msm_h");
  using G1 = typename C::g1;
  point_set_t<G1> h_set;
  if (kd.streams(set_h)) h_set.host = reinterpret_cast<const affine_t<G1>*>(h_host);
  else h_set.dev = static_cast<const affine_t<G1>*>(kd.h);
  jacobian_t<G1> h;
  {
    dev_arena_t ar_h(st);
    msm_sets<G1, G1>(ar_h, reinterpret_cast<const uint8_t*>(buf.t), nullptr, n, chunk_for(kd), h_set, h, nullptr, nullptr,
                 nullptr, &ring, "h");
  }
  ev.h.record(st);
  CUZK_CUDA_OK(cudaStreamSynchronize(st));
  return h;
}

}  // namespace prove_gpu_detail
}  // namespace cuzk
