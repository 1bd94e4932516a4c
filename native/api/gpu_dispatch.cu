// The CUDA build's side of api/gpu_dispatch.hpp: the policy (GPU present, CUZK_GPU, size
// thresholds) and the explicit instantiations the C ABI files link against.
#include "../msm/fixed_base_gpu.cuh"
#include "../msm/msm_gpu.cuh"
#include "../ntt/ntt.cuh"
#include "gpu_dispatch.hpp"

#include <atomic>
#include <mutex>

#include "../util/gpu_tuning.hpp"

namespace cuzk {
namespace {

// Below these sizes the CPU core wins: a GPU call costs ~0.1-0.3 ms of launches and synchronisations
// plus pageable uploads at ~7.5 GB/s (shared/perf/h200.md); a fixed-base batch also builds its table
// on the host (~1 ms at 2^12). CUZK_GPU_MIN_LG=k overrides all three; CUZK_GPU sets the starting
// mode (both read once, util/gpu_tuning.hpp), cuzk_set_gpu_mode changes it later.
struct gpu_policy_t {
  bool present = false;
  std::atomic<int> mode{1};  // 0 off, 1 by size, 2 always
  uint32_t min_lg_msm = 10, min_lg_ntt = 12, min_lg_batch_mul = 12;
};

gpu_policy_t& policy() {
  static gpu_policy_t p;
  static std::once_flag once;
  std::call_once(once, [] {
    const gpu_tuning_t& t = gpu_tuning();
    p.present = gpu_info().present;
    p.mode = t.dispatch_mode;
    if (t.min_lg_set) p.min_lg_msm = p.min_lg_ntt = p.min_lg_batch_mul = t.min_lg;
  });
  return p;
}

uint32_t min_lg(gpu_work_t kind) {
  const gpu_policy_t& p = policy();
  if (p.mode == 2) return 0;
  return kind == gpu_work_msm ? p.min_lg_msm : kind == gpu_work_ntt ? p.min_lg_ntt : p.min_lg_batch_mul;
}

}  // namespace

void gpu_set_mode(int mode) { policy().mode = mode; }

bool gpu_wanted(gpu_work_t kind, uint32_t lg) {
  const gpu_policy_t& p = policy();
  return p.present && p.mode != 0 && lg >= min_lg(kind);
}

bool gpu_msm_wanted(size_t n) {
  return n > 0 && n < (size_t(1) << 31) && gpu_wanted(gpu_work_msm, uint32_t(63 - __builtin_clzll(n)));
}

template <class G>
bool gpu_msm_try(const affine_t<G>* points, const uint8_t* scalars, size_t n, jacobian_t<G>& out) {
  if (!gpu_msm_wanted(n)) return false;
  gpu_use_device(0);
  out = msm_gpu_host<G>(points, scalars, n);
  return true;
}

template <class F>
bool gpu_ntt_try(F* a, uint32_t lg_n, uint32_t flags) {
  if (!gpu_wanted(gpu_work_ntt, lg_n)) return false;
  gpu_use_device(0);
  ntt_gpu_host<F>(a, lg_n, (flags & CUZK_NTT_INVERSE) != 0, (flags & CUZK_NTT_COSET) != 0);
  return true;
}

template <class G>
bool gpu_batch_mul_try(const affine_t<G>& base, const uint8_t* scalars, size_t n, affine_t<G>* out) {
  if (n == 0 || !gpu_wanted(gpu_work_batch_mul, uint32_t(63 - __builtin_clzll(n)))) return false;
  gpu_use_device(0);
  fixed_base_gpu_host<G>(base, scalars, n, out);
  return true;
}

template bool gpu_msm_try<bn254_g1_params>(const affine_t<bn254_g1_params>*, const uint8_t*, size_t,
                                           jacobian_t<bn254_g1_params>&);
template bool gpu_msm_try<bn254_g2_params>(const affine_t<bn254_g2_params>*, const uint8_t*, size_t,
                                           jacobian_t<bn254_g2_params>&);
template bool gpu_msm_try<bls12_381_g1_params>(const affine_t<bls12_381_g1_params>*, const uint8_t*, size_t,
                                               jacobian_t<bls12_381_g1_params>&);
template bool gpu_msm_try<bls12_381_g2_params>(const affine_t<bls12_381_g2_params>*, const uint8_t*, size_t,
                                               jacobian_t<bls12_381_g2_params>&);
template bool gpu_batch_mul_try<bn254_g1_params>(const affine_t<bn254_g1_params>&, const uint8_t*, size_t,
                                                 affine_t<bn254_g1_params>*);
template bool gpu_batch_mul_try<bn254_g2_params>(const affine_t<bn254_g2_params>&, const uint8_t*, size_t,
                                                 affine_t<bn254_g2_params>*);
template bool gpu_batch_mul_try<bls12_381_g1_params>(const affine_t<bls12_381_g1_params>&, const uint8_t*, size_t,
                                                     affine_t<bls12_381_g1_params>*);
template bool gpu_batch_mul_try<bls12_381_g2_params>(const affine_t<bls12_381_g2_params>&, const uint8_t*, size_t,
                                                     affine_t<bls12_381_g2_params>*);
template bool gpu_ntt_try<bn254_fr_t>(bn254_fr_t*, uint32_t, uint32_t);
template bool gpu_ntt_try<bls12_381_fr_t>(bls12_381_fr_t*, uint32_t, uint32_t);

}  // namespace cuzk
