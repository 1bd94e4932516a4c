// The GPU MSM's driver: msm_device runs sum k_i·P_i over device buffers on one stream, as
// msm_scalars (the scalar side: steps 1-2 of msm_gpu_digits.cuh) then msm_planned (the point side:
// bucket_sums, i.e. step 3 of msm_gpu_accumulate.cuh and step 4 of msm_gpu_reduce.cuh, then the window
// combination on the host), so MSMs over the same scalars can share the first; msm_gpu_host uploads
// host buffers first. Pippenger with signed c-bit windows and XYZZ buckets:
// 1. classify (scalars only): scalars 0 are dropped, scalars 1 summed by a plain reduction, the rest
//    compacted (supraseal's 0/1 split: Groth16 witnesses are mostly 0/1); infinity points are skipped
//    where points are added, so steps 1-2 need no points and overlap their upload (msm_gpu_host).
// 2. digits -> (bucket, point|sign) pairs, CUB radix sort by bucket, run-length encode.
// 3. accumulation: one thread per chunk of L consecutive sorted pairs (equal work per thread; L >= sqrt
//    of the largest bucket, so a skewed bucket - all-equal scalars - is re-joined in <= L steps).
// 4. reduction on the GPU, per window sum_b (b+1)·B_b, in levels of K items per thread (see
//    reduce_level_kernel); the c-bit window combination (Horner) and the 1-sum finish on the host.
// Scalars are 32-byte little-endian standard-form integers (any 256-bit value), points affine
// Montgomery (LEM), infinity allowed, n < 2^31. One host synchronisation after classification (to
// size the bucket pass) and one per point set at the end (window sums). Every call takes the tuning
// (gpu_tuning_t) it runs with: the process's by default, a benchmark's copy otherwise.
#pragma once
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "msm_gpu_accumulate.cuh"
#include "msm_gpu_digits.cuh"
#include "msm_gpu_reduce.cuh"

namespace cuzk {
namespace msm_gpu {

// A bucket pass's trace (CUZK_TRACE_MSM, msm_tracing): its events (start, before the join, after it,
// after the reduction) and the accumulation's chunk length and largest bucket read back.
struct pass_trace_t {
  gpu_event_t start, joining, joined, reduced;
  uint32_t chunk_len = 0, maxc = 0;
};

// Pippenger's bucket pass over |pts| for sorted digits |sd|; returns the nwin window sums
// sum_b (b+1)·B_b (device, in |ar|), window w weighing 2^(c·w). The points are first read by the
// accumulation, which waits for |points_ready| (if given) so the digits and the sort overlap the upload.
// |trace| (if given) gets its joining and joined events and the two counts.
template <class DF>
const dxyzz_t<DF>* bucket_sums(dev_arena_t& ar, const daffine_t<DF>* pts, const sorted_digits_t& sd,
                               cudaEvent_t points_ready, const gpu_tuning_t& tuning, pass_trace_t* trace = nullptr) {
  using X = dxyzz_t<DF>;
  cudaStream_t st = ar.stream();
  X* buckets = ar.alloc<X>(sd.sentinel);
  CUZK_CUDA_OK(cudaMemsetAsync(buckets, 0, size_t(sd.sentinel) * sizeof(X), st));  // all-zero = infinity
  const acc_plan_t plan = accumulation_plan<DF>(sd.npairs, tuning);
  X *heads = ar.alloc<X>(plan.max_chunks), *tails = ar.alloc<X>(plan.max_chunks);
  uint32_t* chunk_len = ar.alloc<uint32_t>(1);
  accumulate_buckets<DF>(pts, sd, points_ready, tuning, plan, buckets, heads, tails, chunk_len, st,
                         trace ? cudaEvent_t(trace->joining) : nullptr);
  if (trace) {
    trace->joined.record(st);
    CUZK_CUDA_OK(cudaMemcpyAsync(&trace->chunk_len, chunk_len, 4, cudaMemcpyDeviceToHost, st));
    CUZK_CUDA_OK(cudaMemcpyAsync(&trace->maxc, sd.maxc, 4, cudaMemcpyDeviceToHost, st));
  }
  return window_sums<DF>(ar, buckets, sd.nwin, sd.half);
}

// CUZK_TRACE_MSM=1: one line per bucket pass on stderr (its scalars, window, pairs, chunk length L,
// largest bucket and the ms of its accumulation, join, reduction and host combination).
inline bool msm_tracing() {
  static const bool on = env_flag("CUZK_TRACE_MSM");
  return on;
}

}  // namespace msm_gpu

// sum k_i·P_i over device points |d_points| (host-layout affine, infinity allowed) and scalars
// already planned by msm_scalars on the same stream (|ar|'s). Returns after the stream has finished
// it; per-call scratch (buckets, chunk joins, reduction levels) is freed on return. With
// |points_ready|, the points are read only once the event has completed.
template <class G>
jacobian_t<G> msm_planned(dev_arena_t& ar, const affine_t<G>* d_points, const msm_gpu::msm_scalars_t& p,
                          cudaEvent_t points_ready = nullptr, const gpu_tuning_t& tuning = gpu_tuning()) {
  using namespace msm_gpu;
  using DF = gpu_t<G>;
  using DX = dxyzz_t<DF>;
  using HX = xyzz_t<G>;
  cudaStream_t st = ar.stream();
  const auto* pts = reinterpret_cast<const daffine_t<DF>*>(d_points);
  dev_arena_t scratch(st);
  DX* d_one_sum = scratch.alloc<DX>(1);
  CUZK_CUDA_OK(cudaMemsetAsync(d_one_sum, 0, sizeof(DX), st));
  HX total = HX::infinity();
  bool ones_queued = false;
  // the 1-sum reads points: queued behind the first block's accumulation (which waits for them)
  auto queue_ones = [&] {
    if (ones_queued) return;
    ones_queued = true;
    if (points_ready) CUZK_CUDA_OK(cudaStreamWaitEvent(st, points_ready, 0));
    if (p.n1) ones_sum<DF>(scratch, pts, p.one, p.n1, d_one_sum);
    CUZK_CUDA_OK(cudaMemcpyAsync(&total, d_one_sum, sizeof(DX), cudaMemcpyDeviceToHost, st));
  };
  std::vector<HX> wins;
  HX buckets_total = HX::infinity();
  const bool trace = msm_tracing();
  for (const sorted_digits_t& sd : p.blocks) {
    std::unique_ptr<pass_trace_t> tr;
    if (trace) {
      tr.reset(new pass_trace_t);
      tr->start.record(st);
    }
    const DX* d_wins = bucket_sums<DF>(scratch, pts, sd, points_ready, tuning, tr.get());
    if (trace) tr->reduced.record(st);
    queue_ones();
    wins.assign(sd.nwin, HX{});
    CUZK_CUDA_OK(cudaMemcpyAsync(wins.data(), d_wins, sd.nwin * sizeof(DX), cudaMemcpyDeviceToHost, st));
    CUZK_CUDA_OK(cudaStreamSynchronize(st));
    const auto h0 = std::chrono::steady_clock::now();
    HX acc = HX::infinity();
    for (uint32_t w = sd.nwin; w-- > 0;) {
      for (uint32_t i = 0; i < sd.c && !acc.is_inf(); i++) acc = acc.dbl();
      acc.add(wins[w]);
    }
    buckets_total.add(acc);
    if (trace)
      std::fprintf(stderr, "cuzk msm %zu-byte points n=%u m=%u ones=%u c=%u nwin=%u pairs=%zu L=%u maxc=%u: accumulate %.2f join %.2f reduce %.2f host %.2f ms\n",
                   sizeof(affine_t<G>), p.n, p.m, p.n1, sd.c, sd.nwin, sd.npairs, tr->chunk_len, tr->maxc,
                   tr->joining.since(tr->start), tr->joined.since(tr->joining), tr->reduced.since(tr->joined),
                   std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - h0).count());
  }
  queue_ones();
  CUZK_CUDA_OK(cudaStreamSynchronize(st));
  total.add(buckets_total);
  return total.to_jacobian();
}

// sum k_i·P_i; |d_points| and |d_scalars| are device pointers (host-layout affine points, 32-byte
// scalars), |st| the stream the work is queued on. Returns after the stream has finished it. With
// |points_ready|, the scalars must be on the device when the call's work starts on |st|, the points
// only once the event has completed: nothing reads them before (the scalar passes overlap their upload).
template <class G>
jacobian_t<G> msm_device(const affine_t<G>* d_points, const uint8_t* d_scalars, size_t n, cudaStream_t st,
                         cudaEvent_t points_ready = nullptr, const gpu_tuning_t& tuning = gpu_tuning()) {
  if (n == 0) return jacobian_t<G>::infinity();
  dev_arena_t ar(st);
  msm_gpu::msm_scalars_t p = msm_gpu::msm_scalars(ar, reinterpret_cast<const uint32_t*>(d_scalars), n, nullptr, tuning);
  return msm_planned<G>(ar, d_points, p, points_ready, tuning);
}

// Uploads |points| and |scalars| (host memory; pinned memory uploads ~7x faster) and runs msm_device:
// the scalars first, then the points on a second stream while the scalar passes run.
template <class G>
jacobian_t<G> msm_gpu_host(const affine_t<G>* points, const uint8_t* scalars, size_t n,
                           const gpu_tuning_t& tuning = gpu_tuning()) {
  if (n == 0) return jacobian_t<G>::infinity();
  gpu_stream_t st, st_pts;
  dev_arena_t ar(st);
  auto* d_pts = ar.alloc<affine_t<G>>(n);
  auto* d_sc = ar.alloc<uint8_t>(n * 32);
  gpu_event_t allocated, points_ready;
  allocated.record(st);
  CUZK_CUDA_OK(cudaMemcpyAsync(d_sc, scalars, n * 32, cudaMemcpyHostToDevice, st));
  CUZK_CUDA_OK(cudaStreamWaitEvent(st_pts, allocated, 0));
  CUZK_CUDA_OK(cudaMemcpyAsync(d_pts, points, n * sizeof(affine_t<G>), cudaMemcpyHostToDevice, st_pts));
  points_ready.record(st_pts);
  // declared after the arena, so destroyed first: the buffers are freed (on st) only after the copy,
  // also when msm_device throws before its stream waited for the points
  struct wait_copy_t {
    cudaStream_t s;
    cudaEvent_t e;
    ~wait_copy_t() { (void)cudaStreamWaitEvent(s, e, 0); }
  } wait_copy{st, points_ready};
  return msm_device<G>(d_pts, d_sc, n, st, points_ready, tuning);
}
}  // namespace cuzk

// Instantiated once each in msm/msm_<curve>_<group>.cu (CUZK_MSM_GPU_INSTANTIATE).
#define CUZK_MSM_GPU_TEMPLATES(X, G)                                                                         \
  X template jacobian_t<G> msm_device<G>(const affine_t<G>*, const uint8_t*, size_t, cudaStream_t, cudaEvent_t,  \
                                         const gpu_tuning_t&);                                                 \
  X template jacobian_t<G> msm_planned<G>(dev_arena_t&, const affine_t<G>*, const msm_gpu::msm_scalars_t&,       \
                                          cudaEvent_t, const gpu_tuning_t&);                                    \
  X template jacobian_t<G> msm_gpu_host<G>(const affine_t<G>*, const uint8_t*, size_t, const gpu_tuning_t&);
#define CUZK_MSM_GPU_INSTANTIATE(G) CUZK_MSM_GPU_TEMPLATES(, G)
namespace cuzk {
CUZK_MSM_GPU_TEMPLATES(extern, bn254_g1_params)
CUZK_MSM_GPU_TEMPLATES(extern, bn254_g2_params)
CUZK_MSM_GPU_TEMPLATES(extern, bls12_381_g1_params)
CUZK_MSM_GPU_TEMPLATES(extern, bls12_381_g2_params)
}  // namespace cuzk
