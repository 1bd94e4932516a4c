// fp2_t<F>: the quadratic extension F[u]/(u^2 + 1), used by both BN254 and BLS12-381 (u^2 = -1 in
// both). Byte image c0‖c1, matching snarkjs's G2 coordinate layout. Karatsuba mul: 3M.
#pragma once
#include "mont.hpp"

namespace cuzk {

template <class F>
struct fp2_t {
  using base_t = F;
  static constexpr size_t nbytes = 2 * F::nbytes;
  F c0, c1;

  CUZK_HD static fp2_t zero() { return {F::zero(), F::zero()}; }
  CUZK_HD static fp2_t one() { return {F::one(), F::zero()}; }
  CUZK_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  CUZK_HD bool is_one() const { return c0.is_one() && c1.is_zero(); }
  CUZK_HD bool operator==(const fp2_t& o) const { return c0 == o.c0 && c1 == o.c1; }
  CUZK_HD bool operator!=(const fp2_t& o) const { return !(*this == o); }

  CUZK_HD fp2_t operator+(const fp2_t& b) const { return {c0 + b.c0, c1 + b.c1}; }
  CUZK_HD fp2_t operator-(const fp2_t& b) const { return {c0 - b.c0, c1 - b.c1}; }
  CUZK_HD fp2_t operator-() const { return {-c0, -c1}; }
  CUZK_HD fp2_t dbl() const { return {c0.dbl(), c1.dbl()}; }

  CUZK_HD fp2_t operator*(const fp2_t& b) const {
#ifdef CUZK_MONT_X86
    // 4 limbs (BN254) on the asm path: lazy reduction, 2 reductions instead of 3, the same value
    if constexpr (F::n == 4) {
      if (mont_x86::enabled) {
        fp2_t r;
        mont_x86::fp2_mul4<typename F::params>(r.c0.l, r.c1.l, c0.l, c1.l, b.c0.l, b.c1.l);
        return r;
      }
    }
#endif
    F t0 = c0 * b.c0, t1 = c1 * b.c1;
    F t2 = (c0 + c1) * (b.c0 + b.c1);
    return {t0 - t1, t2 - t0 - t1};
  }
  CUZK_HD fp2_t operator*(const F& k) const { return {c0 * k, c1 * k}; }
  // (a + bu)^2 = (a+b)(a-b) + 2ab u: 2M
  CUZK_HD fp2_t sqr() const {
    F t = c0 * c1;
    return {(c0 + c1) * (c0 - c1), t.dbl()};
  }
  CUZK_HD fp2_t& operator+=(const fp2_t& b) { return *this = *this + b; }
  CUZK_HD fp2_t& operator-=(const fp2_t& b) { return *this = *this - b; }
  CUZK_HD fp2_t& operator*=(const fp2_t& b) { return *this = *this * b; }

  CUZK_HD fp2_t conj() const { return {c0, -c1}; }
  // 1/(a + bu) = (a - bu)/(a^2 + b^2); inv(0) = 0
  CUZK_HD fp2_t inv() const {
    F t = (c0.sqr() + c1.sqr()).inv();
    return {c0 * t, -(c1 * t)};
  }
  CUZK_HD fp2_t pow(const uint64_t* e, size_t nlimbs) const {
    fp2_t r = one();
    for (size_t i = nlimbs; i-- > 0;)
      for (int b = 63; b >= 0; b--) {
        r = r.sqr();
        if ((e[i] >> b) & 1) r = r * *this;
      }
    return r;
  }

  static fp2_t load(const uint8_t* b) { return {F::load(b), F::load(b + F::nbytes)}; }
  void store(uint8_t* b) const { c0.store(b); c1.store(b + F::nbytes); }
  static fp2_t load_std(const uint8_t* b) { return {F::load_std(b), F::load_std(b + F::nbytes)}; }
  void store_std(uint8_t* b) const { c0.store_std(b); c1.store_std(b + F::nbytes); }
  static bool lt_p(const uint8_t* b) {
    uint64_t v[F::n];
    std::memcpy(v, b, F::nbytes);
    if (!F::lt_p(v)) return false;
    std::memcpy(v, b + F::nbytes, F::nbytes);
    return F::lt_p(v);
  }
};

}  // namespace cuzk
