// Test hook cuzk_debug_gpu_counter (include/cuzk_test.h; only in libcuzk_*_test.so): the CUDA build
// reads util/gpu.hpp's counters, which the release library also keeps but never exports; the CPU
// build has no GPU kernels, so every count is 0.
#include "include/cuzk_test.h"
#ifdef CUZK_BACKEND_CUDA
#include "util/gpu.hpp"
#endif

extern "C" {

CUZK_API uint64_t cuzk_debug_gpu_counter(int32_t which) {
#ifdef CUZK_BACKEND_CUDA
  return which == 0 ? cuzk::gpu_counters().affine_accumulations.load() : 0;
#else
  (void)which;
  return 0;
#endif
}

}  // extern "C"
