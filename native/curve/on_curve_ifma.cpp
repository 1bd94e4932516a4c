// bn254_g1_good_x8 / bn254_g2_good_x8 (on_curve_ifma.hpp): the on-curve check of eight points in
// IFMA lanes. The coordinates' canonical check runs first on the words (lanes that fail are left
// out before any arithmetic, as the lane field needs operands below 2p); then y^2 and x^3 + b,
// both fully reduced, compared word by word.
#include "curve/on_curve_ifma.hpp"

#include "curve/affine.hpp"
#include "curve/bn254.hpp"
#include "curve/bn254_x8_ifma.hpp"

// gcc 12's AVX-512 intrinsics start some results from _mm512_undefined_* (see batch_affine_ifma.cpp)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace cuzk {
#ifdef CUZK_IFMA
bool bn254_points_x8_enabled() { return ifma::enabled; }

namespace {
using namespace x8;

// Lanes whose 2D coordinate components are all below p and not all zero (the point at infinity).
template <int D>
uint8_t canonical_finite(const uint8_t* b) {
  constexpr size_t point_bytes = 64 * D;
  uint8_t ok = 0;
  for (int k = 0; k < 8; k++) {
    const uint8_t* pt = b + k * point_bytes;
    bool canon = true, zero = true;
    for (int q = 0; q < 2 * D; q++) {
      const fq v = fq::load(pt + 32 * q);
      canon = canon && is_canonical(v);
      zero = zero && v.is_zero();
    }
    if (canon && !zero) ok |= uint8_t(1u << k);
  }
  return ok;
}

// |v| in all eight lanes.
template <int D, class F>
CUZK_IFMA_TARGET vf<D> broadcast(const F& v) {
  F vs[8];
  for (auto& e : vs) e = v;
  return from_scalars<D>(vs);
}

template <int D, class F>
CUZK_IFMA_TARGET uint8_t good_x8(const uint8_t* b, const F& curve_b) {
  const uint8_t ok = canonical_finite<D>(b);
  if (ok == 0) return 0;
  constexpr size_t point_bytes = 64 * D;
  const void* pts[8];
  for (int k = 0; k < 8; k++) pts[k] = b + k * point_bytes;
  vf<D> x, y;
  __m512i xw[4 * D];
  load_points<D>(pts, x, y, xw);  // lanes not in |ok| hold words of any size: their results are ignored
  static const vf<D> bb = broadcast<D>(curve_b);  // made once: this runs for every eight points of a key
  const vf<D> lhs = sqr(y), rhs = add(mul(sqr(x), x), bb);
  __mmask8 eq = 0xff;
  for (int d = 0; d < D; d++) {
    __m512i l[4], r[4];
    ifma::to_u64x4(lhs.c[d], l);
    ifma::to_u64x4(rhs.c[d], r);
    for (int j = 0; j < 4; j++) eq &= _mm512_cmpeq_epi64_mask(l[j], r[j]);
  }
  return ok & uint8_t(eq);
}
}  // namespace

uint8_t bn254_g1_good_x8(const uint8_t* b) { return good_x8<1>(b, bn254_g1_params::b()); }
uint8_t bn254_g2_good_x8(const uint8_t* b) { return good_x8<2>(b, bn254_g2_params::b()); }
#else
bool bn254_points_x8_enabled() { return false; }
uint8_t bn254_g1_good_x8(const uint8_t*) { return 0; }
uint8_t bn254_g2_good_x8(const uint8_t*) { return 0; }
#endif
}  // namespace cuzk
