// xyzz_t<C>: extended Jacobian point (X, Y, ZZ, ZZZ) with x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2, on
// y^2 = x^3 + b (a = 0); ZZ = 0 is infinity. The MSM bucket type: its mixed addition is the cheapest
// projective one. The formulas (and their costs) are in curve/xyzz_formulas.inc, shared with the GPU.
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
namespace xyzz_host {
#define CUZK_XYZZ_FN CUZK_HD_POINT
#include "xyzz_formulas.inc"
#undef CUZK_XYZZ_FN
}  // namespace xyzz_host

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

  // The formulas: curve/xyzz_formulas.inc (the same text as the device's dxyzz_t).
  CUZK_HD_POINT static xyzz_t dbl_affine(const field_t& x, const field_t& y) {
    return xyzz_host::xyzz_dbl_affine<xyzz_t>(x, y);
  }
  CUZK_HD_POINT xyzz_t dbl() const { return xyzz_host::xyzz_dbl(*this); }
  // this += (x, |neg| ? -y : y); (x, y) must not be infinity.
  CUZK_HD_POINT void add_affine(const field_t& x, const field_t& y, bool neg) {
    xyzz_host::xyzz_add_affine(*this, x, y, neg);
  }
  CUZK_HD void add(const affine& q) { if (!q.is_inf()) add_affine(q.x, q.y, false); }
  CUZK_HD void sub(const affine& q) { if (!q.is_inf()) add_affine(q.x, q.y, true); }
  CUZK_HD_POINT void add(const xyzz_t& q) { *this = xyzz_host::xyzz_add(*this, q); }

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
