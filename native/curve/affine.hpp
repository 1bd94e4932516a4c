// affine_t<C>: a point (x, y) of y^2 = x^3 + b (a = 0 short Weierstrass) over C::field_t. The byte
// image is snarkjs's LEM point (x‖y, Montgomery); all-zero bytes encode the point at infinity,
// which is safe because (0, 0) is never on these curves (b is not a square... b != 0 suffices).
#pragma once
#include <cstring>
#include "../field/mont.hpp"

namespace cuzk {

template <class F>
struct fp2_t;

// Whether an element read from outside bytes is canonical (< p, in either representation): LEM
// input must be checked before use, since the Montgomery code assumes reduced operands.
template <class P>
CUZK_HD bool is_canonical(const mont_t<P>& v) { return mont_t<P>::lt_p(v.l); }
template <class F>
CUZK_HD bool is_canonical(const fp2_t<F>& v) { return is_canonical(v.c0) && is_canonical(v.c1); }

template <class C>
struct affine_t {
  using field_t = typename C::field_t;
  static constexpr size_t nbytes = 2 * field_t::nbytes;
  field_t x, y;

  CUZK_HD static affine_t infinity() { return {field_t::zero(), field_t::zero()}; }
  CUZK_HD bool is_inf() const { return x.is_zero() && y.is_zero(); }
  CUZK_HD affine_t operator-() const { return is_inf() ? *this : affine_t{x, -y}; }
  CUZK_HD bool operator==(const affine_t& o) const { return x == o.x && y == o.y; }

  CUZK_HD bool on_curve() const {
    if (is_inf()) return true;
    return y.sqr() == x.sqr() * x + C::b();
  }

  CUZK_HD bool is_canonical() const { return cuzk::is_canonical(x) && cuzk::is_canonical(y); }

  static affine_t load(const uint8_t* b) { return {field_t::load(b), field_t::load(b + field_t::nbytes)}; }
  void store(uint8_t* b) const { x.store(b); y.store(b + field_t::nbytes); }
};

}  // namespace cuzk
