// fp6_t<PT>: Fq6 = Fq2[v]/(v^3 − ξ) with ξ = PT::xi0 + u, the middle of the pairing tower
// (both curves; IEEE P1363.3 / Beuchat et al. 2010 towering). Karatsuba mul 6M̃, Chung–Hasan
// CH-SQR2 squaring 2M̃+3S̃ (M̃, S̃ = Fq2 mul/sqr). PT is a pairing-constants struct (bn254_pairing.hpp).
#pragma once
#include "../field/fp2.hpp"

namespace cuzk {

// Tower operations, and the Fq2 mul/sqr under them, are out of line: inlining the always-inline
// field ops through three tower levels made one translation unit compile for over ten minutes
// (g++ 12 -O3, 5 s per Fq6 mul); a call costs ~2 ns next to a ~100 ns Fq2 mul.
#define CUZK_TOWER_FN __attribute__((noinline))

template <class F2> CUZK_TOWER_FN F2 mul2(const F2& a, const F2& b) { return a * b; }
template <class F2> CUZK_TOWER_FN F2 sqr2(const F2& a) { return a.sqr(); }

enum class twist_kind { d_type, m_type };  // E': y^2 = x^3 + b/ξ (D) or x^3 + b·ξ (M)
enum class family_kind { bn, bls12 };

// pairing_of<C>::type: the pairing constants for curve traits C (specialised next to the constants)
template <class C> struct pairing_of;

// k·a by additions (k is a small curve constant such as ξ's real part 9).
template <class F>
F mul_small(const F& a, uint32_t k) {
  F r = F::zero(), d = a;
  for (; k; k >>= 1, d = d.dbl())
    if (k & 1) r = r + d;
  return r;
}

template <class PT>
struct fp6_t {
  using fq2_t = typename PT::fq2_t;
  fq2_t c0, c1, c2;  // c0 + c1·v + c2·v^2

  // ξ·a for ξ = k + u: (k·a0 − a1) + (k·a1 + a0)·u, additions only
  static fq2_t mul_by_xi(const fq2_t& a) {
    if (PT::xi0 == 1) return {a.c0 - a.c1, a.c1 + a.c0};
    return {mul_small(a.c0, PT::xi0) - a.c1, mul_small(a.c1, PT::xi0) + a.c0};
  }

  static fp6_t zero() { return {fq2_t::zero(), fq2_t::zero(), fq2_t::zero()}; }
  static fp6_t one() { return {fq2_t::one(), fq2_t::zero(), fq2_t::zero()}; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  bool operator==(const fp6_t& o) const { return c0 == o.c0 && c1 == o.c1 && c2 == o.c2; }
  bool operator!=(const fp6_t& o) const { return !(*this == o); }

  fp6_t operator+(const fp6_t& b) const { return {c0 + b.c0, c1 + b.c1, c2 + b.c2}; }
  fp6_t operator-(const fp6_t& b) const { return {c0 - b.c0, c1 - b.c1, c2 - b.c2}; }
  fp6_t operator-() const { return {-c0, -c1, -c2}; }
  fp6_t dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }
  fp6_t operator*(const fq2_t& k) const { return {mul2(c0, k), mul2(c1, k), mul2(c2, k)}; }

  // (c0 + c1 v + c2 v^2)·v = ξ c2 + c0 v + c1 v^2
  fp6_t mul_by_v() const { return {mul_by_xi(c2), c0, c1}; }

  CUZK_TOWER_FN fp6_t operator*(const fp6_t& b) const {  // Karatsuba, 6M̃
    fq2_t v0 = mul2(c0, b.c0), v1 = mul2(c1, b.c1), v2 = mul2(c2, b.c2);
    fp6_t r;
    r.c0 = v0 + mul_by_xi(mul2(c1 + c2, b.c1 + b.c2) - v1 - v2);
    r.c1 = mul2(c0 + c1, b.c0 + b.c1) - v0 - v1 + mul_by_xi(v2);
    r.c2 = mul2(c0 + c2, b.c0 + b.c2) - v0 + v1 - v2;
    return r;
  }

  CUZK_TOWER_FN fp6_t sqr() const {  // Chung–Hasan CH-SQR2, 2M̃+3S̃
    fq2_t s0 = sqr2(c0), s1 = mul2(c0, c1).dbl(), s2 = sqr2(c0 - c1 + c2);
    fq2_t s3 = mul2(c1, c2).dbl(), s4 = sqr2(c2);
    return {s0 + mul_by_xi(s3), s1 + mul_by_xi(s4), s1 + s2 + s3 - s0 - s4};
  }

  // this·(b0 + b1 v), the shape of half a line evaluation: 5M̃
  CUZK_TOWER_FN fp6_t mul_by_01(const fq2_t& b0, const fq2_t& b1) const {
    fq2_t v0 = mul2(c0, b0), v1 = mul2(c1, b1);
    fp6_t r;
    r.c0 = v0 + mul_by_xi(mul2(c1 + c2, b1) - v1);
    r.c1 = mul2(c0 + c1, b0 + b1) - v0 - v1;
    r.c2 = mul2(c0 + c2, b0) - v0 + v1;
    return r;
  }

  // this·(b1 v): 3M̃
  fp6_t mul_by_1(const fq2_t& b1) const { return {mul_by_xi(mul2(c2, b1)), mul2(c0, b1), mul2(c1, b1)}; }

  CUZK_TOWER_FN fp6_t inv() const {  // via the norm to Fq2 (Beuchat et al. 2010, Alg. 17); inv(0) = 0
    fq2_t t0 = sqr2(c0) - mul_by_xi(mul2(c1, c2));
    fq2_t t1 = mul_by_xi(sqr2(c2)) - mul2(c0, c1);
    fq2_t t2 = sqr2(c1) - mul2(c0, c2);
    fq2_t n = (mul2(c0, t0) + mul_by_xi(mul2(c2, t1) + mul2(c1, t2))).inv();
    return {mul2(t0, n), mul2(t1, n), mul2(t2, n)};
  }
};

}  // namespace cuzk
