// Device points over a field F of field/mont.cuh: daffine_t (x, y; all-zero = infinity) and dxyzz_t
// (X, Y, ZZ, ZZZ with x = X/ZZ, y = Y/ZZZ; ZZ = 0 is infinity), byte-identical to the host affine_t
// and xyzz_t. The formulas are curve/xyzz_formulas.inc, the same text the host compiles.
#pragma once
#include "../field/mont.cuh"

namespace cuzk {
namespace dev {

#define CUZK_XYZZ_FN __device__ __forceinline__
#include "xyzz_formulas.inc"
#undef CUZK_XYZZ_FN

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

  // The formulas: curve/xyzz_formulas.inc (the same text as the host's xyzz_t).
  __device__ static dxyzz_t dbl_affine(const F& x, const F& y) { return xyzz_dbl_affine<dxyzz_t>(x, y); }

  // The general add and dbl are calls (by value, so the operands stay in registers): inlined at
  // every use they made ptxas take ~40 s per reduction kernel, and they are off the hot loop.
  __device__ __forceinline__ dxyzz_t dbl() const { return dbl_of(*this); }
  __device__ __forceinline__ void add(const dxyzz_t& q) { *this = sum_of(*this, q); }
  __device__ __noinline__ static dxyzz_t dbl_of(const dxyzz_t p) { return xyzz_dbl(p); }
  __device__ __noinline__ static dxyzz_t sum_of(const dxyzz_t p, const dxyzz_t q) { return xyzz_add(p, q); }

  // this += (x, neg ? -y : y); (x, y) must not be infinity.
  __device__ void add_affine(const F& x, const F& y, bool neg) { xyzz_add_affine(*this, x, y, neg); }
};

}  // namespace dev
}  // namespace cuzk
