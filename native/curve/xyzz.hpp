// xyzz_t<C>: extended Jacobian point (X, Y, ZZ, ZZZ) with x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2, on
// y^2 = x^3 + b (a = 0); ZZ = 0 is infinity. The MSM bucket type: its mixed addition is the cheapest
// projective one. EFD "xyzz" (a = 0): madd-2008-s 8M+2S, add-2008-s 12M+2S, dbl-2008-s-1 6M+3S,
// mdbl-2008-s-1 4M+3S. Every operation handles infinity, P == Q and P == -Q.
#pragma once
#include "jacobian.hpp"

// Point formulas are large (10-14 field mults, each inlined): forcing them inline everywhere bloats
// code and compile time, so on the host the compiler decides.
#ifndef CUZK_HD_POINT
#ifdef __CUDACC__
#define CUZK_HD_POINT __host__ __device__ inline
#else
#define CUZK_HD_POINT inline
#endif
#endif

namespace cuzk {

template <class C>
struct xyzz_t {
  using field_t = typename C::field_t;
  using affine = affine_t<C>;
  field_t X, Y, ZZ, ZZZ;

  CUZK_HD static xyzz_t infinity() { return {field_t::zero(), field_t::zero(), field_t::zero(), field_t::zero()}; }
  CUZK_HD bool is_inf() const { return ZZ.is_zero(); }
  CUZK_HD static xyzz_t from_affine(const affine& a) {
    return a.is_inf() ? infinity() : xyzz_t{a.x, a.y, field_t::one(), field_t::one()};
  }

  // mdbl-2008-s-1 on an affine point (y != 0 on these curves: no point of order 2).
  CUZK_HD_POINT static xyzz_t dbl_affine(const field_t& x, const field_t& y) {
    field_t U = y.dbl(), V = U.sqr(), W = U * V, S = x * V;
    field_t xx = x.sqr(), M = xx.dbl() + xx;
    xyzz_t r;
    r.X = M.sqr() - S.dbl();
    r.Y = M * (S - r.X) - W * y;
    r.ZZ = V;
    r.ZZZ = W;
    return r;
  }

  // dbl-2008-s-1: 6M+3S.
  CUZK_HD_POINT xyzz_t dbl() const {
    if (is_inf()) return *this;
    field_t U = Y.dbl(), V = U.sqr(), W = U * V, S = X * V;
    field_t xx = X.sqr(), M = xx.dbl() + xx;
    xyzz_t r;
    r.X = M.sqr() - S.dbl();
    r.Y = M * (S - r.X) - W * Y;
    r.ZZ = V * ZZ;
    r.ZZZ = W * ZZZ;
    return r;
  }

  // this += (x, |neg| ? -y : y), madd-2008-s: 8M+2S. |q| must not be infinity.
  CUZK_HD_POINT void add_affine(const field_t& x, const field_t& y, bool neg) {
    if (is_inf()) {
      X = x; Y = neg ? -y : y; ZZ = field_t::one(); ZZZ = field_t::one();
      return;
    }
    field_t S2 = y * ZZZ;
    if (neg) S2 = -S2;
    field_t P = x * ZZ - X, R = S2 - Y;
    if (P.is_zero()) {
      if (R.is_zero()) *this = dbl_affine(x, neg ? -y : y);
      else *this = infinity();
      return;
    }
    field_t PP = P.sqr(), PPP = P * PP, Q = X * PP;
    X = R.sqr() - PPP - Q.dbl();
    Y = R * (Q - X) - Y * PPP;
    ZZ = ZZ * PP;
    ZZZ = ZZZ * PPP;
  }
  CUZK_HD void add(const affine& q) { if (!q.is_inf()) add_affine(q.x, q.y, false); }
  CUZK_HD void sub(const affine& q) { if (!q.is_inf()) add_affine(q.x, q.y, true); }

  // this += q, add-2008-s: 12M+2S.
  CUZK_HD_POINT void add(const xyzz_t& q) {
    if (q.is_inf()) return;
    if (is_inf()) { *this = q; return; }
    field_t U1 = X * q.ZZ, U2 = q.X * ZZ, S1 = Y * q.ZZZ, S2 = q.Y * ZZZ;
    field_t P = U2 - U1, R = S2 - S1;
    if (P.is_zero()) {
      if (R.is_zero()) *this = dbl();
      else *this = infinity();
      return;
    }
    field_t PP = P.sqr(), PPP = P * PP, Q = U1 * PP;
    X = R.sqr() - PPP - Q.dbl();
    Y = R * (Q - X) - S1 * PPP;
    ZZ = ZZ * q.ZZ * PP;
    ZZZ = ZZZ * q.ZZZ * PPP;
  }

  // With Z = ZZZ/ZZ: Jacobian (X·ZZ^2, Y·ZZZ^2, ZZZ), since ZZZ^2/ZZ = ZZ^2. 2M+2S, no inversion.
  CUZK_HD_POINT jacobian_t<C> to_jacobian() const {
    if (is_inf()) return jacobian_t<C>::infinity();
    return {X * ZZ.sqr(), Y * ZZZ.sqr(), ZZZ};
  }
  CUZK_HD static xyzz_t from_jacobian(const jacobian_t<C>& p) {
    if (p.is_inf()) return infinity();
    field_t zz = p.Z.sqr();
    return {p.X, p.Y, zz, zz * p.Z};
  }
  CUZK_HD_POINT affine to_affine() const {
    if (is_inf()) return affine::infinity();
    field_t i = (ZZ * ZZZ).inv();  // 1/ZZ = ZZZ·i, 1/ZZZ = ZZ·i
    return {X * ZZZ * i, Y * ZZ * i};
  }
};

}  // namespace cuzk
