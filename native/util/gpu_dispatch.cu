// The CUDA build's side of util/gpu_dispatch.hpp: the policy (GPU present, CUZK_GPU, size
// thresholds) and the explicit instantiations the C ABI files link against.
#include "../msm/msm_gpu.cuh"
#include "../ntt/ntt.cuh"
#include "gpu_dispatch.hpp"

#include <cstdlib>
#include <cstring>

namespace cuzk {
namespace {

// Below these sizes the CPU core wins: a GPU call costs ~0.1-0.3 ms of launches and synchronisations
// plus pageable uploads at ~7.5 GB/s (shared/perf/h200.md). CUZK_GPU_MIN_LG=k overrides both.
struct gpu_policy_t {
  bool enabled = false;
  uint32_t min_lg_msm = 10, min_lg_ntt = 12, min_lg_prove = 10;
};

const gpu_policy_t& policy() {
  static const gpu_policy_t p = [] {
    gpu_policy_t r;
    const char* mode = std::getenv("CUZK_GPU");
    bool off = mode && (!std::strcmp(mode, "0") || !std::strcmp(mode, "off"));
    r.enabled = !off && gpu_info().present;
    if (mode && !std::strcmp(mode, "force")) r.min_lg_msm = r.min_lg_ntt = r.min_lg_prove = 0;
    if (const char* lg = std::getenv("CUZK_GPU_MIN_LG"))
      r.min_lg_msm = r.min_lg_ntt = r.min_lg_prove = uint32_t(std::atoi(lg));
    return r;
  }();
  return p;
}

}  // namespace

bool gpu_wanted(gpu_work_t kind, uint32_t lg) {
  const gpu_policy_t& p = policy();
  uint32_t min = kind == gpu_work_msm ? p.min_lg_msm : kind == gpu_work_ntt ? p.min_lg_ntt : p.min_lg_prove;
  return p.enabled && lg >= min;
}

template <class G>
bool gpu_msm_try(const affine_t<G>* points, const uint8_t* scalars, size_t n, jacobian_t<G>& out) {
  const gpu_policy_t& p = policy();
  if (!p.enabled || n == 0 || n < (size_t(1) << p.min_lg_msm) || n >= (size_t(1) << 31)) return false;
  out = msm_gpu_host<G>(points, scalars, n);
  return true;
}

template <class F>
bool gpu_ntt_try(F* a, uint32_t lg_n, uint32_t flags) {
  const gpu_policy_t& p = policy();
  if (!p.enabled || lg_n < p.min_lg_ntt) return false;
  ntt_gpu_host<F>(a, lg_n, (flags & CUZK_NTT_INVERSE) != 0, (flags & CUZK_NTT_COSET) != 0);
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
template bool gpu_ntt_try<bn254_fr_t>(bn254_fr_t*, uint32_t, uint32_t);
template bool gpu_ntt_try<bls12_381_fr_t>(bls12_381_fr_t*, uint32_t, uint32_t);

}  // namespace cuzk
