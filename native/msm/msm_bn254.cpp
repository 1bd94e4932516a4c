// The BN254 instances of the CPU MSM and fixed-base templates (see pippenger_cpu.hpp).
#define CUZK_MSM_INSTANTIATE
#include "fixed_base.hpp"
#include "pippenger_cpu.hpp"

namespace cuzk {
CUZK_MSM_INSTANCES(, bn254::g1)
CUZK_MSM_INSTANCES(, bn254::g2)
CUZK_FIXED_BASE_INSTANCES(, bn254::g1)
CUZK_FIXED_BASE_INSTANCES(, bn254::g2)
}  // namespace cuzk
