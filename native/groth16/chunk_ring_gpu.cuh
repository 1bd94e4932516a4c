// The staging ring of a streamed key set (key_gpu.cuh): two device slots that a copy stream of its own
// fills from page-locked host memory, chunk k into slot k mod 2, while the compute stream works on the
// chunk before. The copy of chunk k + 2 waits for the event the compute stream recorded when it was
// done with chunk k (done(k)), and the compute stream waits for a chunk's copy (ready(k)) before
// reading it: so each chunk's upload overlaps the previous chunk's accumulation, and a slot is never
// overwritten while read. Slots come from the compute stream's arena (freed in its order); the ring's
// destructor makes that stream wait for the copies it queued, so the arena frees a slot only after
// its last copy, also when the caller threw.
#pragma once
#include <initializer_list>

#include "../util/gpu.hpp"

namespace cuzk {

class chunk_ring_t {
 public:
  // One host range copied into a chunk's slot at byte offset |at|.
  struct part_t {
    const void* src;
    size_t bytes, at;
  };

  chunk_ring_t(dev_arena_t& ar, size_t slot_bytes) : compute_(ar.stream()) {
    for (auto& s : slot_) s = ar.alloc<uint8_t>(slot_bytes);
    gpu_event_t allocated;
    allocated.record(compute_);
    CUZK_CUDA_OK(cudaStreamWaitEvent(copy_, allocated, 0));
  }
  ~chunk_ring_t() {
    for (auto& e : ready_) (void)cudaStreamWaitEvent(compute_, e, 0);
  }
  chunk_ring_t(const chunk_ring_t&) = delete;
  chunk_ring_t& operator=(const chunk_ring_t&) = delete;

  // Queues chunk k's parts into its slot, once the compute stream is done with chunk k - 2.
  void load(size_t k, std::initializer_list<part_t> parts) {
    const size_t i = k & 1;
    if (k >= 2) CUZK_CUDA_OK(cudaStreamWaitEvent(copy_, freed_[i], 0));
    for (const part_t& p : parts)
      if (p.bytes) CUZK_CUDA_OK(cudaMemcpyAsync(slot_[i] + p.at, p.src, p.bytes, cudaMemcpyHostToDevice, copy_));
    ready_[i].record(copy_);
  }
  uint8_t* slot(size_t k) const { return slot_[k & 1]; }
  // Recorded on the copy stream when chunk k is in its slot (until chunk k + 2 is loaded).
  cudaEvent_t ready(size_t k) const { return ready_[k & 1]; }
  // Makes the compute stream wait for chunk k (for kernels that take no event of their own).
  void wait(size_t k) const { CUZK_CUDA_OK(cudaStreamWaitEvent(compute_, ready_[k & 1], 0)); }
  // The compute stream has queued all its reads of chunk k: its slot may take chunk k + 2.
  void done(size_t k) { freed_[k & 1].record(compute_); }

 private:
  cudaStream_t compute_;
  gpu_stream_t copy_;
  uint8_t* slot_[2] = {nullptr, nullptr};
  gpu_event_t ready_[2], freed_[2];
};

}  // namespace cuzk
