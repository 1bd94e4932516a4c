// CUZK_CUDA_OK(expr): runs a CUDA runtime call and turns a failure into a cuzk::error whose code says
// what the caller can do about it (style §3): out of memory -> CUZK_E_DEVICE_OOM, errors that poison
// the context (illegal address, launch failure, ...) -> CUZK_E_DEVICE_LOST, no device or driver ->
// CUZK_E_NO_DEVICE, anything else -> CUZK_E_CUDA. The message names the error, the call and file:line.
#pragma once
#include <cuda_runtime.h>

#include <cstring>
#include <string>

#include "error.hpp"

namespace cuzk {

inline cuzk_status cuda_status_of(cudaError_t e) {
  switch (e) {
    case cudaErrorMemoryAllocation: return CUZK_E_DEVICE_OOM;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver: return CUZK_E_NO_DEVICE;
    // sticky: the context is unusable until the process exits (CUDA Runtime API, "Error Handling")
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorECCUncorrectable:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorDevicesUnavailable:
    case cudaErrorUnknown: return CUZK_E_DEVICE_LOST;
    default: return CUZK_E_CUDA;
  }
}

[[noreturn]] inline void cuda_fail(cudaError_t e, const char* expr, const char* file, int line) {
  const char* base = std::strrchr(file, '/');
  cuzk_status code = cuda_status_of(e);
  if (code != CUZK_E_DEVICE_LOST) (void)cudaGetLastError();  // clear a non-sticky error for the next call
  fail(code, std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e) + " at " + (base ? base + 1 : file) +
                 ":" + std::to_string(line) + " (" + expr + ")");
}

}  // namespace cuzk

#define CUZK_CUDA_OK(expr)                                                              \
  do {                                                                                  \
    cudaError_t cuzk_cuda_err_ = (expr);                                                \
    if (cuzk_cuda_err_ != cudaSuccess) ::cuzk::cuda_fail(cuzk_cuda_err_, #expr, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: launch-configuration errors show up here, not at the <<<>>>.
#define CUZK_CUDA_LAUNCHED() CUZK_CUDA_OK(cudaGetLastError())
