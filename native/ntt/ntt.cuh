// GPU NTT over Fr, the transform of ntt/ntt.hpp (ffjavascript's Fr.fft / Fr.ifft, cuzk.h flags):
// Gentleman-Sande (DIF) stages, natural order in and bit-reversed out, in shared-memory passes
// (ntt_pass.cuh); the last pass stores each element at its natural-order place and applies the
// inverse's 1/n and coset powers on the way, the first applies the forward coset powers. Twiddles come
// from one cached table T[k] = ω_N^k, k < N/2, of the largest size seen: stage m reads ω_2m^j =
// T[j·N/2m], and inverse stages use ω_2m^-j = -ω_2m^(m-j). Powers g^j (coset) are two small tables
// multiplied, cached per device, size and kind like the twiddles: nothing is computed, allocated or
// waited for per transform once a size has been seen. Three entries: ntt_device (one transform,
// device-resident), intt_coset_ntt_device (the proof's iNTT -> coset NTT, the iNTT's 1/n folded into
// the coset powers), ntt_gpu_host (cuzk_ntt: upload, argument check on the device, download).
#pragma once
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "../curve/dev.cuh"
#include "../util/gpu.hpp"
#include "../util/gpu_tuning.hpp"
#include "ntt_pass.cuh"
#include "roots.hpp"

namespace cuzk {
namespace ntt_gpu {


// base^j for j < 2^lg as lo[j & (2^lo_bits - 1)] · hi[j >> lo_bits] (host tables, ~2·sqrt(n) mults).
template <class F>
struct pow_tables_t {
  std::vector<F> lo, hi;
  uint32_t lo_bits = 0;
  pow_tables_t(const F& base, uint32_t lg, const F& hi_scale) {
    lo_bits = (lg + 1) / 2;
    lo.resize(size_t(1) << lo_bits);
    hi.resize(size_t(1) << (lg - lo_bits));
    F x = F::one();
    for (auto& v : lo) { v = x; x = x * base; }
    F step = x;  // base^(2^lo_bits)
    x = hi_scale;
    for (auto& v : hi) { v = x; x = x * step; }
  }
};

template <class DF>
__global__ void pow_table_kernel(DF* out, size_t count, pow_ref_t<DF> t) {
  size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < count) out[j] = pow_at<false>(t, uint32_t(j));
}

// The cached twiddle table of F on the current device for transforms up to 2^lg (one per device:
// a pointer is valid only on the device it was allocated on; never shrinks; older tables stay
// alive for calls still using them).
template <class F>
const gpu_t<F>* twiddles(uint32_t lg, uint32_t& tw_lg) {
  using DF = gpu_t<F>;
  constexpr int max_devices = 64;
  static std::mutex mu;
  static const DF* tables[max_devices] = {};
  static uint32_t tables_lg[max_devices] = {};
  int device = 0;
  CUZK_CUDA_OK(cudaGetDevice(&device));
  if (device < 0 || device >= max_devices) fail(CUZK_E_NO_DEVICE, "GPU " + std::to_string(device) + ": at most 64 GPUs are supported");
  const DF*& table = tables[device];
  uint32_t& table_lg = tables_lg[device];
  std::lock_guard<std::mutex> lk(mu);
  if (!table || table_lg < lg) {
    uint32_t want = std::max<uint32_t>(lg, 12);
    pow_tables_t<F> pt(ntt_roots<F>::root(want), want - 1, F::one());
    gpu_stream_t st;
    size_t count = size_t(1) << (want - 1);
    DF *d, *d_lo, *d_hi;
    CUZK_CUDA_OK(cudaMalloc(&d, count * sizeof(DF)));
    CUZK_CUDA_OK(cudaMallocAsync(&d_lo, pt.lo.size() * sizeof(DF), st));
    CUZK_CUDA_OK(cudaMallocAsync(&d_hi, pt.hi.size() * sizeof(DF), st));
    CUZK_CUDA_OK(cudaMemcpyAsync(d_lo, pt.lo.data(), pt.lo.size() * sizeof(DF), cudaMemcpyHostToDevice, st));
    CUZK_CUDA_OK(cudaMemcpyAsync(d_hi, pt.hi.data(), pt.hi.size() * sizeof(DF), cudaMemcpyHostToDevice, st));
    pow_table_kernel<DF><<<ceil_div(count, 256), 256, 0, st>>>(d, count, pow_ref_t<DF>{d_lo, d_hi, pt.lo_bits});
    CUZK_CUDA_LAUNCHED();
    CUZK_CUDA_OK(cudaFreeAsync(d_lo, st));
    CUZK_CUDA_OK(cudaFreeAsync(d_hi, st));
    st.sync();
    table = d;
    table_lg = want;
  }
  tw_lg = table_lg;
  return table;
}

// Which powers a coset table holds: g^j (the forward coset), n^-1·g^-j (the inverse coset), or
// n^-1·g^j (the proof's coset NTT after an iNTT that stored its coefficients unscaled).
enum class coset_kind_t { forward, inverse, forward_over_n };

// The powers of |kind|, j < 2^lg, as two device tables per device, size and kind, made once (a few
// KiB each) and kept for the process: no upload or host wait per transform.
template <class F>
pow_ref_t<gpu_t<F>> coset_tables(uint32_t lg, coset_kind_t kind) {
  using DF = gpu_t<F>;
  static std::mutex mu;
  static std::map<std::tuple<int, uint32_t, coset_kind_t>, pow_ref_t<DF>> tables;
  int device = 0;
  CUZK_CUDA_OK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lk(mu);
  auto it = tables.find({device, lg, kind});
  if (it != tables.end()) return it->second;
  F g = ntt_roots<F>::coset_gen(lg), n_inv = F::from_u64(uint64_t(1) << lg).inv();
  pow_tables_t<F> pt = kind == coset_kind_t::inverse ? pow_tables_t<F>(g.inv(), lg, n_inv)
                       : kind == coset_kind_t::forward_over_n ? pow_tables_t<F>(g, lg, n_inv)
                                                               : pow_tables_t<F>(g, lg, F::one());
  DF *d_lo, *d_hi;
  CUZK_CUDA_OK(cudaMalloc(&d_lo, pt.lo.size() * sizeof(DF)));
  CUZK_CUDA_OK(cudaMalloc(&d_hi, pt.hi.size() * sizeof(DF)));
  CUZK_CUDA_OK(cudaMemcpy(d_lo, pt.lo.data(), pt.lo.size() * sizeof(DF), cudaMemcpyHostToDevice));
  CUZK_CUDA_OK(cudaMemcpy(d_hi, pt.hi.data(), pt.hi.size() * sizeof(DF), cudaMemcpyHostToDevice));
  pow_ref_t<DF> ct{d_lo, d_hi, pt.lo_bits};
  tables.emplace(std::make_tuple(device, lg, kind), ct);
  return ct;
}

// One transform of d_in into d_out (natural order both; d_in is overwritten as scratch), through
// |prep| and with the inverse's finish: 1/n (mode 1), n^-1·g^-r (inverse coset), or none (|scaled|
// false: the proof's iNTT, whose 1/n its coset NTT applies).
template <class F>
void transform(F* d_in, F* d_out, uint32_t lg_n, bool inverse, bool coset, bool scaled, load_prep_t<gpu_t<F>> prep,
               cudaStream_t st, const ntt_variant_t& var) {
  using DF = gpu_t<F>;
  uint32_t tw_lg = 0;
  const DF* tw = twiddles<F>(lg_n, tw_lg);
  store_prep_t<DF> fin;
  fin.out = reinterpret_cast<DF*>(d_out);
  fin.lg_n = lg_n;
  if (inverse && coset) {
    fin.scale = coset_tables<F>(lg_n, coset_kind_t::inverse);
    fin.mode = 2;
  } else if (inverse && scaled) {
    F c = F::from_u64(uint64_t(1) << lg_n).inv();
    std::memcpy(&fin.c, &c, sizeof fin.c);
    fin.mode = 1;
  }
  dif_passes<DF>(reinterpret_cast<DF*>(d_in), lg_n, tw, tw_lg, inverse, prep, fin, st, var);
}

}  // namespace ntt_gpu

// The cuzk_ntt transform on the device: reads d_in (overwritten as scratch), writes d_out (must not
// alias d_in), Montgomery or standard form alike (the transform is linear: see store_prep_t). Queued on
// |st|; |tune| picks the pass kernel (a benchmark passes its own).
template <class F>
void ntt_device(F* d_in, F* d_out, uint32_t lg_n, bool inverse, bool coset, cudaStream_t st,
                const gpu_tuning_t& tune = gpu_tuning()) {
  using namespace ntt_gpu;
  load_prep_t<gpu_t<F>> prep;
  if (coset && !inverse) prep.coset = coset_tables<F>(lg_n, coset_kind_t::forward);
  transform<F>(d_in, d_out, lg_n, inverse, coset, true, prep, st, tune.ntt);
}

// The proof's transform of one vector (groth16/prove_chain_gpu.cuh): evaluations in |v| ->
// coefficients (iNTT, stored unscaled into |scratch|) -> evaluations on the odd coset back in |v|,
// the coset powers times n^-1: the same elements as ntt_device inverse then forward coset (the field's
// products are exact), one multiply per element fewer.
template <class F>
void intt_coset_ntt_device(F* v, F* scratch, uint32_t lg_n, cudaStream_t st, const gpu_tuning_t& tune = gpu_tuning()) {
  using namespace ntt_gpu;
  transform<F>(v, scratch, lg_n, true, false, false, load_prep_t<gpu_t<F>>{}, st, tune.ntt);
  load_prep_t<gpu_t<F>> prep;
  prep.coset = coset_tables<F>(lg_n, coset_kind_t::forward_over_n);
  transform<F>(scratch, v, lg_n, false, true, true, prep, st, tune.ntt);
}

// cuzk_ntt on the GPU, in place on host memory (standard form in and out): upload, the transform with
// each element checked below r as the first pass loads it, and the download only when all were (so a
// rejected call leaves |a| as it was). E_INVALID_ARG names the first problem as cuzk_ntt does.
template <class F>
void ntt_gpu_host(F* a, uint32_t lg_n, bool inverse, bool coset) {
  using namespace ntt_gpu;
  size_t bytes = sizeof(F) << lg_n;
  gpu_stream_t st;
  dev_arena_t ar(st);
  F *d_in = ar.alloc<F>(size_t(1) << lg_n), *d_out = ar.alloc<F>(size_t(1) << lg_n);
  load_prep_t<gpu_t<F>> prep;
  prep.bad = ar.alloc<uint32_t>(1);
  if (coset && !inverse) prep.coset = coset_tables<F>(lg_n, coset_kind_t::forward);
  CUZK_CUDA_OK(cudaMemsetAsync(prep.bad, 0, sizeof(uint32_t), st));
  CUZK_CUDA_OK(cudaMemcpyAsync(d_in, a, bytes, cudaMemcpyHostToDevice, st));
  transform<F>(d_in, d_out, lg_n, inverse, coset, true, prep, st, gpu_tuning().ntt);
  uint32_t bad = 0;
  CUZK_CUDA_OK(cudaMemcpyAsync(&bad, prep.bad, sizeof bad, cudaMemcpyDeviceToHost, st));
  st.sync();
  if (bad) fail(CUZK_E_INVALID_ARG, "cuzk_ntt: an element is not below r");
  CUZK_CUDA_OK(cudaMemcpyAsync(a, d_out, bytes, cudaMemcpyDeviceToHost, st));
  st.sync();
}

}  // namespace cuzk

#define CUZK_NTT_GPU_EXTERN(F)                                                                       \
  extern template void ntt_device<F>(F*, F*, uint32_t, bool, bool, cudaStream_t, const gpu_tuning_t&); \
  extern template void intt_coset_ntt_device<F>(F*, F*, uint32_t, cudaStream_t, const gpu_tuning_t&);  \
  extern template void ntt_gpu_host<F>(F*, uint32_t, bool, bool);
namespace cuzk {
CUZK_NTT_GPU_EXTERN(bn254_fr_t)
CUZK_NTT_GPU_EXTERN(bls12_381_fr_t)
}  // namespace cuzk
#undef CUZK_NTT_GPU_EXTERN
