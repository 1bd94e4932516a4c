// GPU NTT over Fr, the transform of ntt/ntt.hpp (ffjavascript's Fr.fft / Fr.ifft, cuzk.h flags):
// Gentleman-Sande (DIF) stages, natural order in and bit-reversed out, then one pass that permutes to
// natural order and applies the inverse's 1/n and coset powers (and Montgomery conversion) on the way.
// Stages with half-size m >= 2^(lg_smem-1) run one global pass each; the last lg_smem stages run in
// shared memory, 2^lg_smem elements per block. Twiddles come from one cached table T[k] = ω_N^k,
// k < N/2, of the largest size seen: stage m reads ω_2m^j = T[j·N/2m], and inverse stages use
// ω_2m^-j = -ω_2m^(m-j). Powers g^j (coset, twiddle table) are two small host tables multiplied.
#pragma once
#include <cstring>
#include <mutex>
#include <vector>

#include "../curve/dev.cuh"
#include "../util/gpu.hpp"
#include "roots.hpp"

namespace cuzk {
namespace ntt_gpu {

constexpr uint32_t lg_smem = 10;  // 1024 elements = 32 KiB of shared memory per block

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
__device__ __forceinline__ DF pow_at(const DF* lo, const DF* hi, uint32_t lo_bits, uint32_t j) {
  return lo[j & ((1u << lo_bits) - 1)] * hi[j >> lo_bits];
}

template <class DF>
__global__ void pow_table_kernel(DF* out, size_t count, const DF* lo, const DF* hi, uint32_t lo_bits) {
  size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < count) out[j] = pow_at(lo, hi, lo_bits, uint32_t(j));
}

// a[j] = to_mont?(a[j]) · g^j (coset: tables given)
template <class DF>
__global__ void prep_kernel(DF* a, size_t n, bool to_mont, const DF* lo, const DF* hi, uint32_t lo_bits) {
  size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  DF x = a[j];
  if (to_mont) x = x.to_mont();
  if (lo) x = x * pow_at(lo, hi, lo_bits, uint32_t(j));
  a[j] = x;
}

// DIF butterfly on (u, v) with twiddle index j of a stage of half-size 2^lg_m.
template <class DF>
__device__ __forceinline__ void dif_bfly(DF& u, DF& v, uint32_t j, uint32_t lg_m, const DF* tw, uint32_t tw_lg,
                                         bool inverse) {
  DF s = u + v;
  if (j == 0) {
    v = u - v;
  } else if (!inverse) {
    v = (u - v) * tw[size_t(j) << (tw_lg - lg_m - 1)];
  } else {
    v = (v - u) * tw[size_t((1u << lg_m) - j) << (tw_lg - lg_m - 1)];
  }
  u = s;
}

template <class DF>
__global__ void dif_global_kernel(DF* a, uint32_t lg_n, uint32_t lg_m, const DF* tw, uint32_t tw_lg, bool inverse) {
  size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= (size_t(1) << (lg_n - 1))) return;
  size_t m = size_t(1) << lg_m, j = t & (m - 1);
  size_t i = ((t >> lg_m) << (lg_m + 1)) | j;
  DF u = a[i], v = a[i + m];
  dif_bfly(u, v, uint32_t(j), lg_m, tw, tw_lg, inverse);
  a[i] = u;
  a[i + m] = v;
}

// The last lg_b stages (half-sizes 2^(lg_b-1) .. 1) over blocks of 2^lg_b consecutive elements.
template <class DF>
__global__ void dif_smem_kernel(DF* a, uint32_t lg_b, const DF* tw, uint32_t tw_lg, bool inverse) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  DF* x = reinterpret_cast<DF*>(smem_raw);
  uint32_t nb = 1u << lg_b;
  DF* blk = a + size_t(blockIdx.x) * nb;
  for (uint32_t i = threadIdx.x; i < nb; i += blockDim.x) x[i] = blk[i];
  __syncthreads();
  for (uint32_t lg_m = lg_b; lg_m-- > 0;) {
    uint32_t m = 1u << lg_m;
    for (uint32_t t = threadIdx.x; t < nb / 2; t += blockDim.x) {
      uint32_t j = t & (m - 1), i = ((t >> lg_m) << (lg_m + 1)) | j;
      DF u = x[i], v = x[i + m];
      dif_bfly(u, v, j, lg_m, tw, tw_lg, inverse);
      x[i] = u;
      x[i + m] = v;
    }
    __syncthreads();
  }
  for (uint32_t i = threadIdx.x; i < nb; i += blockDim.x) blk[i] = x[i];
}

// out[rev(i)] = in[i] · scale(rev(i)), then from_mont?; scale = 1 (mode 0), |c| (mode 1), or the
// tables (mode 2: n^-1·g^-r for the inverse coset, n^-1 folded into hi).
template <class DF>
__global__ void finish_kernel(const DF* in, DF* out, uint32_t lg_n, int mode, DF c, const DF* lo, const DF* hi,
                              uint32_t lo_bits, bool from_mont) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= (size_t(1) << lg_n)) return;
  uint32_t r = lg_n ? __brev(uint32_t(i)) >> (32 - lg_n) : 0;
  DF x = in[i];
  if (mode == 1) x = x * c;
  else if (mode == 2) x = x * pow_at(lo, hi, lo_bits, r);
  if (from_mont) x = x.from_mont();
  out[r] = x;
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
    pow_table_kernel<DF><<<ceil_div(count, 256), 256, 0, st>>>(d, count, d_lo, d_hi, pt.lo_bits);
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

}  // namespace ntt_gpu

// The cuzk_ntt transform on the device: reads d_in (overwritten as scratch), writes d_out (must not
// alias d_in). |std_io|: elements are standard form in and out (else Montgomery). Queued on |st|.
template <class F>
void ntt_device(F* d_in, F* d_out, uint32_t lg_n, bool inverse, bool coset, bool std_io, cudaStream_t st) {
  using namespace ntt_gpu;
  using DF = gpu_t<F>;
  DF* a = reinterpret_cast<DF*>(d_in);
  size_t n = size_t(1) << lg_n;
  uint32_t tw_lg = 0;
  const DF* tw = twiddles<F>(lg_n, tw_lg);
  dev_arena_t ar(st);
  F g = ntt_roots<F>::coset_gen(lg_n);
  auto upload = [&](const std::vector<F>& v) {
    DF* d = ar.alloc<DF>(v.size());
    CUZK_CUDA_OK(cudaMemcpyAsync(d, v.data(), v.size() * sizeof(F), cudaMemcpyHostToDevice, st));
    return d;
  };
  if (std_io || (coset && !inverse)) {
    const DF *lo = nullptr, *hi = nullptr;
    uint32_t lo_bits = 0;
    if (coset && !inverse) {
      pow_tables_t<F> pt(g, lg_n, F::one());
      lo = upload(pt.lo);
      hi = upload(pt.hi);
      lo_bits = pt.lo_bits;
      CUZK_CUDA_OK(cudaStreamSynchronize(st));  // the host tables die at the end of this scope
    }
    prep_kernel<DF><<<ceil_div(n, 256), 256, 0, st>>>(a, n, std_io, lo, hi, lo_bits);
    CUZK_CUDA_LAUNCHED();
  }
  uint32_t lg_b = std::min(lg_n, lg_smem);
  for (uint32_t lg_m = lg_n; lg_m-- > lg_b;) {
    dif_global_kernel<DF><<<ceil_div(n / 2, 256), 256, 0, st>>>(a, lg_n, lg_m, tw, tw_lg, inverse);
    CUZK_CUDA_LAUNCHED();
  }
  if (lg_b > 0) {
    uint32_t threads = std::min<uint32_t>(256, 1u << (lg_b - 1));
    dif_smem_kernel<DF><<<unsigned(n >> lg_b), threads, sizeof(DF) << lg_b, st>>>(a, lg_b, tw, tw_lg, inverse);
    CUZK_CUDA_LAUNCHED();
  }
  int mode = 0;
  F c = F::one();
  const DF *lo = nullptr, *hi = nullptr;
  uint32_t lo_bits = 0;
  if (inverse) {
    F n_inv = F::from_u64(n).inv();
    if (coset) {
      pow_tables_t<F> pt(g.inv(), lg_n, n_inv);
      lo = upload(pt.lo);
      hi = upload(pt.hi);
      lo_bits = pt.lo_bits;
      mode = 2;
      CUZK_CUDA_OK(cudaStreamSynchronize(st));
    } else {
      c = n_inv;
      mode = 1;
    }
  }
  DF dc;
  std::memcpy(&dc, &c, sizeof dc);
  finish_kernel<DF><<<ceil_div(n, 256), 256, 0, st>>>(a, reinterpret_cast<DF*>(d_out), lg_n, mode, dc, lo, hi,
                                                      lo_bits, std_io);
  CUZK_CUDA_LAUNCHED();
}

// In place on host memory (standard form in and out): upload, ntt_device, download.
template <class F>
void ntt_gpu_host(F* a, uint32_t lg_n, bool inverse, bool coset) {
  size_t bytes = sizeof(F) << lg_n;
  gpu_stream_t st;
  dev_arena_t ar(st);
  F *d_in = ar.alloc<F>(size_t(1) << lg_n), *d_out = ar.alloc<F>(size_t(1) << lg_n);
  CUZK_CUDA_OK(cudaMemcpyAsync(d_in, a, bytes, cudaMemcpyHostToDevice, st));
  ntt_device<F>(d_in, d_out, lg_n, inverse, coset, true, st);
  CUZK_CUDA_OK(cudaMemcpyAsync(a, d_out, bytes, cudaMemcpyDeviceToHost, st));
  st.sync();
}

}  // namespace cuzk

#define CUZK_NTT_GPU_EXTERN(F)                                                                 \
  extern template void ntt_device<F>(F*, F*, uint32_t, bool, bool, bool, cudaStream_t); \
  extern template void ntt_gpu_host<F>(F*, uint32_t, bool, bool);
namespace cuzk {
CUZK_NTT_GPU_EXTERN(bn254_fr_t)
CUZK_NTT_GPU_EXTERN(bls12_381_fr_t)
}  // namespace cuzk
#undef CUZK_NTT_GPU_EXTERN
