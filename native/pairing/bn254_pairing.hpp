// BN254 pairing constants: ξ = 9 + u (Fq6 = Fq2[v]/(v^3 − ξ)), D-type sextic twist, curve parameter
// x = 4965661367192848881 (EIP-197; the optimal ate loop runs over 6x + 2, Vercauteren 2010).
// Constants only: the tower, Miller loop and final exponentiation are generic (pairing.hpp).
#pragma once
#include "../curve/bn254.hpp"
#include "fp6.hpp"

namespace cuzk {

struct bn254_pairing {
  using curve_t = bn254;
  using fq_t = bn254_fq_t;
  using fq2_t = bn254_fq2_t;
  static constexpr uint32_t xi0 = 9;  // ξ = xi0 + u
  static constexpr twist_kind twist = twist_kind::d_type;
  static constexpr family_kind family = family_kind::bn;
  static constexpr uint64_t x_abs = 4965661367192848881ull;
  static constexpr bool x_negative = false;
  static constexpr bool g1_cofactor_one = true;  // #E(Fq) = r: on the curve means in G1
};
template <> struct pairing_of<bn254> { using type = bn254_pairing; };

}  // namespace cuzk
