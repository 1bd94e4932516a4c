// BLS12-381 pairing constants: ξ = 1 + u (Fq6 = Fq2[v]/(v^3 − ξ)), M-type sextic twist, curve
// parameter x = −0xd201000000010000 (draft-irtf-cfrg-pairing-friendly-curves §4.2.1); the optimal
// ate loop runs over |x| and conjugates at the end since x < 0. Constants only.
#pragma once
#include "../curve/bls12_381.hpp"
#include "fp6.hpp"

namespace cuzk {

struct bls12_381_pairing {
  using curve_t = bls12_381;
  using fq_t = bls12_381_fq_t;
  using fq2_t = bls12_381_fq2_t;
  static constexpr uint32_t xi0 = 1;  // ξ = xi0 + u
  static constexpr twist_kind twist = twist_kind::m_type;
  static constexpr family_kind family = family_kind::bls12;
  static constexpr uint64_t x_abs = 0xd201000000010000ull;
  static constexpr bool x_negative = true;
  static constexpr bool g1_cofactor_one = false;  // h1 = 0x396c8c005555e1568c00aaab0000aaab
};
template <> struct pairing_of<bls12_381> { using type = bls12_381_pairing; };

}  // namespace cuzk
