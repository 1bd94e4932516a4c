// The CUDA build's library entry points that differ from the CPU build (native/api/library.cpp keeps
// the CPU versions under CUZK_BACKEND_CPU): backend identity, the GPU probe, and cuzk_mem_alloc with
// page-locked memory (cudaHostAlloc: uploads at ~55 GB/s instead of ~7.5, shared/perf/h200.md).
// Pinned allocation costs ~0.5-0.8 s/GiB, so callers pool these buffers; without a usable GPU a
// pinned request is served with plain memory, so callers behave the same everywhere.
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_set>

#include "util/gpu.hpp"

using namespace cuzk;

namespace {
std::mutex pinned_mu;
std::unordered_set<void*>& pinned_set() {
  static std::unordered_set<void*> s;
  return s;
}
}  // namespace

extern "C" {

CUZK_API const char* cuzk_backend_name(void) { return "cuda"; }

CUZK_API int32_t cuzk_cuda_available(void) { return gpu_info().present ? 1 : 0; }

CUZK_API cuzk_status cuzk_mem_alloc(uint64_t bytes, int32_t pinned, void** out, cuzk_error* err) {
  return guard([&] {
    require(out != nullptr, "cuzk_mem_alloc: out is NULL");
    require(bytes > 0, "cuzk_mem_alloc: zero bytes");
    size_t rounded = (bytes + 63) & ~uint64_t(63);
    void* p = nullptr;
    if (pinned && gpu_info().present) {
      cudaError_t e = cudaHostAlloc(&p, rounded, cudaHostAllocPortable);
      if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        fail(CUZK_E_HOST_OOM, "cuzk_mem_alloc: could not pin " + std::to_string(bytes) + " bytes");
      }
      CUZK_CUDA_OK(e);
      std::lock_guard<std::mutex> lk(pinned_mu);
      pinned_set().insert(p);
    } else if (posix_memalign(&p, 64, rounded) != 0 || !p) {
      fail(CUZK_E_HOST_OOM, "cuzk_mem_alloc: could not allocate " + std::to_string(bytes) + " bytes");
    }
    *out = p;
  }, err);
}

CUZK_API cuzk_status cuzk_mem_free(void* ptr, cuzk_error* err) {
  return guard([&] {
    if (!ptr) return;
    bool was_pinned;
    {
      std::lock_guard<std::mutex> lk(pinned_mu);
      was_pinned = pinned_set().erase(ptr) > 0;
    }
    if (was_pinned) CUZK_CUDA_OK(cudaFreeHost(ptr));
    else std::free(ptr);
  }, err);
}

}  // extern "C"
