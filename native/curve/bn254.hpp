// BN254 curve constants: G1 y^2 = x^3 + 3 over Fq, G2 y^2 = x^3 + 3/(9+u) over Fq2 (D-type twist),
// generators as in EIP-197 and snarkjs. Only constants live here; math is in the templates.
#pragma once
#include "../field/bn254.hpp"
#include "../field/fp2.hpp"
#include "jacobian.hpp"

namespace cuzk {

using bn254_fq2_t = fp2_t<bn254_fq_t>;

struct bn254_g1_params {
  using field_t = bn254_fq_t;
  static field_t b() { static const field_t v = field_t::from_u64(3); return v; }
  static affine_t<bn254_g1_params> generator() {
    static const affine_t<bn254_g1_params> g{field_t::from_u64(1), field_t::from_u64(2)};
    return g;
  }
};

struct bn254_g2_params {
  using field_t = bn254_fq2_t;
  static field_t b() {
    static const uint64_t c0[4] = {0x3267e6dc24a138e5, 0xb5b4c5e559dbefa3, 0x81be18991be06ac3, 0x2b149d40ceb8aaae};
    static const uint64_t c1[4] = {0xe4a2bd0685c315d2, 0xa74fa084e52d1852, 0xcd2cafadeed8fdf4, 0x009713b03af0fed4};
    static const field_t v{bn254_fq_t::from_std(c0), bn254_fq_t::from_std(c1)};
    return v;
  }
  static affine_t<bn254_g2_params> generator() {
    static const uint64_t x0[4] = {0x46debd5cd992f6ed, 0x674322d4f75edadd, 0x426a00665e5c4479, 0x1800deef121f1e76};
    static const uint64_t x1[4] = {0x97e485b7aef312c2, 0xf1aa493335a9e712, 0x7260bfb731fb5d25, 0x198e9393920d483a};
    static const uint64_t y0[4] = {0x4ce6cc0166fa7daa, 0xe3d1e7690c43d37b, 0x4aab71808dcb408f, 0x12c85ea5db8c6deb};
    static const uint64_t y1[4] = {0x55acdadcd122975b, 0xbc4b313370b38ef3, 0xec9e99ad690c3395, 0x090689d0585ff075};
    static const affine_t<bn254_g2_params> g{{bn254_fq_t::from_std(x0), bn254_fq_t::from_std(x1)},
                                             {bn254_fq_t::from_std(y0), bn254_fq_t::from_std(y1)}};
    return g;
  }
};

// Everything the Groth16 code needs to know about one curve.
struct bn254 {
  static constexpr int32_t id = 1;  // CUZK_CURVE_BN254
  using fr_t = bn254_fr_t;
  using fq_t = bn254_fq_t;
  using fq2_t = bn254_fq2_t;
  using g1 = bn254_g1_params;
  using g2 = bn254_g2_params;
  using g1_affine_t = affine_t<g1>;
  using g2_affine_t = affine_t<g2>;
  using g1_jacobian_t = jacobian_t<g1>;
  using g2_jacobian_t = jacobian_t<g2>;
};

}  // namespace cuzk
