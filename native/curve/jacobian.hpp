// jacobian_t<C>: projective point (X : Y : Z) with x = X/Z^2, y = Y/Z^3 on y^2 = x^3 + b; Z = 0 is
// infinity. Formulas from the Explicit-Formulas Database (EFD), a = 0:
//   dbl-2009-l (2M+5S), add-2007-bl (11M+5S), madd-2007-bl (7M+4S).
// Each handles infinity and the P == Q / P == -Q cases, so callers need no special-casing.
#pragma once
#include "affine.hpp"

namespace cuzk {

template <class C>
struct jacobian_t {
  using field_t = typename C::field_t;
  using affine = affine_t<C>;
  field_t X, Y, Z;

  CUZK_HD static jacobian_t infinity() { return {field_t::one(), field_t::one(), field_t::zero()}; }
  CUZK_HD bool is_inf() const { return Z.is_zero(); }
  CUZK_HD static jacobian_t from_affine(const affine& a) {
    return a.is_inf() ? infinity() : jacobian_t{a.x, a.y, field_t::one()};
  }
  CUZK_HD jacobian_t operator-() const { return {X, -Y, Z}; }

  CUZK_HD jacobian_t dbl() const {
    if (is_inf()) return *this;
    field_t A = X.sqr(), B = Y.sqr(), Cc = B.sqr();
    field_t D = ((X + B).sqr() - A - Cc).dbl();
    field_t E = A.dbl() + A, F = E.sqr();
    jacobian_t r;
    r.X = F - D.dbl();
    field_t C8 = Cc.dbl().dbl().dbl();
    r.Y = E * (D - r.X) - C8;
    r.Z = (Y * Z).dbl();
    return r;
  }

  CUZK_HD jacobian_t add(const jacobian_t& q) const {
    if (is_inf()) return q;
    if (q.is_inf()) return *this;
    field_t Z1Z1 = Z.sqr(), Z2Z2 = q.Z.sqr();
    field_t U1 = X * Z2Z2, U2 = q.X * Z1Z1;
    field_t S1 = Y * q.Z * Z2Z2, S2 = q.Y * Z * Z1Z1;
    field_t H = U2 - U1, rr = (S2 - S1).dbl();
    if (H.is_zero()) {
      if (rr.is_zero()) return dbl();
      return infinity();
    }
    field_t I = H.dbl().sqr(), J = H * I, V = U1 * I;
    jacobian_t r;
    r.X = rr.sqr() - J - V.dbl();
    r.Y = rr * (V - r.X) - (S1 * J).dbl();
    r.Z = ((Z + q.Z).sqr() - Z1Z1 - Z2Z2) * H;
    return r;
  }

  CUZK_HD jacobian_t add(const affine& q) const {  // mixed addition
    if (q.is_inf()) return *this;
    if (is_inf()) return from_affine(q);
    field_t Z1Z1 = Z.sqr();
    field_t U2 = q.x * Z1Z1, S2 = q.y * Z * Z1Z1;
    field_t H = U2 - X, rr = (S2 - Y).dbl();
    if (H.is_zero()) {
      if (rr.is_zero()) return dbl();
      return infinity();
    }
    field_t HH = H.sqr(), I = HH.dbl().dbl(), J = H * I, V = X * I;
    jacobian_t r;
    r.X = rr.sqr() - J - V.dbl();
    r.Y = rr * (V - r.X) - (Y * J).dbl();
    r.Z = (Z + H).sqr() - Z1Z1 - HH;
    return r;
  }

  CUZK_HD affine to_affine() const {
    if (is_inf()) return affine::infinity();
    field_t zi = Z.inv(), zi2 = zi.sqr();
    return {X * zi2, Y * zi2 * zi};
  }

  // k·P for a little-endian scalar of |nlimbs| 64-bit limbs (double-and-add; not constant time).
  CUZK_HD jacobian_t mul(const uint64_t* k, size_t nlimbs) const {
    jacobian_t r = infinity();
    for (size_t i = nlimbs; i-- > 0;)
      for (int b = 63; b >= 0; b--) {
        r = r.dbl();
        if ((k[i] >> b) & 1) r = r.add(*this);
      }
    return r;
  }
};

// Converts |n| Jacobian points to affine with one field inversion (Montgomery's trick).
template <class C>
inline void batch_to_affine(const jacobian_t<C>* in, affine_t<C>* out, size_t n,
                            typename C::field_t* scratch_z, typename C::field_t* scratch) {
  for (size_t i = 0; i < n; i++) scratch_z[i] = in[i].Z;
  batch_inverse(scratch_z, scratch, n);
  for (size_t i = 0; i < n; i++) {
    if (in[i].is_inf()) { out[i] = affine_t<C>::infinity(); continue; }
    auto zi2 = scratch_z[i].sqr();
    out[i] = {in[i].X * zi2, in[i].Y * zi2 * scratch_z[i]};
  }
}

}  // namespace cuzk
