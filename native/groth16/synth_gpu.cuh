// Phase 1 of a proof on the GPU: a = A·w, b = B·w from the key's coefficients kept resident in the
// layout of groth16/synth_layout.hpp. Each record contributes v·w[s], the Montgomery product of the
// stored v·R^2 with the standard-form witness, which lands in Montgomery form exactly as the CPU
// scatter (groth16/prove.hpp) does; every product and sum is reduced below r on both sides, so the
// vectors are byte-identical whatever order the terms are added in. Rows of at most synth_short_row
// records take one thread, longer rows a warp (lanes stride the row, then a shuffle reduction), and
// every row is written once (empty rows as zero), so the output needs no clearing and no atomics.
#pragma once
#include "../curve/dev.cuh"
#include "../util/gpu.hpp"
#include "synth_layout.hpp"

namespace cuzk {

// The layout on one device; freed by its owner (the key table of groth16/prove_gpu.cu) on that device.
struct synth_dev_t {
  uint32_t* row_ptr = nullptr;
  uint32_t* wire = nullptr;
  void* value = nullptr;
  uint32_t* long_rows = nullptr;
  uint32_t n_long = 0;
  uint32_t rows = 0;  // 2 × domain_size

  void free_all() {
    for (void* p : {static_cast<void*>(row_ptr), static_cast<void*>(wire), value, static_cast<void*>(long_rows)})
      if (p) (void)cudaFree(p);
    row_ptr = wire = long_rows = nullptr;
    value = nullptr;
  }
};

namespace synth_detail {

template <class T>
T* dev_alloc(size_t count, T*& slot) {
  if (count == 0) return nullptr;
  void* p = nullptr;
  CUZK_CUDA_OK(cudaMalloc(&p, count * sizeof(T)));
  slot = static_cast<T*>(p);
  return slot;
}

template <class DF>
__device__ __forceinline__ DF row_term(const uint32_t* __restrict__ wire, const DF* __restrict__ value,
                                       const DF* __restrict__ w, uint32_t k) {
  DF x = w[wire[k]];
  return x.is_zero() ? x : value[k] * x;  // most witness values are 0 or 1: skip the product for 0
}

template <class DF>
__global__ void synth_short_kernel(const uint32_t* __restrict__ row_ptr, const uint32_t* __restrict__ wire,
                                   const DF* __restrict__ value, const DF* __restrict__ w, DF* __restrict__ out,
                                   uint32_t rows) {
  uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  uint32_t b = row_ptr[r], e = row_ptr[r + 1];
  if (e - b > synth_short_row) return;  // the warp kernel's row
  DF acc = DF::zero();
  for (uint32_t k = b; k < e; k++) acc += row_term(wire, value, w, k);
  out[r] = acc;
}

// One warp per listed row; blockDim is a multiple of 32, so a warp exits whole and every shuffle
// has all its lanes.
template <class DF>
__global__ void synth_long_kernel(const uint32_t* __restrict__ row_ptr, const uint32_t* __restrict__ wire,
                                  const DF* __restrict__ value, const DF* __restrict__ w, DF* __restrict__ out,
                                  const uint32_t* __restrict__ long_rows, uint32_t n_long) {
  uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
  if (warp >= n_long) return;
  uint32_t r = long_rows[warp], e = row_ptr[r + 1];
  DF acc = DF::zero();
  for (uint32_t k = row_ptr[r] + lane; k < e; k += 32) acc += row_term(wire, value, w, k);
#pragma unroll
  for (uint32_t off = 16; off > 0; off >>= 1) {
    DF o;
#pragma unroll
    for (size_t i = 0; i < DF::N; i++) o.l[i] = __shfl_xor_sync(0xffffffffu, acc.l[i], off);
    acc += o;
  }
  if (lane == 0) out[r] = acc;
}

}  // namespace synth_detail

// Builds the layout on the host threads and uploads it to the current device, window by window
// (pageable copies: once per key and device). On an exception what was allocated is in |out|, for
// its owner to free.
inline void synth_upload(const cuzk_key& key, synth_dev_t& out) {
  using namespace synth_detail;
  synth_layout_t lay = synth_layout(key);
  const uint64_t n_rec = lay.row_ptr.back();
  out.rows = uint32_t(lay.row_ptr.size() - 1);
  out.n_long = uint32_t(lay.long_rows.size());
  dev_alloc(lay.row_ptr.size(), out.row_ptr);
  dev_alloc(n_rec, out.wire);
  if (n_rec) CUZK_CUDA_OK(cudaMalloc(&out.value, n_rec * synth_value_bytes));
  dev_alloc(lay.long_rows.size(), out.long_rows);
  CUZK_CUDA_OK(cudaMemcpy(out.row_ptr, lay.row_ptr.data(), lay.row_ptr.size() * 4, cudaMemcpyHostToDevice));
  if (out.n_long)
    CUZK_CUDA_OK(cudaMemcpy(out.long_rows, lay.long_rows.data(), size_t(out.n_long) * 4, cudaMemcpyHostToDevice));
  lay.stream(key, [&](uint64_t first, uint64_t count, const uint32_t* wires, const uint8_t* values) {
    CUZK_CUDA_OK(cudaMemcpy(out.wire + first, wires, count * 4, cudaMemcpyHostToDevice));
    CUZK_CUDA_OK(cudaMemcpy(static_cast<uint8_t*>(out.value) + first * synth_value_bytes, values,
                            count * synth_value_bytes, cudaMemcpyHostToDevice));
  });
}

// a ‖ b (2 × domain_size elements at |ab|, Montgomery form) from the device witness |w| (n_vars
// standard-form scalars), on |st|. |ab| may hold anything before: every element is written.
template <class F>
void synth_device(const synth_dev_t& lay, const uint8_t* w, F* ab, cudaStream_t st) {
  using namespace synth_detail;
  using DF = gpu_t<F>;
  const DF* value = static_cast<const DF*>(lay.value);
  const DF* dw = reinterpret_cast<const DF*>(w);
  DF* out = reinterpret_cast<DF*>(ab);
  synth_short_kernel<DF><<<ceil_div(lay.rows, 256), 256, 0, st>>>(lay.row_ptr, lay.wire, value, dw, out, lay.rows);
  CUZK_CUDA_LAUNCHED();
  if (lay.n_long == 0) return;
  synth_long_kernel<DF><<<ceil_div(size_t(lay.n_long) * 32, 256), 256, 0, st>>>(lay.row_ptr, lay.wire, value, dw, out,
                                                                                lay.long_rows, lay.n_long);
  CUZK_CUDA_LAUNCHED();
}

}  // namespace cuzk
