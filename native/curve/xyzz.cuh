// Device points over a field F of field/mont.cuh: daffine_t (x, y; all-zero = infinity) and dxyzz_t
// (X, Y, ZZ, ZZZ with x = X/ZZ, y = Y/ZZZ; ZZ = 0 is infinity), byte-identical to the host affine_t
// and xyzz_t. Formulas as curve/xyzz.hpp, EFD "xyzz" a = 0: madd-2008-s 8M+2S, add-2008-s 12M+2S,
// dbl-2008-s-1 6M+3S, mdbl-2008-s-1 4M+2S; each handles infinity, P == Q and P == -Q.
#pragma once
#include "../field/mont.cuh"

namespace cuzk {
namespace dev {

template <class F>
struct daffine_t {
  using field_t = F;
  F x, y;
  __device__ __forceinline__ bool is_inf() const { return x.is_zero() && y.is_zero(); }
};

template <class F>
struct dxyzz_t {
  using field_t = F;
  F X, Y, ZZ, ZZZ;

  __device__ __forceinline__ static dxyzz_t infinity() { return {F::zero(), F::zero(), F::zero(), F::zero()}; }
  __device__ __forceinline__ bool is_inf() const { return ZZ.is_zero(); }

  // mdbl-2008-s-1 of an affine point (y != 0: these curves have no point of order 2)
  __device__ static dxyzz_t dbl_affine(const F& x, const F& y) {
    F U = y.dbl(), V = U.sqr(), W = U * V, S = x * V;
    F xx = x.sqr(), M = xx.dbl() + xx;
    dxyzz_t r;
    r.X = M.sqr() - S.dbl();
    r.Y = M * (S - r.X) - W * y;
    r.ZZ = V;
    r.ZZZ = W;
    return r;
  }

  // The general add and dbl are calls (by value, so the operands stay in registers): inlined at
  // every use they made ptxas take ~40 s per reduction kernel, and they are off the hot loop.
  __device__ __forceinline__ dxyzz_t dbl() const { return dbl_of(*this); }
  __device__ __forceinline__ void add(const dxyzz_t& q) { *this = sum_of(*this, q); }

  __device__ __noinline__ static dxyzz_t dbl_of(const dxyzz_t p) {
    if (p.is_inf()) return p;
    F U = p.Y.dbl(), V = U.sqr(), W = U * V, S = p.X * V;
    F xx = p.X.sqr(), M = xx.dbl() + xx;
    dxyzz_t r;
    r.X = M.sqr() - S.dbl();
    r.Y = M * (S - r.X) - W * p.Y;
    r.ZZ = V * p.ZZ;
    r.ZZZ = W * p.ZZZ;
    return r;
  }

  // this += (x, neg ? -y : y); (x, y) must not be infinity.
  __device__ void add_affine(const F& x, const F& y, bool neg) {
    if (is_inf()) {
      X = x;
      Y = neg ? -y : y;
      ZZ = F::one();
      ZZZ = F::one();
      return;
    }
    F S2 = y * ZZZ;
    if (neg) S2 = -S2;
    F P = x * ZZ - X, R = S2 - Y;
    if (P.is_zero()) {
      if (R.is_zero()) *this = dbl_affine(x, neg ? -y : y);
      else *this = infinity();
      return;
    }
    F PP = P.sqr(), PPP = P * PP, Q = X * PP;
    X = R.sqr() - PPP - Q.dbl();
    Y = R * (Q - X) - Y * PPP;
    ZZ = ZZ * PP;
    ZZZ = ZZZ * PPP;
  }

  __device__ __noinline__ static dxyzz_t sum_of(const dxyzz_t p, const dxyzz_t q) {
    if (q.is_inf()) return p;
    if (p.is_inf()) return q;
    F U1 = p.X * q.ZZ, U2 = q.X * p.ZZ, S1 = p.Y * q.ZZZ, S2 = q.Y * p.ZZZ;
    F P = U2 - U1, R = S2 - S1;
    if (P.is_zero()) return R.is_zero() ? dbl_of(p) : infinity();
    F PP = P.sqr(), PPP = P * PP, Q = U1 * PP;
    dxyzz_t r;
    r.X = R.sqr() - PPP - Q.dbl();
    r.Y = R * (Q - r.X) - S1 * PPP;
    r.ZZ = p.ZZ * q.ZZ * PP;
    r.ZZZ = p.ZZZ * q.ZZZ * PPP;
    return r;
  }
};

}  // namespace dev
}  // namespace cuzk
