// The GPU MSM's reduction, step 4 (msm_gpu.cuh runs it): per window sum_b (b+1)·B_b on the device,
// in levels of K items per thread (reduce_level_kernel), and the sum of the points whose scalar is 1
// (a tree in shared memory). The c-bit window combination (Horner) and the 1-sum's addition finish
// on the host (msm_planned).
#pragma once
#include <algorithm>

#include "msm_gpu_base.cuh"

namespace cuzk {
namespace msm_gpu {

template <class X>
__device__ __forceinline__ void block_reduce(X acc, X* sm, X* out) {
  sm[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      X a = sm[threadIdx.x];
      a.add(sm[threadIdx.x + s]);
      sm[threadIdx.x] = a;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = sm[0];
}

// One level of the weighted bucket sum. Input per window: |items| pairs (a_j, s_j), each standing for
// a run of 2^lg_len buckets with a_j = sum (local index + 1)·B and s_j = sum B. A thread joins K
// consecutive pairs: a = sum a_j + 2^lg_len · sum j·s_j, s = sum s_j, with sum j·s_j by running sums.
// Level 0 reads the buckets themselves (a_j = s_j = B_j, lg_len = 0), so a = s + sum j·s_j.
template <class DF>
__global__ void __launch_bounds__(128) reduce_level_kernel(
    const dxyzz_t<DF>* a_in, const dxyzz_t<DF>* s_in, uint32_t items, uint32_t K, uint32_t lg_len,
    uint32_t nwin, bool first, dxyzz_t<DF>* a_out, dxyzz_t<DF>* s_out) {
  using X = dxyzz_t<DF>;
  uint32_t per = items / K, tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= nwin * per) return;
  size_t base = size_t(tid / per) * items + size_t(tid % per) * K;
  X run = X::infinity(), wsum = X::infinity();
  for (uint32_t j = K - 1; j >= 1; j--) {
    run.add(s_in[base + j]);
    wsum.add(run);
  }
  run.add(s_in[base]);
  X acc;
  if (first) {
    acc = run;
    acc.add(wsum);
  } else {
    for (uint32_t i = 0; i < lg_len; i++) wsum = wsum.dbl();
    acc = wsum;
    for (uint32_t j = 0; j < K; j++) acc.add(a_in[base + j]);
  }
  a_out[tid] = acc;
  s_out[tid] = run;
}

// sum of pts[idx[i]], i < count: per-thread strided sums, then a tree in shared memory per block.
template <class DF>
__global__ void sum_points_kernel(const daffine_t<DF>* pts, const uint32_t* idx, uint32_t count,
                                  dxyzz_t<DF>* out) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  using X = dxyzz_t<DF>;
  X acc = X::infinity();
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    const daffine_t<DF>& q = pts[idx[i]];
    if (!q.is_inf()) acc.add_affine(q.x, q.y, false);
  }
  block_reduce(acc, reinterpret_cast<X*>(smem_raw), out + blockIdx.x);
}

template <class DF>
__global__ void sum_xyzz_kernel(const dxyzz_t<DF>* in, uint32_t count, dxyzz_t<DF>* out) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  using X = dxyzz_t<DF>;
  X acc = X::infinity();
  for (uint32_t i = threadIdx.x; i < count; i += blockDim.x) acc.add(in[i]);
  block_reduce(acc, reinterpret_cast<X*>(smem_raw), out);
}

// Threads per block for the shared-memory trees: <= 32 KiB of buckets.
template <class X>
constexpr unsigned tree_threads() {
  unsigned t = 256;
  while (t > 32 && t * sizeof(X) > 32768) t /= 2;
  return t;
}

// Launches sum pts[idx[i]] for i < n1 into *out (device).
template <class DF>
void ones_sum(dev_arena_t& ar, const daffine_t<DF>* pts, const uint32_t* idx, uint32_t n1, dxyzz_t<DF>* out) {
  using X = dxyzz_t<DF>;
  constexpr unsigned T = tree_threads<X>();
  unsigned blocks = std::min<unsigned>(ceil_div(n1, T), 2 * unsigned(gpu_info().sm_count));
  X* partial = ar.alloc<X>(blocks);
  sum_points_kernel<DF><<<blocks, T, T * sizeof(X), ar.stream()>>>(pts, idx, n1, partial);
  CUZK_CUDA_LAUNCHED();
  sum_xyzz_kernel<DF><<<1, T, T * sizeof(X), ar.stream()>>>(partial, blocks, out);
  CUZK_CUDA_LAUNCHED();
}

// The nwin window sums sum_b (b+1)·B_b of |buckets| (nwin windows of |half| buckets each; device, in
// |ar|): reduce_level_kernel in levels of 8 then 4 items per thread until one item per window is left.
template <class DF>
const dxyzz_t<DF>* window_sums(dev_arena_t& ar, const dxyzz_t<DF>* buckets, uint32_t nwin, uint32_t half) {
  using X = dxyzz_t<DF>;
  cudaStream_t st = ar.stream();
  const X *a = buckets, *s = buckets;
  uint32_t items = half, lg_len = 0;
  for (bool first = true; first || items > 1; first = false) {
    uint32_t K = std::min<uint32_t>(items, first ? 8 : 4), per = items / K;
    X *a_out = ar.alloc<X>(size_t(nwin) * per), *s_out = ar.alloc<X>(size_t(nwin) * per);
    reduce_level_kernel<DF><<<ceil_div(size_t(nwin) * per, 128), 128, 0, st>>>(a, s, items, K, lg_len, nwin, first,
                                                                                a_out, s_out);
    CUZK_CUDA_LAUNCHED();
    a = a_out;
    s = s_out;
    items = per;
    lg_len += 31 - __builtin_clz(K);
  }
  return a;
}

}  // namespace msm_gpu
}  // namespace cuzk
