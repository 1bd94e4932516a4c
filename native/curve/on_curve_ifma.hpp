// The key reader's point checks for BN254, eight points at a time with AVX-512 IFMA
// (curve/bn254_x8_ifma.hpp): y^2 = x^3 + b in lanes, the scalar check (api/point_defect.hpp) kept for
// every point they do not prove good, so the verdicts are the scalar path's.
#pragma once
#include <cstdint>

namespace cuzk {

// Whether the 8-lane checks run on this CPU (x86-64 with IFMA, CUZK_NO_IFMA unset).
bool bn254_points_x8_enabled();

// Of the eight consecutive LEM points at |b| (64 bytes each in G1, 128 in G2), the lanes (bit k:
// point k) proven canonical, not the point at infinity, and on the curve. A lane left out is not
// bad for that: the caller asks point_defect about it (the point at infinity is good there).
uint8_t bn254_g1_good_x8(const uint8_t* b);
uint8_t bn254_g2_good_x8(const uint8_t* b);

}  // namespace cuzk
