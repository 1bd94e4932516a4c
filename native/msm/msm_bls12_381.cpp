// The BLS12-381 instances of the CPU MSM and fixed-base templates (see pippenger_cpu.hpp).
#define CUZK_MSM_INSTANTIATE
#include "fixed_base.hpp"
#include "pippenger_cpu.hpp"

namespace cuzk {
CUZK_MSM_INSTANCES(, bls12_381::g1)
CUZK_MSM_INSTANCES(, bls12_381::g2)
CUZK_FIXED_BASE_INSTANCES(, bls12_381::g1)
CUZK_FIXED_BASE_INSTANCES(, bls12_381::g2)
}  // namespace cuzk
