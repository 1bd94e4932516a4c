// Curve-id dispatch for the C ABI shims: with_curve(id, [&](auto c) { using C = decltype(c); ... })
// instantiates the body once per supported curve. Unknown ids are CUZK_E_INVALID_ARG.
#pragma once
#include <string>

#include "api/guard.hpp"
#include "curve/bls12_381.hpp"
#include "curve/bn254.hpp"

namespace cuzk {

template <class Fn>
void with_curve(int32_t curve, Fn&& fn) {
  switch (curve) {
    case CUZK_CURVE_BN254: fn(bn254{}); break;
    case CUZK_CURVE_BLS12_381: fn(bls12_381{}); break;
    default: fail(CUZK_E_INVALID_ARG, "unknown curve id " + std::to_string(curve));
  }
}

// with_group(C, group, fn): fn(params) with params = C::g1 or C::g2.
template <class C, class Fn>
void with_group(int32_t group, Fn&& fn) {
  switch (group) {
    case CUZK_G1: fn(typename C::g1{}); break;
    case CUZK_G2: fn(typename C::g2{}); break;
    default: fail(CUZK_E_INVALID_ARG, "unknown group id " + std::to_string(group));
  }
}

}  // namespace cuzk
