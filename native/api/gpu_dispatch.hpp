// The hooks through which the C ABI's automatic entry points (cuzk_msm, cuzk_ntt, cuzk_batch_mul) hand work to the GPU.
// It sits in api/ because it routes to both msm/ and ntt/ (a proof's phase 2 takes its device from the
// caller instead: cuzk_groth16_prove_ab). Each *_try returns true when the GPU
// did the work and false when the caller should run the CPU core: the CPU build, no usable GPU,
// CUZK_GPU=0 in the environment, or a size below the one where the GPU pays (CUZK_GPU=force lifts
// the thresholds, for tests). A CUDA failure throws cuzk::error (CUZK_E_DEVICE_OOM, _DEVICE_LOST,
// _CUDA): it is that call's error, never a silent fallback. Plain C++: no CUDA headers.
#pragma once
#include <cstddef>
#include <cstdint>

#include "../curve/jacobian.hpp"

namespace cuzk {

enum gpu_work_t { gpu_work_msm, gpu_work_ntt, gpu_work_batch_mul };

#ifdef CUZK_BACKEND_CUDA
// Whether the policy sends work of this kind and size (2^lg) to the GPU.
bool gpu_wanted(gpu_work_t kind, uint32_t lg);
// cuzk_set_gpu_mode: 0 never, 1 by size, 2 always (when a GPU is present).
void gpu_set_mode(int mode);
// Whether gpu_msm_try would run an n-point MSM on the GPU.
bool gpu_msm_wanted(size_t n);
// out = sum k_i·points[i]; |points| host affine (Montgomery), |scalars| n × 32-byte standard form.
template <class G>
bool gpu_msm_try(const affine_t<G>* points, const uint8_t* scalars, size_t n, jacobian_t<G>& out);
// In place over 2^lg_n standard-form Fr elements, cuzk_ntt's flags; an element not below r is
// E_INVALID_ARG with |a| unchanged (checked on the device as the transform loads it).
template <class F>
bool gpu_ntt_try(F* a, uint32_t lg_n, uint32_t flags);
// out[i] = k_i·base (fixed base, msm/fixed_base_gpu.cuh); host pointers, |base| canonical.
template <class G>
bool gpu_batch_mul_try(const affine_t<G>& base, const uint8_t* scalars, size_t n, affine_t<G>* out);
#else
inline bool gpu_wanted(gpu_work_t, uint32_t) { return false; }
inline void gpu_set_mode(int) {}
inline bool gpu_msm_wanted(size_t) { return false; }
template <class G>
inline bool gpu_msm_try(const affine_t<G>*, const uint8_t*, size_t, jacobian_t<G>&) { return false; }
template <class F>
inline bool gpu_ntt_try(F*, uint32_t, uint32_t) { return false; }
template <class G>
inline bool gpu_batch_mul_try(const affine_t<G>&, const uint8_t*, size_t, affine_t<G>*) { return false; }
#endif

}  // namespace cuzk
