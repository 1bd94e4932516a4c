// Phase 1 of a proof on the GPU: a = A·w, b = B·w from the key's coefficients kept resident in the
// layout of groth16/synth_layout.hpp. Each record contributes v·w[s], the Montgomery product of the
// stored v·R^2 with the standard-form witness, which lands in Montgomery form exactly as the CPU
// scatter (groth16/prove.hpp) does; every product and sum is reduced below r on both sides, so the
// vectors are byte-identical whatever order the terms are added in. Rows of at most synth_short_row
// records take one thread, longer rows a warp (lanes stride the row, then a shuffle reduction), and
// every row is written once (empty rows as zero), so the output needs no clearing and no atomics.
// Streamed (a key placed with its coefficients streamed, key_gpu.cuh): the records stay in page-locked
// host memory in the same CSR order, and each proof reads them by row ranges of at most about
// chunk_records records through a staging ring (chunk_ring_gpu.cuh), rows [r0, r1) from records
// [row_ptr[r0], row_ptr[r1]); the row offsets and the long-row list stay resident.
#pragma once
#include <algorithm>
#include <cstring>
#include <vector>

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "../curve/dev.cuh"
#include "../msm/msm_gpu_digits.cuh"
#include "../util/gpu.hpp"
#include "chunk_ring_gpu.cuh"
#include "synth_layout.hpp"

namespace cuzk {

// The layout on one device; freed by its owner (the key table of groth16/prove_gpu.cu) on that device.
// A streamed layout's row range: rows [row0, row1), records [rec0, rec1), long_rows[long0, long1).
struct synth_chunk_t {
  uint32_t row0, row1, rec0, rec1, long0, long1;
};

struct synth_dev_t {
  uint32_t* row_ptr = nullptr;
  uint32_t* wire = nullptr;  // device records (null when streamed)
  void* value = nullptr;
  uint32_t* long_rows = nullptr;
  uint32_t n_long = 0;
  uint32_t rows = 0;  // 2 × domain_size
  // streamed: the records in page-locked host memory (cudaHostAlloc, once per placement), the row
  // ranges and the most records one range holds (a staging slot's size)
  uint32_t* host_wire = nullptr;
  uint8_t* host_value = nullptr;
  std::vector<synth_chunk_t> chunks;
  uint64_t max_chunk_records = 0;

  bool streamed() const { return host_wire != nullptr; }
  void free_all() {
    for (void* p : {static_cast<void*>(row_ptr), static_cast<void*>(wire), value, static_cast<void*>(long_rows)})
      if (p) (void)cudaFree(p);
    for (void* p : {static_cast<void*>(host_wire), static_cast<void*>(host_value)})
      if (p) (void)cudaFreeHost(p);
    row_ptr = wire = long_rows = host_wire = nullptr;
    value = nullptr;
    host_value = nullptr;
  }
};

// Where a streamed layout's slot holds the values: after the largest row range's wires, 256-byte aligned.
inline size_t synth_values_at(const synth_dev_t& lay) { return (lay.max_chunk_records * 4 + 255) / 256 * 256; }

namespace synth_detail {

template <class T>
T* dev_alloc(size_t count, T*& slot) {
  if (count == 0) return nullptr;
  void* p = nullptr;
  CUZK_CUDA_OK(cudaMalloc(&p, count * sizeof(T)));
  slot = static_cast<T*>(p);
  return slot;
}

// |wire| and |value| hold the records from rec0 on (0 when resident, a chunk's first when streamed).
template <class DF>
__device__ __forceinline__ DF row_term(const uint32_t* __restrict__ wire, const DF* __restrict__ value,
                                       const DF* __restrict__ w, uint32_t k) {
  DF x = w[wire[k]];
  return x.is_zero() ? x : value[k] * x;  // most witness values are 0 or 1: skip the product for 0
}

// Rows [row0, row1).
template <class DF>
__global__ void synth_short_kernel(const uint32_t* __restrict__ row_ptr, const uint32_t* __restrict__ wire,
                                   const DF* __restrict__ value, const DF* __restrict__ w, DF* __restrict__ out,
                                   uint32_t row0, uint32_t row1, uint32_t rec0) {
  uint32_t r = row0 + blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= row1) return;
  uint32_t b = row_ptr[r], e = row_ptr[r + 1];
  if (e - b > synth_short_row) return;  // the warp kernel's row
  DF acc = DF::zero();
  for (uint32_t k = b; k < e; k++) acc += row_term(wire, value, w, k - rec0);
  out[r] = acc;
}

// One warp per listed row; blockDim is a multiple of 32, so a warp exits whole and every shuffle
// has all its lanes.
template <class DF>
__global__ void synth_long_kernel(const uint32_t* __restrict__ row_ptr, const uint32_t* __restrict__ wire,
                                  const DF* __restrict__ value, const DF* __restrict__ w, DF* __restrict__ out,
                                  const uint32_t* __restrict__ long_rows, uint32_t n_long, uint32_t rec0) {
  uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
  if (warp >= n_long) return;
  uint32_t r = long_rows[warp], e = row_ptr[r + 1];
  DF acc = DF::zero();
  for (uint32_t k = row_ptr[r] + lane; k < e; k += 32) acc += row_term(wire, value, w, k - rec0);
#pragma unroll
  for (uint32_t off = 16; off > 0; off >>= 1) {
    DF o;
#pragma unroll
    for (size_t i = 0; i < DF::N; i++) o.l[i] = __shfl_xor_sync(0xffffffffu, acc.l[i], off);
    acc += o;
  }
  if (lane == 0) out[r] = acc;
}

// The layout built on the device from the key's coefficient section, read in place from its pinned
// host memory (|rec|: its device address; 44-byte records, 4-byte aligned: m, c, s as u32, the value's
// 32 bytes). Counts go into |rp|[row] (row = m·n + c), the long rows are listed from the counts, an
// inclusive scan turns rp[r] into row r's end, and the scatter claims each record's place from the
// end down (atomicSub), so rp[r] ends as row r's start: the CSR offsets with no second array. A row's
// records land in any order, which the sums do not see (exact in any order: synth_gpu.cuh's header).
static __global__ void layout_count_kernel(const uint32_t* __restrict__ rec, uint64_t n_rec, uint32_t n, uint32_t* rp) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n_rec; i += uint64_t(gridDim.x) * blockDim.x) {
    const uint32_t* r = rec + i * 11;
    atomicAdd(&rp[size_t(r[0]) * n + r[1]], 1u);
  }
}

static __global__ void layout_scatter_kernel(const uint32_t* __restrict__ rec, uint64_t n_rec, uint32_t n, uint32_t* rp,
                                      uint32_t* __restrict__ wire, uint32_t* __restrict__ value) {
  for (uint64_t i = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x; i < n_rec; i += uint64_t(gridDim.x) * blockDim.x) {
    const uint32_t* r = rec + i * 11;
    const uint32_t pos = atomicSub(&rp[size_t(r[0]) * n + r[1]], 1u) - 1;
    wire[pos] = r[2];
    uint32_t* v = value + size_t(pos) * 8;
#pragma unroll
    for (int k = 0; k < 8; k++) v[k] = r[3 + k];
  }
}

struct is_long_row_t {
  const uint32_t* count;
  __device__ bool operator()(uint32_t r) const { return count[r] > synth_short_row; }
};

// Builds |out|'s resident layout on the current device from the records at |rec| (device-mapped host
// memory); false (nothing allocated) when the section is not mapped for the device, so the caller
// builds it on the host instead.
inline bool synth_build_on_device(const cuzk_key& key, synth_dev_t& out) {
  const uint64_t n_rec = key.desc.n_coefs;
  const uint32_t n = key.desc.domain_size, rows = 2 * n;
  uint32_t* rec = nullptr;
  if (n_rec == 0 || cudaHostGetDevicePointer(reinterpret_cast<void**>(&rec), const_cast<uint8_t*>(key.desc.coefs), 0) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  out.rows = rows;
  dev_alloc(size_t(rows) + 1, out.row_ptr);
  dev_alloc(n_rec, out.wire);
  CUZK_CUDA_OK(cudaMalloc(&out.value, n_rec * synth_value_bytes));
  dev_alloc(std::max<uint64_t>(n_rec / (synth_short_row + 1), 1), out.long_rows);
  cudaStream_t st = nullptr;
  {
    dev_arena_t ar(st);
    uint32_t* n_long = ar.alloc<uint32_t>(1);
    const unsigned grid = std::min<unsigned>(ceil_div(n_rec, 256), 65535u);
    CUZK_CUDA_OK(cudaMemsetAsync(out.row_ptr, 0, (size_t(rows) + 1) * 4, st));
    layout_count_kernel<<<grid, 256, 0, st>>>(rec, n_rec, n, out.row_ptr);
    CUZK_CUDA_LAUNCHED();
    thrust::counting_iterator<uint32_t> row_ids(0);
    msm_gpu::cub_run(ar, [&](void* t, size_t& b) {
      return cub::DeviceSelect::If(t, b, row_ids, out.long_rows, n_long, rows, is_long_row_t{out.row_ptr}, st);
    });
    msm_gpu::cub_run(ar, [&](void* t, size_t& b) { return cub::DeviceScan::InclusiveSum(t, b, out.row_ptr, out.row_ptr, rows, st); });
    const uint32_t total = uint32_t(n_rec);
    CUZK_CUDA_OK(cudaMemcpyAsync(out.row_ptr + rows, &total, 4, cudaMemcpyHostToDevice, st));
    layout_scatter_kernel<<<grid, 256, 0, st>>>(rec, n_rec, n, out.row_ptr, out.wire, static_cast<uint32_t*>(out.value));
    CUZK_CUDA_LAUNCHED();
    CUZK_CUDA_OK(cudaMemcpyAsync(&out.n_long, n_long, 4, cudaMemcpyDeviceToHost, st));
    CUZK_CUDA_OK(cudaStreamSynchronize(st));
  }
  return true;
}

}  // namespace synth_detail

// The row ranges of a streamed layout: consecutive rows while their records stay within
// |chunk_records| (a single longer row is a range of its own), with each range's long rows.
inline void synth_plan_chunks(const synth_layout_t& lay, uint64_t chunk_records, synth_dev_t& out) {
  const uint32_t rows = uint32_t(lay.row_ptr.size() - 1);
  size_t l = 0;
  for (uint32_t r0 = 0, r1; r0 < rows; r0 = r1) {
    r1 = r0 + 1;
    while (r1 < rows && uint64_t(lay.row_ptr[r1 + 1]) - lay.row_ptr[r0] <= chunk_records) r1++;
    synth_chunk_t ch{r0, r1, lay.row_ptr[r0], lay.row_ptr[r1], uint32_t(l), 0};
    while (l < lay.long_rows.size() && lay.long_rows[l] < r1) l++;
    ch.long1 = uint32_t(l);
    out.max_chunk_records = std::max<uint64_t>(out.max_chunk_records, ch.rec1 - ch.rec0);
    out.chunks.push_back(ch);
  }
}

// Places the layout on the current device. Resident (|chunk_records| 0): built there from the pinned
// section read in place (synth_build_on_device: 2^24 in ~125 ms on an H100, where the host road took
// ~1.5 s), else built on the host threads and uploaded window by window (pageable copies, once per
// key and device: a section with no device address). Streamed: built on the host threads and kept
// in page-locked host memory in row ranges of about |chunk_records| records. On an exception what was
// allocated is in |out|, for its owner to free.
inline void synth_upload(const cuzk_key& key, synth_dev_t& out, uint64_t chunk_records = 0) {
  using namespace synth_detail;
  if (chunk_records == 0 && key.desc.n_coefs < (uint64_t(1) << 32) && synth_build_on_device(key, out)) return;
  synth_layout_t lay = synth_layout(key);
  const uint64_t n_rec = lay.row_ptr.back();
  out.rows = uint32_t(lay.row_ptr.size() - 1);
  out.n_long = uint32_t(lay.long_rows.size());
  dev_alloc(lay.row_ptr.size(), out.row_ptr);
  dev_alloc(lay.long_rows.size(), out.long_rows);
  CUZK_CUDA_OK(cudaMemcpy(out.row_ptr, lay.row_ptr.data(), lay.row_ptr.size() * 4, cudaMemcpyHostToDevice));
  if (out.n_long)
    CUZK_CUDA_OK(cudaMemcpy(out.long_rows, lay.long_rows.data(), size_t(out.n_long) * 4, cudaMemcpyHostToDevice));
  if (chunk_records > 0) {
    synth_plan_chunks(lay, chunk_records, out);
    CUZK_CUDA_OK(cudaHostAlloc(reinterpret_cast<void**>(&out.host_wire), std::max<uint64_t>(n_rec, 1) * 4, 0));
    CUZK_CUDA_OK(cudaHostAlloc(reinterpret_cast<void**>(&out.host_value), std::max<uint64_t>(n_rec, 1) * synth_value_bytes, 0));
    lay.stream(key, [&](uint64_t first, uint64_t count, const uint32_t* wires, const uint8_t* values) {
      std::memcpy(out.host_wire + first, wires, count * 4);
      std::memcpy(out.host_value + first * synth_value_bytes, values, count * synth_value_bytes);
    });
    return;
  }
  dev_alloc(n_rec, out.wire);
  if (n_rec) CUZK_CUDA_OK(cudaMalloc(&out.value, n_rec * synth_value_bytes));
  lay.stream(key, [&](uint64_t first, uint64_t count, const uint32_t* wires, const uint8_t* values) {
    CUZK_CUDA_OK(cudaMemcpy(out.wire + first, wires, count * 4, cudaMemcpyHostToDevice));
    CUZK_CUDA_OK(cudaMemcpy(static_cast<uint8_t*>(out.value) + first * synth_value_bytes, values,
                            count * synth_value_bytes, cudaMemcpyHostToDevice));
  });
}

namespace synth_detail {

// Rows [row0, row1) and the listed long rows, from records starting at rec0 in |wire| / |value|.
template <class DF>
void synth_rows(const synth_dev_t& lay, const uint32_t* wire, const DF* value, const DF* dw, DF* out, uint32_t row0,
                uint32_t row1, uint32_t rec0, const uint32_t* long_rows, uint32_t n_long, cudaStream_t st) {
  if (row1 > row0) {
    synth_short_kernel<DF><<<ceil_div(row1 - row0, 256), 256, 0, st>>>(lay.row_ptr, wire, value, dw, out, row0, row1, rec0);
    CUZK_CUDA_LAUNCHED();
  }
  if (n_long == 0) return;
  synth_long_kernel<DF><<<ceil_div(size_t(n_long) * 32, 256), 256, 0, st>>>(lay.row_ptr, wire, value, dw, out,
                                                                              long_rows, n_long, rec0);
  CUZK_CUDA_LAUNCHED();
}

}  // namespace synth_detail

// A streamed layout's chunks as its stream's staging ring carries them (chunk_ring_gpu.cuh), in the
// order synth_device reads them: each row range's wires, then (256-byte aligned, after the largest
// range's wires) its values; none when the layout is resident.
inline std::vector<chunk_ring_t::chunk_t> synth_chunks(const synth_dev_t& lay) {
  std::vector<chunk_ring_t::chunk_t> plan;
  if (!lay.streamed()) return plan;
  const size_t values_at = synth_values_at(lay);
  for (const synth_chunk_t& ch : lay.chunks) {
    const size_t cnt = ch.rec1 - ch.rec0;
    plan.push_back({{lay.host_wire + ch.rec0, cnt * 4, 0},
                    {lay.host_value + size_t(ch.rec0) * synth_value_bytes, cnt * synth_value_bytes, values_at}});
  }
  return plan;
}

// a ‖ b (2 × domain_size elements at |ab|, Montgomery form) from the device witness |w| (n_vars
// standard-form scalars), on |st| (a streamed layout's chunks read from |ring|, synth_chunks' plan
// first in it). |ab| may hold anything before: every element is written.
template <class F>
void synth_device(cudaStream_t st, const synth_dev_t& lay, const uint8_t* w, F* ab, chunk_ring_t* ring) {
  using namespace synth_detail;
  using DF = gpu_t<F>;
  const DF* dw = reinterpret_cast<const DF*>(w);
  DF* out = reinterpret_cast<DF*>(ab);
  if (!lay.streamed()) {
    synth_rows<DF>(lay, lay.wire, static_cast<const DF*>(lay.value), dw, out, 0, lay.rows, 0, lay.long_rows, lay.n_long, st);
    return;
  }
  require(ring != nullptr, "synth_device: streamed coefficients need their stream's ring");
  const size_t values_at = synth_values_at(lay);
  for (const synth_chunk_t& ch : lay.chunks) {
    const size_t k = ring->take();
    ring->wait(k);
    const uint8_t* slot = ring->slot(k);
    synth_rows<DF>(lay, reinterpret_cast<const uint32_t*>(slot), reinterpret_cast<const DF*>(slot + values_at), dw, out,
                   ch.row0, ch.row1, ch.rec0, lay.long_rows + ch.long0, ch.long1 - ch.long0, st);
    ring->done(k);
  }
}

}  // namespace cuzk
