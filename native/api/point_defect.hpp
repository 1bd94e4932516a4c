// point_defect: the load-time verdict on one LEM affine point, shared by cuzk_points_check
// (points.cpp) and the key reader's chunk checks (key_read.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "pairing/bls12_381_pairing.hpp"
#include "pairing/bn254_pairing.hpp"
#include "pairing/groth16_verify.hpp"

namespace cuzk {

// 1 = a coordinate not below q, 2 = off the curve, 3 = not in the r-torsion, 0 = good
template <class C, class G>
int32_t point_defect(const uint8_t* b, bool subgroup) {
  using F = typename G::field_t;
  for (size_t off = 0; off < affine_t<G>::nbytes; off += F::nbytes)
    if (!is_canonical(F::load(b + off))) return 1;
  affine_t<G> p = affine_t<G>::load(b);
  if (!p.on_curve()) return 2;
  if (subgroup && !p.is_inf() && !in_subgroup<C>(p)) return 3;
  return 0;
}

}  // namespace cuzk
