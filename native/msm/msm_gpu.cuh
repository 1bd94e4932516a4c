// The GPU MSM's driver: msm_device runs sum k_i·P_i over device buffers on one stream, as
// msm_scalars (the scalar side: steps 1-2 of msm_gpu_digits.cuh) then msm_planned (the point side:
// bucket_sum_t, i.e. step 3 of msm_gpu_accumulate.cuh per block, step 4 of msm_gpu_reduce.cuh once,
// then the window combination on the host), so MSMs over the same scalars can share the first; a
// streamed set's MSM keeps one bucket_sum_t over its chunks (groth16/msm_stream_gpu.cuh); msm_gpu_host uploads
// host buffers first. Pippenger with signed c-bit windows and XYZZ buckets:
// 1. classify (scalars only): scalars 0 are dropped, scalars 1 summed by a plain reduction, the rest
//    compacted (supraseal's 0/1 split: Groth16 witnesses are mostly 0/1); infinity points are skipped
//    where points are added, so steps 1-2 need no points and overlap their upload (msm_gpu_host).
// 2. digits -> (bucket, point|sign) pairs, CUB radix sort by bucket, run-length encode.
// 3. accumulation: one thread per chunk of L consecutive sorted pairs (equal work per thread), then
//    the buckets that cross chunks joined in log depth (msm_gpu_xyzz.cuh).
// 4. reduction on the GPU, per window sum_b (b+1)·B_b, in levels of K items per thread (see
//    reduce_level_kernel); the c-bit window combination (Horner) and the 1-sum finish on the host.
// Scalars are 32-byte little-endian standard-form integers (any 256-bit value), points affine
// Montgomery (LEM), infinity allowed, n < 2^31. One host synchronisation after classification (to
// size the bucket pass) and one per MSM at the end (window sums). Every call takes the tuning
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

// CUZK_TRACE_MSM=1: one line per bucket pass on stderr (its scalars, window, pairs, chunk length L,
// largest bucket and the ms of its accumulation, join and merge) and one per MSM (its reduction and
// host combination), printed when the MSM finishes.
inline bool msm_tracing() {
  static const bool on = env_flag("CUZK_TRACE_MSM");
  return on;
}

// A bucket pass's trace: its events (start, before the join, after it, after the merge into the
// kept buckets), its plan's counts and the accumulation's chunk length and largest bucket read back.
struct pass_trace_t {
  gpu_event_t start, joining, joined, merged;
  uint32_t n = 0, m = 0, n1 = 0, c = 0, nwin = 0, chunk_len = 0, maxc = 0;
  size_t npairs = 0;
};

// The buckets of one MSM kept over its bucket passes, all of one window width: the blocks of a plan
// (msm_planned) or the chunks of a streamed set's MSM (groth16/msm_stream_gpu.cuh msm_sets), so the
// reduction, latency-bound (a fixed ~1.1-1.8 ms a G1 pass, ~4.6 ms a G2 one on the H100, whatever
// the pass's size), runs once an MSM. The first pass accumulates into them; each later one into
// buckets of its own, added in by add_buckets_kernel (one general addition a bucket, coalesced); the
// 1-sums likewise. finish() reduces (step 4) and combines the windows on the host (Horner).
template <class G>
class bucket_sum_t {
  using DF = gpu_t<G>;
  using X = dxyzz_t<DF>;
  using HX = xyzz_t<G>;

 public:
  // |ar| holds the kept buckets until finish, on the passes' stream; |scalar_bits| the widest scalars
  // a pass may have (its windows: (bits + c) / c), 0: those of the first pass.
  explicit bucket_sum_t(dev_arena_t& ar, uint32_t scalar_bits = 0) : ar_(ar), bits_(scalar_bits) {}
  bucket_sum_t(const bucket_sum_t&) = delete;
  bucket_sum_t& operator=(const bucket_sum_t&) = delete;

  // The window width of the passes so far, 0 before the first: a later plan must have it.
  uint32_t width() const { return c_; }

  // Adds sum k_i·P_i for the plan |p| (msm_scalars on |scratch|'s stream, ar's) over the device points
  // |d_points| (host-layout affine, infinity allowed), read once |points_ready| (if given) has
  // completed: every block's bucket pass and the 1-sum. The pass's own buffers are |scratch|'s.
  void add(dev_arena_t& scratch, const affine_t<G>* d_points, const msm_scalars_t& p, cudaEvent_t points_ready,
           const gpu_tuning_t& tuning) {
    const auto* pts = reinterpret_cast<const daffine_t<DF>*>(d_points);
    cudaStream_t st = ar_.stream();
    bool ones_queued = false;
    // the 1-sum reads points: queued behind the first block's accumulation (which waits for them)
    auto queue_ones = [&] {
      if (ones_queued) return;
      ones_queued = true;
      if (!p.n1) return;
      if (points_ready) CUZK_CUDA_OK(cudaStreamWaitEvent(st, points_ready, 0));
      if (!one_) {
        one_ = ar_.alloc<X>(1);
        CUZK_CUDA_OK(cudaMemsetAsync(one_, 0, sizeof(X), st));
      }
      X* part = scratch.alloc<X>(1);
      ones_sum<DF>(scratch, pts, p.one, p.n1, part);
      add_buckets_kernel<DF><<<1, 1, 0, st>>>(one_, part, 1);
      CUZK_CUDA_LAUNCHED();
    };
    for (const sorted_digits_t& sd : p.blocks) {
      pass_trace_t* tr = nullptr;
      if (msm_tracing()) {
        traces_.emplace_back(new pass_trace_t);
        tr = traces_.back().get();
        tr->n = p.n, tr->m = p.m, tr->n1 = p.n1, tr->c = sd.c, tr->nwin = sd.nwin, tr->npairs = sd.npairs;
      }
      pass(scratch, pts, sd, points_ready, tuning, tr);
      queue_ones();
    }
    queue_ones();
  }

  // sum k_i·P_i over everything added. Returns once the stream has finished it.
  jacobian_t<G> finish() {
    cudaStream_t st = ar_.stream();
    HX total = HX::infinity();
    std::vector<HX> wins(nwin_);
    gpu_event_t* reducing = nullptr;
    gpu_event_t* reduced = nullptr;
    std::unique_ptr<gpu_event_t[]> ev;
    if (!traces_.empty()) {
      ev.reset(new gpu_event_t[2]);
      reducing = &ev[0], reduced = &ev[1];
      reducing->record(st);
    }
    if (passes_) {
      const X* d_wins = window_sums<DF>(ar_, buckets_, nwin_, half_);
      CUZK_CUDA_OK(cudaMemcpyAsync(wins.data(), d_wins, nwin_ * sizeof(X), cudaMemcpyDeviceToHost, st));
    }
    if (reduced) reduced->record(st);
    if (one_) CUZK_CUDA_OK(cudaMemcpyAsync(&total, one_, sizeof(X), cudaMemcpyDeviceToHost, st));
    CUZK_CUDA_OK(cudaStreamSynchronize(st));
    const auto h0 = std::chrono::steady_clock::now();
    HX acc = HX::infinity();
    for (uint32_t w = nwin_; w-- > 0;) {
      for (uint32_t i = 0; i < c_ && !acc.is_inf(); i++) acc = acc.dbl();
      acc.add(wins[w]);
    }
    total.add(acc);
    if (!traces_.empty()) {
      for (const auto& tr : traces_)
        std::fprintf(stderr, "cuzk msm %zu-byte points n=%u m=%u ones=%u c=%u nwin=%u pairs=%zu L=%u maxc=%u: accumulate %.2f join %.2f merge %.2f ms\n",
                     sizeof(affine_t<G>), tr->n, tr->m, tr->n1, tr->c, tr->nwin, tr->npairs, tr->chunk_len, tr->maxc,
                     tr->joining.since(tr->start), tr->joined.since(tr->joining), tr->merged.since(tr->joined));
      std::fprintf(stderr, "cuzk msm-sum %zu-byte points passes=%zu c=%u nwin=%u: reduce %.2f host %.2f ms\n",
                   sizeof(affine_t<G>), traces_.size(), c_, nwin_, reduced->since(*reducing),
                   std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - h0).count());
    }
    return total.to_jacobian();
  }

 private:
  // One block's bucket pass: accumulation and join into the kept buckets (the first pass) or into
  // buckets of its own (|scratch|) then added in.
  void pass(dev_arena_t& scratch, const daffine_t<DF>* pts, const sorted_digits_t& sd, cudaEvent_t points_ready,
            const gpu_tuning_t& tuning, pass_trace_t* tr) {
    cudaStream_t st = ar_.stream();
    if (tr) tr->start.record(st);
    if (!c_) {
      c_ = sd.c;
      half_ = sd.half;
      cap_ = std::max(bits_ ? (bits_ + c_) / c_ : 0, sd.nwin);
      buckets_ = ar_.alloc<X>(size_t(cap_) * half_);
      CUZK_CUDA_OK(cudaMemsetAsync(buckets_, 0, size_t(cap_) * half_ * sizeof(X), st));  // all-zero = infinity
    }
    require(sd.c == c_ && sd.nwin <= cap_, "msm: a bucket pass of another window width than the MSM's first");
    X* into = buckets_;
    if (passes_) {
      into = scratch.alloc<X>(sd.sentinel);
      CUZK_CUDA_OK(cudaMemsetAsync(into, 0, size_t(sd.sentinel) * sizeof(X), st));
    }
    const acc_plan_t plan = accumulation_plan<DF>(sd.npairs, tuning);
    X *heads = scratch.alloc<X>(plan.max_chunks), *tails = scratch.alloc<X>(plan.max_chunks);
    uint32_t* chunk_len = scratch.alloc<uint32_t>(1);
    accumulate_buckets<DF>(pts, sd, points_ready, tuning, plan, into, heads, tails, chunk_len, st,
                           tr ? cudaEvent_t(tr->joining) : nullptr);
    if (tr) {
      tr->joined.record(st);
      CUZK_CUDA_OK(cudaMemcpyAsync(&tr->chunk_len, chunk_len, 4, cudaMemcpyDeviceToHost, st));
      CUZK_CUDA_OK(cudaMemcpyAsync(&tr->maxc, sd.maxc, 4, cudaMemcpyDeviceToHost, st));
    }
    if (passes_) {
      add_buckets_kernel<DF><<<ceil_div(sd.sentinel, 128), 128, 0, st>>>(buckets_, into, sd.sentinel);
      CUZK_CUDA_LAUNCHED();
    }
    if (tr) tr->merged.record(st);
    nwin_ = std::max(nwin_, sd.nwin);
    passes_++;
  }

  dev_arena_t& ar_;
  uint32_t bits_, c_ = 0, half_ = 0, cap_ = 0, nwin_ = 0;
  size_t passes_ = 0;
  X* buckets_ = nullptr;
  X* one_ = nullptr;
  std::vector<std::unique_ptr<pass_trace_t>> traces_;
};

}  // namespace msm_gpu

// sum k_i·P_i over device points |d_points| (host-layout affine, infinity allowed) and scalars
// already planned by msm_scalars on the same stream (|ar|'s): one bucket_sum_t over the plan's blocks.
// Returns after the stream has finished it; per-call scratch (buckets, chunk joins, reduction levels)
// is freed on return. With |points_ready|, the points are read only once the event has completed.
template <class G>
jacobian_t<G> msm_planned(dev_arena_t& ar, const affine_t<G>* d_points, const msm_gpu::msm_scalars_t& p,
                          cudaEvent_t points_ready = nullptr, const gpu_tuning_t& tuning = gpu_tuning()) {
  dev_arena_t scratch(ar.stream());
  msm_gpu::bucket_sum_t<G> sum(scratch);
  sum.add(scratch, d_points, p, points_ready, tuning);
  return sum.finish();
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
  X template jacobian_t<G> msm_gpu_host<G>(const affine_t<G>*, const uint8_t*, size_t, const gpu_tuning_t&);   \
  X template class msm_gpu::bucket_sum_t<G>;
#define CUZK_MSM_GPU_INSTANTIATE(G) CUZK_MSM_GPU_TEMPLATES(, G)
namespace cuzk {
CUZK_MSM_GPU_TEMPLATES(extern, bn254_g1_params)
CUZK_MSM_GPU_TEMPLATES(extern, bn254_g2_params)
CUZK_MSM_GPU_TEMPLATES(extern, bls12_381_g1_params)
CUZK_MSM_GPU_TEMPLATES(extern, bls12_381_g2_params)
}  // namespace cuzk
