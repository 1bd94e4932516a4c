// Fixed-base scalar multiplication on the GPU: out[i] = k_i·B for one base B and many k_i (dev
// proving-key setup), the GPU side of cuzk_batch_mul. The table T[w][j] = (j+1)·2^(c·w)·B is
// fixed_base.hpp's, built on the host threads and uploaded once per call; one thread per scalar
// recodes it into signed c-bit digits (pippenger_cpu.hpp's recoding) and sums nwin table entries
// with XYZZ mixed additions; then each thread of a second kernel takes `affine_per_thread` results
// (strided, so loads coalesce) to affine with one Fermat inversion (Montgomery's trick). The table
// covers all 256 bits (plus the recoding's carry), so any 256-bit scalar works and no host pass
// over the scalars is needed. Results are canonical affine points: byte-identical to the CPU path.
//
// API:
//   template <class G> void fixed_base_gpu_host(const affine_t<G>& base, const uint8_t* scalars,
//                                               size_t n, affine_t<G>* out);
//     host pointers (32-byte standard little-endian scalars, any 256-bit value; LEM affine out),
//     on the current device; blocks of `block_points` scalars at a time.
#pragma once
#include <algorithm>
#include <vector>

#include "../curve/dev.cuh"
#include "../util/gpu.hpp"
#include "fixed_base.hpp"

namespace cuzk {
namespace fixed_base_gpu {

using dev::daffine_t;
using dev::dxyzz_t;

constexpr unsigned scalar_bits = 256;
constexpr size_t block_points = size_t(1) << 21;  // device scratch per block: BLS12-381 G2 ~1 GB
constexpr unsigned affine_per_thread = 32;        // one inversion (~380M) per 32 points
constexpr size_t max_table_bytes = size_t(32) << 20;

// A table entry costs a host Jacobian addition, its share of the batched affine conversion and an
// upload (~35 ns of 16 host threads plus ~9 ns of PCIe for a BN254 G1 entry) against ~0.2 ns for a
// GPU mixed addition: weight 200. Minimises n·nwin + 200·entries under the table cap.
inline unsigned choose_window(size_t n, size_t point_bytes) {
  unsigned best = 4;
  double best_cost = 1e300;
  for (unsigned c = 4; c <= 16; c++) {
    unsigned nwin = (scalar_bits + 1 + c - 1) / c;
    size_t entries = size_t(nwin) << (c - 1);
    if (entries * point_bytes > max_table_bytes) break;
    double cost = double(n) * nwin + 200.0 * double(entries);
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

// Fermat: a^(p-2); 0 stays 0. Called once per affine_per_thread points, so its loop is not unrolled.
template <class P>
__device__ dev::dmont_t<P> inverse(const dev::dmont_t<P>& a) {
  using F = dev::dmont_t<P>;
  F r = F::one();
#pragma unroll 1
  for (int i = int(F::N) - 1; i >= 0; i--) {
    uint32_t e = P::mod(size_t(i)) - (i == 0 ? 2u : 0u);  // p is odd and its low limb >= 2
#pragma unroll 1
    for (int b = 31; b >= 0; b--) {
      r = r.sqr();
      if ((e >> b) & 1) r = r * a;
    }
  }
  return r;
}
// (c0 + c1·u)^-1 = (c0 - c1·u)/(c0² + c1²) in F[u]/(u² + 1)
template <class F>
__device__ dev::dfp2_t<F> inverse(const dev::dfp2_t<F>& a) {
  F t = inverse(a.c0.sqr() + a.c1.sqr());
  return {a.c0 * t, -(a.c1 * t)};
}

// Bits [off, off + c) of the 256-bit k (8 limbs of 32), zero past bit 255.
__device__ __forceinline__ uint32_t window_bits(const uint32_t* k, unsigned off, unsigned c) {
  unsigned li = off >> 5, sh = off & 31;
  if (li >= 8) return 0;
  uint64_t v = k[li] >> sh;
  if (sh + c > 32 && li + 1 < 8) v |= uint64_t(k[li + 1]) << (32 - sh);
  return uint32_t(v) & ((1u << c) - 1);
}

// acc[i] = k_i·B: signed digits as msm_detail::recode, |d| - 1 indexing row w of the table.
template <class DF>
__global__ void mul_kernel(const daffine_t<DF>* __restrict__ table, unsigned c, unsigned nwin,
                           const uint4* __restrict__ scalars, uint32_t n, dxyzz_t<DF>* __restrict__ acc) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint4 lo = scalars[2 * size_t(i)], hi = scalars[2 * size_t(i) + 1];
  uint32_t k[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  uint32_t half = 1u << (c - 1), carry = 0;
  dxyzz_t<DF> r = dxyzz_t<DF>::infinity();
  for (unsigned w = 0; w < nwin; w++) {
    uint32_t raw = window_bits(k, w * c, c) + carry;
    carry = raw > half;
    int32_t d = int32_t(raw) - int32_t(carry << c);
    if (d == 0) continue;
    daffine_t<DF> e = table[size_t(w) * half + uint32_t(d < 0 ? -d : d) - 1];
    if (!e.is_inf()) r.add_affine(e.x, e.y, d < 0);
  }
  acc[i] = r;
}

// out[i] = affine(acc[i]) with x = X/ZZ = X·ZZZ/(ZZ·ZZZ), y = Y·ZZ/(ZZ·ZZZ); one inversion per thread
// over its affine_per_thread points tile + t + s·blockDim (s < affine_per_thread); infinity -> all zero.
template <class DF>
__global__ void to_affine_kernel(const dxyzz_t<DF>* __restrict__ acc, uint32_t n, DF* __restrict__ prefix,
                                 daffine_t<DF>* __restrict__ out) {
  size_t tile = size_t(blockIdx.x) * blockDim.x * affine_per_thread;
  size_t first = tile + threadIdx.x, step = blockDim.x;
  DF run = DF::one();
  for (unsigned s = 0; s < affine_per_thread; s++) {
    size_t i = first + s * step;
    if (i >= n) break;
    prefix[i] = run;
    const dxyzz_t<DF>& p = acc[i];
    if (!p.is_inf()) run = run * (p.ZZ * p.ZZZ);
  }
  DF inv = inverse(run);
  for (int s = int(affine_per_thread) - 1; s >= 0; s--) {
    size_t i = first + size_t(s) * step;
    if (i >= n) continue;
    dxyzz_t<DF> p = acc[i];
    if (p.is_inf()) {
      out[i] = {DF::zero(), DF::zero()};
      continue;
    }
    DF t = inv * prefix[i];  // 1/(ZZ·ZZZ)
    inv = inv * (p.ZZ * p.ZZZ);
    out[i] = {p.X * p.ZZZ * t, p.Y * p.ZZ * t};
  }
}

}  // namespace fixed_base_gpu

template <class G>
void fixed_base_gpu_host(const affine_t<G>& base, const uint8_t* scalars, size_t n, affine_t<G>* out) {
  using namespace fixed_base_gpu;
  using DF = gpu_t<G>;
  using DA = daffine_t<DF>;
  using DX = dxyzz_t<DF>;
  if (n == 0) return;
  if (base.is_inf()) {
    std::fill(out, out + n, affine_t<G>::infinity());
    return;
  }
  unsigned c = choose_window(std::min(n, block_points * 8), sizeof(affine_t<G>));
  unsigned nwin = (scalar_bits + 1 + c - 1) / c;
  std::vector<affine_t<G>> table = fixed_base_detail::build_table<G>(base, c, nwin);
  gpu_stream_t st;
  dev_arena_t ar(st);
  size_t bn = std::min(n, block_points);
  auto* d_table = ar.alloc<DA>(table.size());
  auto* d_sc = ar.alloc<uint4>(2 * bn);
  auto* d_acc = ar.alloc<DX>(bn);
  auto* d_prefix = ar.alloc<DF>(bn);
  auto* d_out = ar.alloc<DA>(bn);
  CUZK_CUDA_OK(cudaMemcpyAsync(d_table, table.data(), table.size() * sizeof(DA), cudaMemcpyHostToDevice, st));
  constexpr unsigned threads = 128;
  for (size_t b0 = 0; b0 < n; b0 += bn) {
    uint32_t m = uint32_t(std::min(bn, n - b0));
    CUZK_CUDA_OK(cudaMemcpyAsync(d_sc, scalars + 32 * b0, size_t(m) * 32, cudaMemcpyHostToDevice, st));
    mul_kernel<DF><<<ceil_div(m, threads), threads, 0, st>>>(d_table, c, nwin, d_sc, m, d_acc);
    CUZK_CUDA_LAUNCHED();
    to_affine_kernel<DF><<<ceil_div(m, threads * affine_per_thread), threads, 0, st>>>(d_acc, m, d_prefix, d_out);
    CUZK_CUDA_LAUNCHED();
    CUZK_CUDA_OK(cudaMemcpyAsync(out + b0, d_out, size_t(m) * sizeof(DA), cudaMemcpyDeviceToHost, st));
  }
  st.sync();
}

// Instantiated once each in msm/fixed_base_gpu.cu.
#define CUZK_FIXED_BASE_GPU_INSTANCES(EXTERN, G) \
  EXTERN template void fixed_base_gpu_host<G>(const affine_t<G>&, const uint8_t*, size_t, affine_t<G>*);
#ifndef CUZK_FIXED_BASE_GPU_INSTANTIATE
CUZK_FIXED_BASE_GPU_INSTANCES(extern, bn254_g1_params)
CUZK_FIXED_BASE_GPU_INSTANCES(extern, bn254_g2_params)
CUZK_FIXED_BASE_GPU_INSTANCES(extern, bls12_381_g1_params)
CUZK_FIXED_BASE_GPU_INSTANCES(extern, bls12_381_g2_params)
#endif

}  // namespace cuzk
