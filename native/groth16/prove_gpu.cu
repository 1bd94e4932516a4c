// One Groth16 proof with the NTTs and MSMs on the GPU: the algorithm of groth16/prove.hpp (snarkjs
// groth16_prove.js) step for step, so the proof is byte-identical to the CPU core's for the same r, s.
// The section-4 scatter (A·w, B·w) stays on the CPU threads; A and B go up, C = A∘B, each vector
// goes through iNTT -> odd-coset NTT on the device (6 transforms), H = A·B − C in standard form
// feeds the H MSM in place; the witness goes up once for the A, B1, B2, C MSMs. Key points are
// uploaded on a key's first GPU proof and stay resident until gpu_key_release.
#include "../field/mont.cuh"
#include "../msm/msm_gpu.cuh"
#include "../ntt/ntt.cuh"

#include <map>
#include <memory>
#include <mutex>

#include "../util/gpu_dispatch.hpp"
#include "prove.hpp"
#include "prove_gpu.hpp"

namespace cuzk {
namespace {

struct key_dev_t {
  void *a = nullptr, *b1 = nullptr, *b2 = nullptr, *c = nullptr, *h = nullptr;
  ~key_dev_t() {
    for (void* p : {a, b1, b2, c, h})
      if (p) (void)cudaFree(p);
  }
};

std::mutex keys_mu;
std::map<const cuzk_key*, std::shared_ptr<key_dev_t>>& key_table() {
  static std::map<const cuzk_key*, std::shared_ptr<key_dev_t>> t;
  return t;
}

void* upload(const uint8_t* src, size_t bytes) {
  if (bytes == 0) return nullptr;
  void* d = nullptr;
  CUZK_CUDA_OK(cudaMalloc(&d, bytes));
  cudaError_t e = cudaMemcpy(d, src, bytes, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) (void)cudaFree(d);
  CUZK_CUDA_OK(e);
  return d;
}

// The key's points on the device, uploaded on first use (under the lock, so concurrent first proofs
// upload once). A key that does not fit fails here with CUZK_E_DEVICE_OOM.
template <class C>
std::shared_ptr<key_dev_t> resident_key(const cuzk_key& key) {
  std::lock_guard<std::mutex> lk(keys_mu);
  auto& slot = key_table()[&key];
  if (slot) return slot;
  const cuzk_key_desc& d = key.desc;
  const size_t g1 = sizeof(typename C::g1_affine_t), g2 = sizeof(typename C::g2_affine_t);
  auto kd = std::make_shared<key_dev_t>();
  try {
    kd->a = upload(d.points_a, size_t(d.n_vars) * g1);
    kd->b1 = upload(d.points_b1, size_t(d.n_vars) * g1);
    kd->b2 = upload(d.points_b2, size_t(d.n_vars) * g2);
    kd->c = upload(d.points_c, (size_t(d.n_vars) - d.n_public - 1) * g1);
    kd->h = upload(d.points_h, size_t(d.domain_size) * g1);
  } catch (...) {
    key_table().erase(&key);
    throw;
  }
  slot = kd;
  return kd;
}

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

void gpu_key_release(const cuzk_key* key) {
  std::lock_guard<std::mutex> lk(keys_mu);
  key_table().erase(key);  // a proof in flight keeps its shared_ptr until it returns
}

template <class C>
bool gpu_groth16_prove_try(const cuzk_key& key, const uint8_t* witness, const uint8_t* r, const uint8_t* s,
                           uint8_t* proof_out, const volatile int32_t* cancel, prove_timings_t& tm) {
  using namespace groth16_detail;
  using F = typename C::fr_t;
  using DF = gpu_t<F>;
  using G1 = typename C::g1;
  using G2 = typename C::g2;
  const cuzk_key_desc& d = key.desc;
  const size_t n = d.domain_size;
  const uint32_t lg_n = uint32_t(__builtin_ctzll(n));
  if (!gpu_wanted(gpu_work_prove, lg_n)) return false;
  auto t_start = clock_t_::now(), t0 = t_start;
  check_cancel(cancel, "start");
  std::shared_ptr<key_dev_t> kd = resident_key<C>(key);
  std::unique_ptr<F[]> a(new F[n]), b(new F[n]);
  F *pa = a.get(), *pb = b.get();
  for_each_index<F>(n, [&](size_t i) { pa[i] = F::zero(); pb[i] = F::zero(); });
  scatter_coefs(key, witness, pa, pb);
  tm.abc = ms_since(t0);

  gpu_stream_t st;
  dev_arena_t ar(st);
  F *d_a = ar.alloc<F>(n), *d_b = ar.alloc<F>(n), *d_c = ar.alloc<F>(n), *d_t = ar.alloc<F>(n);
  uint8_t* d_w = ar.alloc<uint8_t>(size_t(d.n_vars) * 32);
  CUZK_CUDA_OK(cudaMemcpyAsync(d_a, pa, n * sizeof(F), cudaMemcpyHostToDevice, st));
  CUZK_CUDA_OK(cudaMemcpyAsync(d_b, pb, n * sizeof(F), cudaMemcpyHostToDevice, st));
  CUZK_CUDA_OK(cudaMemcpyAsync(d_w, witness, size_t(d.n_vars) * 32, cudaMemcpyHostToDevice, st));
  auto dv = [](F* p) { return reinterpret_cast<DF*>(p); };
  mul_kernel<DF><<<ceil_div(n, 256), 256, 0, st>>>(dv(d_c), dv(d_a), dv(d_b), n);
  CUZK_CUDA_LAUNCHED();
  for (F* v : {d_a, d_b, d_c}) {
    check_cancel(cancel, "ntt");
    ntt_device<F>(v, d_t, lg_n, true, false, false, st);   // evaluations -> coefficients
    ntt_device<F>(d_t, v, lg_n, false, true, false, st);   // -> evaluations on the odd coset
  }
  h_kernel<DF><<<ceil_div(n, 256), 256, 0, st>>>(dv(d_t), dv(d_a), dv(d_b), dv(d_c), n);
  CUZK_CUDA_LAUNCHED();
  st.sync();
  tm.ntt = ms_since(t0);
  tm.join = 0;

  auto pts1 = [](void* p) { return static_cast<const affine_t<G1>*>(p); };
  jacobian_t<G1> g1[4];
  check_cancel(cancel, "msm_a");
  g1[0] = msm_device<G1>(pts1(kd->a), d_w, d.n_vars, st);
  tm.msm_a = ms_since(t0);
  check_cancel(cancel, "msm_b1");
  g1[1] = msm_device<G1>(pts1(kd->b1), d_w, d.n_vars, st);
  tm.msm_b1 = ms_since(t0);
  check_cancel(cancel, "msm_b2");
  jacobian_t<G2> b2 = msm_device<G2>(static_cast<const affine_t<G2>*>(kd->b2), d_w, d.n_vars, st);
  tm.msm_b2 = ms_since(t0);
  check_cancel(cancel, "msm_c");
  size_t n_priv = size_t(d.n_vars) - d.n_public - 1;
  g1[2] = msm_device<G1>(pts1(kd->c), d_w + size_t(d.n_public + 1) * 32, n_priv, st);
  tm.msm_c = ms_since(t0);
  check_cancel(cancel, "msm_h");
  g1[3] = msm_device<G1>(pts1(kd->h), reinterpret_cast<const uint8_t*>(d_t), n, st);
  tm.msm_h = ms_since(t0);

  finish_proof<C>(d, g1, b2, r, s, proof_out);
  tm.finish = ms_since(t0);
  tm.total = ms_since(t_start);
  return true;
}

template bool gpu_groth16_prove_try<bn254>(const cuzk_key&, const uint8_t*, const uint8_t*, const uint8_t*,
                                           uint8_t*, const volatile int32_t*, prove_timings_t&);
template bool gpu_groth16_prove_try<bls12_381>(const cuzk_key&, const uint8_t*, const uint8_t*, const uint8_t*,
                                               uint8_t*, const volatile int32_t*, prove_timings_t&);

}  // namespace cuzk
