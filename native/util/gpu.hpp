// GPU plumbing for the CUDA build: a one-time device probe that never crashes without a driver, an
// owned stream, and a per-call arena of stream-ordered device allocations (cudaMallocAsync from the
// default pool, whose release threshold is raised so memory is reused across calls instead of going
// back to the driver: cudaMalloc/cudaFree per call would synchronise the device every time).
#pragma once
#include <atomic>
#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "check.hpp"
#include "gpu_tuning.hpp"

namespace cuzk {

struct gpu_info_t {
  bool present = false;
  int device = 0;
  int sm_count = 0;
  size_t total_mem = 0;
};

// The devices as the driver describes them, asked once per process with device queries only, so no
// CUDA context is made (~100-300 ms on an H200): cuzk_cuda_available and cuzk_gpu_count answer from
// this, and the context is left to the first gpu_use_device (cuzk_gpu_warm runs one on a worker
// thread while a one-shot prover reads its key). A missing driver or device reads as "not present".
inline const gpu_info_t& gpu_probe() {
  static gpu_info_t info;
  static std::once_flag once;
  std::call_once(once, [] {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
      (void)cudaGetLastError();
      return;
    }
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess || prop.major < 7) {
      (void)cudaGetLastError();
      return;
    }
    info.present = true;
    info.sm_count = prop.multiProcessorCount;
    info.total_mem = prop.totalGlobalMem;
  });
  return info;
}

// gpu_probe(), and once per process device 0's stream-ordered pool kept (its release threshold
// raised; gpu_use_device does the same per device): what the kernels and tools ask for.
inline const gpu_info_t& gpu_info() {
  static std::once_flag once;
  const gpu_info_t& info = gpu_probe();
  if (info.present)
    std::call_once(once, [] {
      cudaMemPool_t pool;
      if (cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess) {
        uint64_t keep = UINT64_MAX;
        (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
      }
      (void)cudaGetLastError();
    });
  return info;
}

// Counts the tests read (cuzk_debug_gpu_counter, api/debug_gpu_counter.cpp): which kernel variants a
// process's work ran. Shared code bumps them, so they exist in the release library too, but dormant:
// hidden, never exported, read by nothing there (one atomic increment per bucket pass).
struct gpu_counters_t {
  std::atomic<uint64_t> affine_accumulations{0};  // batch-affine bucket passes launched (msm_gpu.cuh)
};
inline gpu_counters_t& gpu_counters() {
  static gpu_counters_t c;
  return c;
}

struct gpu_stream_t {
  cudaStream_t s = nullptr;
  gpu_stream_t() { CUZK_CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~gpu_stream_t() { if (s) (void)cudaStreamDestroy(s); }
  gpu_stream_t(const gpu_stream_t&) = delete;
  gpu_stream_t& operator=(const gpu_stream_t&) = delete;
  operator cudaStream_t() const { return s; }
  void sync() const { CUZK_CUDA_OK(cudaStreamSynchronize(s)); }
};

// Device buffers that live until the arena goes out of scope (also on an exception), freed in
// stream order so no host synchronisation is needed.
class dev_arena_t {
 public:
  explicit dev_arena_t(cudaStream_t s) : s_(s) {}
  ~dev_arena_t() {
    for (void* p : ptrs_) (void)cudaFreeAsync(p, s_);
  }
  dev_arena_t(const dev_arena_t&) = delete;
  dev_arena_t& operator=(const dev_arena_t&) = delete;

  template <class T>
  T* alloc(size_t count) {
    void* p = nullptr;
    size_t bytes = count * sizeof(T);
    CUZK_CUDA_OK(cudaMallocAsync(&p, bytes ? bytes : 16, s_));
    ptrs_.push_back(p);
    return static_cast<T*>(p);
  }
  cudaStream_t stream() const { return s_; }

 private:
  cudaStream_t s_;
  std::vector<void*> ptrs_;
};

inline unsigned ceil_div(size_t a, size_t b) { return unsigned((a + b - 1) / b); }

// Usable devices (compute capability >= 7), 0 without a driver.
inline int gpu_count() {
  static const int count = [] {
    if (!gpu_probe().present) return 0;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

// Makes |device| current on the calling thread (koffi's async calls run on a pool of threads, so
// every entry point that takes a device calls this first) and, once per device, raises its stream-
// ordered pool's release threshold so per-proof scratch memory is reused instead of returned.
inline void gpu_use_device(int device) {
  if (device < 0 || device >= gpu_count())
    fail(CUZK_E_NO_DEVICE, "GPU " + std::to_string(device) + " does not exist (" + std::to_string(gpu_count()) +
                               " usable)");
  CUZK_CUDA_OK(cudaSetDevice(device));
  static std::once_flag once[64];
  if (device < 64)
    std::call_once(once[device], [device] {
      // before the context's first use: cudaSetDeviceFlags then applies to it (CUDA >= 12); a knob
      // that cannot take effect is an error, not a measurement of the default
      const gpu_sync_t sync = gpu_tuning().sync;
      if (sync != gpu_sync_t::automatic) {
        const unsigned flags = sync == gpu_sync_t::spin ? cudaDeviceScheduleSpin : sync == gpu_sync_t::yield ? cudaDeviceScheduleYield : cudaDeviceScheduleBlockingSync;
        CUZK_CUDA_OK(cudaSetDeviceFlags(flags | cudaDeviceMapHost));
      }
      cudaMemPool_t pool;
      if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
        uint64_t keep = UINT64_MAX;
        (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
      }
      (void)cudaGetLastError();
    });
}

// A CUDA event owned by the host code that records it.
struct gpu_event_t {
  cudaEvent_t e = nullptr;
  gpu_event_t() { CUZK_CUDA_OK(cudaEventCreate(&e)); }
  ~gpu_event_t() { if (e) (void)cudaEventDestroy(e); }
  gpu_event_t(const gpu_event_t&) = delete;
  gpu_event_t& operator=(const gpu_event_t&) = delete;
  operator cudaEvent_t() const { return e; }
  void record(cudaStream_t s) { CUZK_CUDA_OK(cudaEventRecord(e, s)); }
  // ms from |from| to this event (both recorded and complete)
  float since(const gpu_event_t& from) const {
    float ms = 0;
    CUZK_CUDA_OK(cudaEventElapsedTime(&ms, from.e, e));
    return ms;
  }
};

}  // namespace cuzk
