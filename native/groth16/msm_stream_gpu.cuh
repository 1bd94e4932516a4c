// MSMs over a key's point sets where a set may be streamed (key_gpu.cuh): the points [0, n) are
// taken in chunks of the placement's chunk_points, each chunk's bucket pass over its points, scalars
// and mask added into buckets kept over the whole set (one window width, one reduction a set: group
// sums are exact in any order, so the result, and the proof, is the resident path's). A streamed set's chunk is read from the key's
// page-locked host section through its stream's staging ring (chunk_ring_gpu.cuh, whose plan
// prove_gpu.cu makes in the order the chunks are read here), its upload overlapping the work on the
// chunks before; a resident set's chunk is a range of its device points. Every MSM of a streamed key
// runs chunked, resident sets' too, so a proof's MSM scratch is one chunk's (key-placement.ts counts
// it so). Sets that weigh the same scalars (B2 and B1) are chunked at the same boundaries, one ring
// chunk holding both sets' points, and share each chunk's scalar plan.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "../msm/msm_gpu.cuh"
#include "chunk_ring_gpu.cuh"
#include "key_gpu.cuh"

namespace cuzk {

// One point set of an MSM: device points (resident) or, streamed, the key's host section, whose
// chunks sit at byte |at| of the ring's slots.
template <class G>
struct point_set_t {
  const affine_t<G>* dev = nullptr;
  const affine_t<G>* host = nullptr;
  size_t at = 0;
};

// A set of |kd| as msm_sets reads it: its device points, or the key's host section when streamed
// (its chunks at byte |at| of the ring's slots).
template <class G>
point_set_t<G> set_of(const key_dev_t& kd, key_set_t set, void* dev, const uint8_t* host, size_t at = 0) {
  point_set_t<G> s;
  if (kd.streams(set)) {
    s.host = reinterpret_cast<const affine_t<G>*>(host);
    s.at = at;
  } else {
    s.dev = static_cast<const affine_t<G>*>(dev);
  }
  return s;
}

// The chunk length of |kd|'s MSMs: the placement's chunk_points for every MSM, resident sets' too (a
// proof's MSM scratch is then one chunk's: key-placement.ts proofScratchBytes; a key may be placed
// all resident with chunked MSMs, when it fits only beside a chunk's scratch), or 0: one MSM over each
// whole set.
inline size_t chunk_for(const key_dev_t& kd) { return size_t(kd.place.chunk_points); }

// The host points |host| [0, n) in chunks of |chunk| (|bytes| a point), added to |plan|'s chunks
// from |first| on (one ring chunk may carry several sets' parts, at |at| in its slot).
inline void plan_set(std::vector<chunk_ring_t::chunk_t>& plan, size_t first, const uint8_t* host, size_t n,
                     size_t chunk, size_t bytes, size_t at) {
  for (size_t k = 0, p0 = 0; p0 < n; k++, p0 += chunk) {
    if (plan.size() <= first + k) plan.resize(first + k + 1);
    plan[first + k].push_back({host + p0 * bytes, std::min(chunk, n - p0) * bytes, at});
  }
}

// The widest window of a chunk's MSM (key-placement.ts CHUNK_MAX_WINDOW): each point set keeps its
// buckets over the chunks, (256 + c) / c windows of 2^(c-1), so B2's and B1's at once; 16 bits holds
// them to ~214 MiB (BN254) where the model's 17 for 2^21 full-width scalars would take ~400, and costs
// a few per cent at most (H100, 2^24 under 6 GiB, every MSM at c = 16: 411 ms of device against 425
// at the model's widths).
constexpr uint32_t chunk_max_window = 16;

// With CUZK_TRACE_CHUNKS, one line per chunk (|what| names the MSM): ms from the ring's start (or
// the first chunk's) to its copy's start and end, its plan's start and end, and each set's MSM end.
struct chunk_trace_t {
  const char* what;
  const chunk_ring_t* ring;
  std::vector<std::unique_ptr<gpu_event_t[]>> ev;  // per chunk: begin, planned, set 2 done, set 1 done
  std::vector<size_t> slot;                        // the ring chunk each chunk read (or SIZE_MAX)
  gpu_event_t origin;
  void chunk(cudaStream_t st, size_t ring_chunk) {
    if (ev.empty()) origin.record(st);
    ev.emplace_back(new gpu_event_t[4]);
    slot.push_back(ring_chunk);
  }
  void mark(int i, cudaStream_t st) { ev.back()[i].record(st); }
  void print() const {
    const bool copies = ring && !slot.empty() && slot[0] != SIZE_MAX;
    const gpu_event_t& o = copies ? ring->origin() : origin;
    for (size_t k = 0; k < ev.size(); k++) {
      std::string cp = copies ? "copy " + std::to_string(ring->copy_ms(slot[k], false)) + "-" +
                                    std::to_string(ring->copy_ms(slot[k], true)) + " "
                              : std::string();
      std::fprintf(stderr, "cuzk chunk %s k=%zu %splan %.2f-%.2f set2 %.2f set1 %.2f\n", what, k, cp.c_str(),
                   ev[k][0].since(o), ev[k][1].since(o), ev[k][2].since(o), ev[k][3].since(o));
    }
  }
};

// sum k_i·P1_i and (with |s2|) sum k_i·P2_i over the n 32-byte device scalars |d_scalars| on |ar|'s
// stream, P1 and P2 chunked alike; |present| (device, may be null) the byte mask of the points that
// count. |chunk| 0: one MSM over each whole set, which must then be resident; else chunks of |chunk|
// points, a streamed set's read from |ring| (its next chunks, one per chunk of the MSM). The first
// accumulation waits for |first_after| when given. Returns once the stream has finished.
template <class G1, class G2 = G1>
void msm_sets(dev_arena_t& ar, const uint8_t* d_scalars, const uint8_t* present, size_t n, size_t chunk,
              const point_set_t<G1>& s1, jacobian_t<G1>& out1, const point_set_t<G2>* s2 = nullptr,
              jacobian_t<G2>* out2 = nullptr, cudaEvent_t first_after = nullptr, chunk_ring_t* ring = nullptr,
              const char* what = "msm") {
  cudaStream_t st = ar.stream();
  const uint32_t* sc = reinterpret_cast<const uint32_t*>(d_scalars);
  out1 = jacobian_t<G1>::infinity();
  if (out2) *out2 = jacobian_t<G2>::infinity();
  if (n == 0) return;
  if (chunk == 0) {
    dev_arena_t ar_k(st);
    const msm_gpu::msm_scalars_t plan = msm_gpu::msm_scalars(ar_k, sc, n, present);
    if (s2) *out2 = msm_planned<G2>(ar_k, s2->dev, plan, first_after);
    out1 = msm_planned<G1>(ar_k, s1.dev, plan, s2 ? nullptr : first_after);
    return;
  }
  const bool streams = !s1.dev || (s2 && !s2->dev);
  require(!streams || ring, "msm_sets: a streamed set needs its stream's ring");
  const size_t chunks = (n + chunk - 1) / chunk;
  std::unique_ptr<chunk_trace_t> trace;
  if (chunk_ring_t::tracing()) trace.reset(new chunk_trace_t{what, ring, {}, {}, {}});
  // a set's buckets are kept over its chunks, every chunk planned at the first's window width, so each
  // set is reduced once (msm_gpu.cuh bucket_sum_t; key-placement.ts counts them beside a chunk's scratch)
  dev_arena_t ar_sums(st);
  msm_gpu::bucket_sum_t<G1> sum1(ar_sums, 256);
  std::unique_ptr<msm_gpu::bucket_sum_t<G2>> sum2;
  if (s2) sum2.reset(new msm_gpu::bucket_sum_t<G2>(ar_sums, 256));
  for (size_t k = 0; k < chunks; k++) {
    const size_t p0 = k * chunk, cnt = std::min(chunk, n - p0);
    const size_t r = streams ? ring->take() : 0;
    if (trace) {
      trace->chunk(st, streams ? r : SIZE_MAX);
      trace->mark(0, st);
    }
    // a chunk's points: a range of the device set, or where the ring's slot holds them
    auto points = [&](const auto& s) {
      using A = std::remove_const_t<std::remove_pointer_t<decltype(s.dev)>>;
      return s.dev ? s.dev + p0 : reinterpret_cast<const A*>(ring->slot(r) + s.at);
    };
    auto ready = [&](const auto& s) { return s.dev ? cudaEvent_t(nullptr) : ring->ready(r); };
    dev_arena_t ar_k(st);  // the chunk's plan and pass scratch, freed in stream order
    gpu_tuning_t width = gpu_tuning();
    if (sum1.width()) width.window = sum1.width();
    const msm_gpu::msm_scalars_t plan =
        msm_gpu::msm_scalars(ar_k, sc + 8 * p0, cnt, present ? present + p0 : nullptr, width,
                             width.chunk_window ? width.chunk_window : chunk_max_window);
    if (k == 0 && first_after) CUZK_CUDA_OK(cudaStreamWaitEvent(st, first_after, 0));
    if (trace) trace->mark(1, st);
    if (s2) sum2->add(ar_k, points(*s2), plan, ready(*s2), gpu_tuning());
    if (trace) trace->mark(2, st);
    sum1.add(ar_k, points(s1), plan, ready(s1), gpu_tuning());
    if (trace) trace->mark(3, st);
    if (streams) ring->done(r);
  }
  if (s2) *out2 = sum2->finish();
  out1 = sum1.finish();
  if (trace) {
    CUZK_CUDA_OK(cudaStreamSynchronize(st));
    trace->print();
  }
}

}  // namespace cuzk
