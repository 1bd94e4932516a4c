// The host side of the GPU MSM (kernels in pippenger.cuh): msm_device runs sum k_i·P_i over device
// buffers on one stream, as msm_scalars (the scalar side: classification, 0/1 split, sorted digits)
// then msm_planned (the point side), so MSMs over the same scalars can share the first;
// msm_gpu_host uploads host buffers first. Scalars are 32-byte little-endian standard-form integers
// (any 256-bit value), points affine Montgomery (LEM), infinity allowed, n < 2^31. One host
// synchronisation after classification (to size the bucket pass) and one per point set at the end
// (window sums); the c-bit window combination, ~c·nwin doublings, runs on the host.
#pragma once
#include "accumulate_affine.cuh"

namespace cuzk {
namespace msm_gpu {

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

// The sorted digits of one block of scalars (device, in the arena that made them): the (bucket,
// point|sign) pairs by bucket, the number before the zero-digit sentinel and the chunk length of
// the accumulation. They depend on the scalars alone, so MSMs over the same scalars share them.
struct sorted_digits_t {
  uint32_t c = 0, nwin = 0, half = 0, sentinel = 0;
  size_t npairs = 0;
  const uint32_t *keys = nullptr, *vals = nullptr, *e_p = nullptr, *maxc = nullptr;
};

// Signed c-bit digits of the m scalars scalars[idx[k]] (> 1, of at most nbits bits), sorted by bucket.
inline sorted_digits_t sort_digits(dev_arena_t& ar, const uint32_t* scalars, const uint32_t* idx, uint32_t m,
                                   uint32_t nbits) {
  cudaStream_t st = ar.stream();
  sorted_digits_t sd;
  sd.c = choose_window(m, nbits);
  sd.nwin = (nbits + sd.c) / sd.c;
  sd.half = 1u << (sd.c - 1);
  sd.sentinel = sd.nwin * sd.half;
  sd.npairs = size_t(m) * sd.nwin;
  const size_t npairs = sd.npairs;
  int end_bit = 32 - __builtin_clz(sd.sentinel);
  uint32_t rmax = uint32_t(std::min<size_t>(npairs, size_t(sd.sentinel) + 1));

  uint32_t *keys = ar.alloc<uint32_t>(npairs), *vals = ar.alloc<uint32_t>(npairs);
  uint32_t *keys2 = ar.alloc<uint32_t>(npairs), *vals2 = ar.alloc<uint32_t>(npairs);
  digits_kernel<<<ceil_div(m, 256), 256, 0, st>>>(scalars, idx, m, sd.c, sd.nwin, keys, vals);
  CUZK_CUDA_LAUNCHED();
  cub_run(ar, [&](void* t, size_t& b) {
    return cub::DeviceRadixSort::SortPairs(t, b, keys, keys2, vals, vals2, npairs, 0, end_bit, st);
  });

  uint32_t *uniq = ar.alloc<uint32_t>(rmax + 1), *counts = ar.alloc<uint32_t>(rmax + 1);
  uint32_t *starts = ar.alloc<uint32_t>(rmax + 1), *scal = ar.alloc<uint32_t>(4);
  uint32_t *nr = scal, *maxc = scal + 1;
  CUZK_CUDA_OK(cudaMemsetAsync(counts, 0, (rmax + 1) * sizeof(uint32_t), st));
  CUZK_CUDA_OK(cudaMemsetAsync(scal, 0, 4 * sizeof(uint32_t), st));
  cub_run(ar, [&](void* t, size_t& b) {
    return cub::DeviceRunLengthEncode::Encode(t, b, keys2, uniq, counts, nr, npairs, st);
  });
  drop_sentinel_kernel<<<1, 1, 0, st>>>(uniq, counts, nr, sd.sentinel);
  CUZK_CUDA_LAUNCHED();
  cub_run(ar, [&](void* t, size_t& b) { return cub::DeviceScan::ExclusiveSum(t, b, counts, starts, rmax + 1, st); });
  cub_run(ar, [&](void* t, size_t& b) { return cub::DeviceReduce::Max(t, b, counts, maxc, rmax, st); });
  sd.e_p = starts + rmax;  // pairs before the sentinel run (counts[rmax] = 0)
  sd.maxc = maxc;
  sd.keys = keys2;
  sd.vals = vals2;
  return sd;
}

// The XYZZ accumulation kernel compiled for |blocks| blocks per SM (one of accumulate_blocks_of<DF>::xyzz).
template <class DF>
auto accumulate_for(int blocks) {
  return kernel_at_blocks<accumulate_blocks_of<DF>::xyzz>(
      blocks, [](auto b) { return accumulate_kernel<DF, decltype(b)::value>; });
}

// Pippenger's bucket pass over |pts| for sorted digits |sd|; returns the nwin window sums
// sum_b (b+1)·B_b (device, in |ar|), window w weighing 2^(c·w). The points are first read by the
// accumulation, which waits for |points_ready| (if given) so the digits and the sort overlap the upload.
template <class DF>
const dxyzz_t<DF>* bucket_sums(dev_arena_t& ar, const daffine_t<DF>* pts, const sorted_digits_t& sd,
                               cudaEvent_t points_ready) {
  using X = dxyzz_t<DF>;
  cudaStream_t st = ar.stream();
  const uint32_t nwin = sd.nwin, half = sd.half;
  X* buckets = ar.alloc<X>(sd.sentinel);
  CUZK_CUDA_OK(cudaMemsetAsync(buckets, 0, size_t(sd.sentinel) * sizeof(X), st));  // all-zero = infinity
  size_t max_chunks = ceil_div(sd.npairs, size_t(32));  // L >= 32
  X *heads = ar.alloc<X>(max_chunks), *tails = ar.alloc<X>(max_chunks);
  unsigned acc_blocks = ceil_div(max_chunks, size_t(128));
  uint32_t* chunk_len = ar.alloc<uint32_t>(1);
  auto aff = affine_for<DF>(affine_blocks<DF>());
  const uint32_t aff_threads = accumulate_choice_for<DF>(sd.npairs) == acc_xyzz ? 0 : resident_threads(aff, 128);
  const uint32_t lanes = aff_threads ? affine_lanes_for<DF>(sd.npairs, aff_threads) : 0;
  if (lanes) {  // one wave of threads, |lanes| chunks each
    plan_chunks_kernel<<<1, 1, 0, st>>>(sd.maxc, sd.e_p, lanes * aff_threads, chunk_len);
    CUZK_CUDA_LAUNCHED();
    if (points_ready) CUZK_CUDA_OK(cudaStreamWaitEvent(st, points_ready, 0));
    aff<<<aff_threads / 128, 128, 0, st>>>(pts, sd.keys, sd.vals, sd.e_p, chunk_len, lanes, buckets, heads, tails);
    CUZK_CUDA_LAUNCHED();
    gpu_counters().affine_accumulations++;
  } else {
    // the accumulation kernel this group runs, and the threads of whole waves of it (see plan_chunks_kernel)
    auto acc = accumulate_for<DF>(accumulate_blocks<DF>());
    plan_chunks_kernel<<<1, 1, 0, st>>>(sd.maxc, sd.e_p, accumulate_waves() * resident_threads(acc, 128), chunk_len);
    CUZK_CUDA_LAUNCHED();
    if (points_ready) CUZK_CUDA_OK(cudaStreamWaitEvent(st, points_ready, 0));
    acc<<<acc_blocks, 128, 0, st>>>(pts, sd.keys, sd.vals, sd.e_p, chunk_len, buckets, heads, tails);
    CUZK_CUDA_LAUNCHED();
  }
  join_chunks_kernel<DF><<<ceil_div(max_chunks, size_t(128)), 128, 0, st>>>(sd.keys, sd.e_p, chunk_len, heads,
                                                                           tails, buckets);
  CUZK_CUDA_LAUNCHED();

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

// The scalar side of an MSM (device buffers in the arena that made it): the 0/1 split (indices of
// the 1 scalars and of the rest) and each block's sorted digits. MSMs over the same scalars (the
// prover's A, B1 and B2 share the witness) make it once (msm_scalars) and run msm_planned per point set.
struct msm_scalars_t {
  uint32_t n = 0, m = 0, n1 = 0, nbits = 0;
  const uint32_t* one = nullptr;
  std::vector<sorted_digits_t> blocks;
};

// Classifies the n 32-byte scalars at |sc| (device) and sorts the digits of the ones above 1, in
// blocks of block_scalars. With |present| (device, a byte per point, 0 for infinity; see
// classify_kernel) the scalars of infinity points are dropped too. One host synchronisation (to size
// the bucket pass).
inline msm_scalars_t msm_scalars(dev_arena_t& ar, const uint32_t* sc, size_t count, const uint8_t* present = nullptr) {
  if (count >= (size_t(1) << 31)) fail(CUZK_E_INVALID_ARG, "msm: n must be below 2^31");
  cudaStream_t st = ar.stream();
  msm_scalars_t p;
  const uint32_t n = uint32_t(count);
  p.n = n;
  if (n == 0) return p;
  uint8_t *is_big = ar.alloc<uint8_t>(n), *is_one = ar.alloc<uint8_t>(n);
  uint32_t *iota = ar.alloc<uint32_t>(n), *big = ar.alloc<uint32_t>(n), *one = ar.alloc<uint32_t>(n);
  uint32_t* cnt = ar.alloc<uint32_t>(4);  // m, n1, max bits
  CUZK_CUDA_OK(cudaMemsetAsync(cnt, 0, 4 * sizeof(uint32_t), st));
  classify_kernel<<<ceil_div(n, 256), 256, 0, st>>>(reinterpret_cast<const uint4*>(sc), present, n, is_big, is_one,
                                                    iota, cnt + 2);
  CUZK_CUDA_LAUNCHED();
  cub_run(ar, [&](void* t, size_t& b) { return cub::DeviceSelect::Flagged(t, b, iota, is_big, big, cnt, n, st); });
  cub_run(ar, [&](void* t, size_t& b) { return cub::DeviceSelect::Flagged(t, b, iota, is_one, one, cnt + 1, n, st); });
  uint32_t h_cnt[4];
  CUZK_CUDA_OK(cudaMemcpyAsync(h_cnt, cnt, sizeof h_cnt, cudaMemcpyDeviceToHost, st));
  CUZK_CUDA_OK(cudaStreamSynchronize(st));
  p.m = h_cnt[0];
  p.n1 = h_cnt[1];
  p.nbits = h_cnt[2];
  p.one = one;
  for (size_t b0 = 0; b0 < p.m; b0 += block_scalars) {
    uint32_t mb = uint32_t(std::min<size_t>(block_scalars, p.m - b0));
    p.blocks.push_back(sort_digits(ar, sc, big + b0, mb, p.nbits));
  }
  return p;
}

}  // namespace msm_gpu

// sum k_i·P_i over device points |d_points| (host-layout affine, infinity allowed) and scalars
// already planned by msm_scalars on the same stream (|ar|'s). Returns after the stream has finished
// it; per-call scratch (buckets, chunk joins, reduction levels) is freed on return. With
// |points_ready|, the points are read only once the event has completed.
template <class G>
jacobian_t<G> msm_planned(dev_arena_t& ar, const affine_t<G>* d_points, const msm_gpu::msm_scalars_t& p,
                          cudaEvent_t points_ready = nullptr) {
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
  for (const sorted_digits_t& sd : p.blocks) {
    const DX* d_wins = bucket_sums<DF>(scratch, pts, sd, points_ready);
    queue_ones();
    wins.assign(sd.nwin, HX{});
    CUZK_CUDA_OK(cudaMemcpyAsync(wins.data(), d_wins, sd.nwin * sizeof(DX), cudaMemcpyDeviceToHost, st));
    CUZK_CUDA_OK(cudaStreamSynchronize(st));
    HX acc = HX::infinity();
    for (uint32_t w = sd.nwin; w-- > 0;) {
      for (uint32_t i = 0; i < sd.c && !acc.is_inf(); i++) acc = acc.dbl();
      acc.add(wins[w]);
    }
    buckets_total.add(acc);
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
                         cudaEvent_t points_ready = nullptr) {
  if (n == 0) return jacobian_t<G>::infinity();
  dev_arena_t ar(st);
  msm_gpu::msm_scalars_t p = msm_gpu::msm_scalars(ar, reinterpret_cast<const uint32_t*>(d_scalars), n);
  return msm_planned<G>(ar, d_points, p, points_ready);
}

// Uploads |points| and |scalars| (host memory; pinned memory uploads ~7x faster) and runs msm_device:
// the scalars first, then the points on a second stream while the scalar passes run.
template <class G>
jacobian_t<G> msm_gpu_host(const affine_t<G>* points, const uint8_t* scalars, size_t n) {
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
  return msm_device<G>(d_pts, d_sc, n, st, points_ready);
}
}  // namespace cuzk

// Instantiated once each in msm/msm_<curve>_<group>.cu.
#define CUZK_MSM_GPU_EXTERN(G)                                                                            \
  extern template jacobian_t<G> msm_device<G>(const affine_t<G>*, const uint8_t*, size_t, cudaStream_t, cudaEvent_t); \
  extern template jacobian_t<G> msm_planned<G>(dev_arena_t&, const affine_t<G>*, const msm_gpu::msm_scalars_t&,  \
                                               cudaEvent_t);                                                      \
  extern template jacobian_t<G> msm_gpu_host<G>(const affine_t<G>*, const uint8_t*, size_t);
namespace cuzk {
CUZK_MSM_GPU_EXTERN(bn254_g1_params)
CUZK_MSM_GPU_EXTERN(bn254_g2_params)
CUZK_MSM_GPU_EXTERN(bls12_381_g1_params)
CUZK_MSM_GPU_EXTERN(bls12_381_g2_params)
}  // namespace cuzk
#undef CUZK_MSM_GPU_EXTERN
