// The staging ring of a stream that reads streamed key sets (key_gpu.cuh): two device slots that a
// copy stream of its own fills from page-locked host memory, chunk k into slot k mod 2, while the
// compute stream works on the chunk before. The ring is given every chunk it will carry, in the order
// its reader takes them (prove_gpu.cu: the witness side's B2 and B1, then A, then C; the main chain's
// coefficients, then H), so the sets one stream reads one after another share it, each slot sized for
// the largest chunk, and the next set's first chunks upload while the set before is still being
// worked on (H's during the transforms; the witness side's during synthesis): the copy stream is
// never idle while a chunk is still to come and a slot is free. The first two chunks are queued at
// construction; the copy of chunk k + 2 waits for the event the compute stream recorded when it was
// done with chunk k (done(k), which queues it), and the compute stream waits for a chunk's copy
// (ready(k)) before reading it: a slot is never overwritten while read. Slots come from the compute
// stream's arena (freed in its order); the ring's destructor makes that stream wait for the copies it
// queued, so the arena frees a slot only after its last copy, also when the reader threw.
#pragma once
#include <algorithm>
#include <memory>
#include <vector>

#include "../util/gpu.hpp"
#include "../util/gpu_tuning.hpp"

namespace cuzk {

class chunk_ring_t {
 public:
  // One host range copied into a chunk's slot at byte offset |at|.
  struct part_t {
    const void* src;
    size_t bytes, at;
  };
  using chunk_t = std::vector<part_t>;

  // The slot bytes |plan|'s largest chunk needs.
  static size_t slot_bytes(const std::vector<chunk_t>& plan) {
    size_t b = 0;
    for (const chunk_t& c : plan)
      for (const part_t& p : c) b = std::max(b, p.at + p.bytes);
    return b;
  }

  chunk_ring_t(dev_arena_t& ar, std::vector<chunk_t> plan) : compute_(ar.stream()), plan_(std::move(plan)) {
    if (plan_.empty()) return;
    const size_t bytes = slot_bytes(plan_);
    for (auto& s : slot_) s = ar.alloc<uint8_t>(bytes);
    gpu_event_t allocated;
    allocated.record(compute_);
    CUZK_CUDA_OK(cudaStreamWaitEvent(copy_, allocated, 0));
    if (tracing()) {
      origin_.record(copy_);
      for (size_t k = 0; k < plan_.size(); k++) copied_.emplace_back(new gpu_event_t[2]);
    }
    load(0);
    load(1);
  }
  ~chunk_ring_t() {
    for (auto& e : ready_) (void)cudaStreamWaitEvent(compute_, e, 0);
  }
  chunk_ring_t(const chunk_ring_t&) = delete;
  chunk_ring_t& operator=(const chunk_ring_t&) = delete;

  // The next chunk's index, for readers that take their chunks in the plan's order.
  size_t take() {
    require(next_ < plan_.size(), "chunk_ring: a reader took more chunks than the plan holds");
    return next_++;
  }
  uint8_t* slot(size_t k) const { return slot_[k & 1]; }
  // Recorded on the copy stream when chunk k is in its slot (until chunk k + 2 is loaded).
  cudaEvent_t ready(size_t k) const { return ready_[k & 1]; }
  // Makes the compute stream wait for chunk k (for kernels that take no event of their own).
  void wait(size_t k) const { CUZK_CUDA_OK(cudaStreamWaitEvent(compute_, ready_[k & 1], 0)); }
  // CUZK_TRACE_CHUNKS=1: per-chunk events (copies here, the readers' in msm_stream_gpu.cuh), printed
  // on stderr by the readers once their stream has finished: where a streamed MSM's time goes.
  static bool tracing() {
    static const bool on = env_flag("CUZK_TRACE_CHUNKS");
    return on;
  }
  // With tracing, the ms from the ring's start to chunk k's copy start (|end| false) or end (both complete).
  float copy_ms(size_t k, bool end) const { return copied_.empty() ? 0.f : copied_[k][end ? 1 : 0].since(origin_); }
  const gpu_event_t& origin() const { return origin_; }

  // The compute stream has queued all its reads of chunk k: its slot takes chunk k + 2.
  void done(size_t k) {
    freed_[k & 1].record(compute_);
    load(k + 2);
  }

 private:
  // Queues chunk k's parts into its slot, once the compute stream is done with chunk k - 2.
  void load(size_t k) {
    if (k >= plan_.size()) return;
    const size_t i = k & 1;
    if (k >= 2) CUZK_CUDA_OK(cudaStreamWaitEvent(copy_, freed_[i], 0));
    if (!copied_.empty()) copied_[k][0].record(copy_);
    for (const part_t& p : plan_[k])
      if (p.bytes) CUZK_CUDA_OK(cudaMemcpyAsync(slot_[i] + p.at, p.src, p.bytes, cudaMemcpyHostToDevice, copy_));
    ready_[i].record(copy_);
    if (!copied_.empty()) copied_[k][1].record(copy_);
  }

  cudaStream_t compute_;
  gpu_stream_t copy_;
  std::vector<chunk_t> plan_;
  size_t next_ = 0;
  uint8_t* slot_[2] = {nullptr, nullptr};
  gpu_event_t ready_[2], freed_[2];
  gpu_event_t origin_;                                 // tracing: the ring's start
  std::vector<std::unique_ptr<gpu_event_t[]>> copied_;  // tracing: each chunk's copy start and end
};

}  // namespace cuzk
