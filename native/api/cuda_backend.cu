// The CUDA build's library entry points that differ from the CPU build (native/api/library.cpp keeps
// the CPU versions under CUZK_BACKEND_CPU): backend identity, the GPU probe, and cuzk_mem_alloc with
// page-locked memory (cudaHostAlloc: uploads at ~55 GB/s instead of ~7.5, shared/perf/h200.md).
// Pinned allocation costs ~0.5-0.8 s/GiB, so callers pool these buffers; a key's sections are
// instead mapped, filled, then registered in place (cuzk_mem_pin: ~0.04 s/GiB on touched pages, the
// same upload speed). Without a usable GPU a pinned request is served with plain memory and a pin
// does nothing, so callers behave the same everywhere.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>

#include "util/gpu.hpp"
#include "util/host_mem.hpp"
#include "api/gpu_dispatch.hpp"
#include "api/guard.hpp"

using namespace cuzk;

namespace {
std::mutex pinned_mu;
std::unordered_set<void*>& pinned_set() {  // cudaHostAlloc'd
  static std::unordered_set<void*> s;
  return s;
}
std::unordered_set<void*>& registered_set() {  // host_map'd, then cudaHostRegister'd
  static std::unordered_set<void*> s;
  return s;
}
}  // namespace

extern "C" {

CUZK_API const char* cuzk_backend_name(void) { return "cuda"; }

CUZK_API int32_t cuzk_cuda_available(void) { return gpu_probe().present ? 1 : 0; }

CUZK_API int32_t cuzk_gpu_count(void) { return gpu_count(); }

CUZK_API cuzk_status cuzk_gpu_describe(int32_t device, cuzk_gpu_desc* out, cuzk_error* err) {
  return guard([&] {
    require(out != nullptr, "cuzk_gpu_describe: out is NULL");
    gpu_use_device(device);
    cudaDeviceProp prop;
    CUZK_CUDA_OK(cudaGetDeviceProperties(&prop, device));
    size_t free_b = 0, total_b = 0;
    CUZK_CUDA_OK(cudaMemGetInfo(&free_b, &total_b));
    std::memset(out, 0, sizeof *out);
    std::snprintf(out->name, sizeof out->name, "%s", prop.name);
    out->memory_total = total_b;
    out->memory_free = free_b;
    out->sm_count = prop.multiProcessorCount;
    out->cc_major = prop.major;
    out->cc_minor = prop.minor;
  }, err);
}

CUZK_API cuzk_status cuzk_gpu_warm(int32_t device, cuzk_error* err) {
  return guard([&] {
    gpu_use_device(device);
    CUZK_CUDA_OK(cudaFree(nullptr));  // the runtime creates the primary context on its first real call
  }, err);
}

CUZK_API cuzk_status cuzk_set_gpu_mode(int32_t mode, cuzk_error* err) {
  return guard([&] {
    require(mode >= 0 && mode <= 2, "cuzk_set_gpu_mode: mode must be 0, 1 or 2");
    gpu_set_mode(mode);
  }, err);
}

CUZK_API cuzk_status cuzk_mem_alloc(uint64_t bytes, int32_t kind, void** out, cuzk_error* err) {
  return guard([&] {
    require(out != nullptr, "cuzk_mem_alloc: out is NULL");
    require(bytes > 0, "cuzk_mem_alloc: zero bytes");
    require(kind >= CUZK_MEM_PLAIN && kind <= CUZK_MEM_MAPPED, "cuzk_mem_alloc: unknown kind " + std::to_string(kind));
    if (kind == CUZK_MEM_MAPPED) {
      *out = host_map(bytes);
      return;
    }
    size_t rounded = (bytes + 63) & ~uint64_t(63);
    void* p = nullptr;
    if (kind == CUZK_MEM_PINNED && gpu_info().present) {
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

CUZK_API cuzk_status cuzk_mem_pin(void* ptr, cuzk_error* err) {
  return guard([&] {
    const uint64_t bytes = host_mapping_bytes(ptr);
    require(bytes > 0, "cuzk_mem_pin: not a mapped buffer from cuzk_mem_alloc");
    if (!gpu_info().present) return;
    {
      std::lock_guard<std::mutex> lk(pinned_mu);
      if (registered_set().count(ptr)) return;
    }
    // outside the lock: a big section takes a while, and the pinned pool's allocs and frees take it
    cudaError_t e = cudaHostRegister(ptr, bytes, cudaHostRegisterPortable | cudaHostRegisterMapped);
    if (e == cudaErrorHostMemoryAlreadyRegistered || e == cudaErrorMemoryAllocation) (void)cudaGetLastError();
    if (e == cudaErrorHostMemoryAlreadyRegistered) e = cudaSuccess;
    if (e == cudaErrorMemoryAllocation) {
      fail(CUZK_E_HOST_OOM, "cuzk_mem_pin: could not page-lock " + std::to_string(bytes) + " bytes (memlock limit or memory)");
    }
    CUZK_CUDA_OK(e);
    std::lock_guard<std::mutex> lk(pinned_mu);
    registered_set().insert(ptr);
  }, err);
}

CUZK_API cuzk_status cuzk_mem_free(void* ptr, cuzk_error* err) {
  return guard([&] {
    if (!ptr) return;
    bool was_pinned, was_registered;
    {
      std::lock_guard<std::mutex> lk(pinned_mu);
      was_pinned = pinned_set().erase(ptr) > 0;
      was_registered = registered_set().erase(ptr) > 0;
    }
    if (was_pinned) {
      CUZK_CUDA_OK(cudaFreeHost(ptr));
      return;
    }
    // unmapped even if the unregister fails: the memory is the caller's to give back either way
    cudaError_t e = was_registered ? cudaHostUnregister(ptr) : cudaSuccess;
    if (!host_unmap(ptr)) std::free(ptr);
    CUZK_CUDA_OK(e);
  }, err);
}

}  // extern "C"
