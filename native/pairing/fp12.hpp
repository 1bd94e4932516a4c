// fp12_t<PT>: Fq12 = Fq6[w]/(w^2 − v), so w^6 = ξ. Byte image used by cuzk_pairing (standard form,
// n8q bytes each, ffjavascript's Gt.toObject nesting flattened; snarkjs vk_alphabeta_12 order):
//   c0.c0.c0 ‖ c0.c0.c1 ‖ c0.c1.c0 ‖ c0.c1.c1 ‖ c0.c2.c0 ‖ c0.c2.c1 ‖ c1.c0.c0 ‖ … ‖ c1.c2.c1
// where fp12 = c0 + c1·w, fp6 = c0 + c1·v + c2·v^2, fq2 = c0 + c1·u. Frobenius coefficients are
// derived at first use from ξ (γ_{k,j} = ξ^(j(q^k−1)/6)), not typed in.
#pragma once
#include "fp6.hpp"

namespace cuzk {

template <class T> struct mont_params_of;
template <class P> struct mont_params_of<mont_t<P>> { using type = P; };

// γ[k−1][j] = ξ^(j·(q^k − 1)/6) for k = 1..3, j = 0..5: w^(q^k) = γ[k−1][1]·w.
template <class PT>
struct frobenius_coeffs {
  using fq2_t = typename PT::fq2_t;
  using fq_t = typename PT::fq_t;
  fq2_t g[3][6];

  static const frobenius_coeffs& get() { static const frobenius_coeffs c; return c; }

  frobenius_coeffs() {
    using P = typename mont_params_of<fq_t>::type;
    uint64_t e[fq_t::n];  // (q − 1)/6, exact since q ≡ 1 (mod 6) for a sextic twist
    u128 rem = 0;
    for (size_t i = fq_t::n; i-- > 0;) {
      u128 cur = (rem << 64) | (i == 0 ? P::p[0] - 1 : P::p[i]);
      e[i] = (uint64_t)(cur / 6);
      rem = cur % 6;
    }
    fq2_t xi{fq_t::from_u64(PT::xi0), fq_t::one()};
    fq2_t g1 = fq2_t::one();
    for (size_t i = fq_t::n; i-- > 0;)
      for (int b = 63; b >= 0; b--) {
        g1 = sqr2(g1);
        if ((e[i] >> b) & 1) g1 = mul2(g1, xi);
      }
    // (q^(k+1) − 1)/6 = q·(q^k − 1)/6 + (q − 1)/6, and y^q = conj(y) on Fq2
    fq2_t g2 = mul2(g1.conj(), g1);
    fq2_t base[3] = {g1, g2, mul2(g2.conj(), g1)};
    for (int k = 0; k < 3; k++) {
      g[k][0] = fq2_t::one();
      for (int j = 1; j < 6; j++) g[k][j] = mul2(g[k][j - 1], base[k]);
    }
  }
};

template <class PT>
struct fp12_t {
  using fq_t = typename PT::fq_t;
  using fq2_t = typename PT::fq2_t;
  using fp6 = fp6_t<PT>;
  static constexpr size_t nbytes = 12 * fq_t::nbytes;
  fp6 c0, c1;  // c0 + c1·w

  static fp12_t one() { return {fp6::one(), fp6::zero()}; }
  bool is_one() const { return c0 == fp6::one() && c1.is_zero(); }
  bool operator==(const fp12_t& o) const { return c0 == o.c0 && c1 == o.c1; }
  bool operator!=(const fp12_t& o) const { return !(*this == o); }

  CUZK_TOWER_FN fp12_t operator*(const fp12_t& b) const {  // Karatsuba over Fq6: 18M̃
    fp6 aa = c0 * b.c0, bb = c1 * b.c1;
    return {aa + bb.mul_by_v(), (c0 + c1) * (b.c0 + b.c1) - aa - bb};
  }
  fp12_t& operator*=(const fp12_t& b) { return *this = *this * b; }

  CUZK_TOWER_FN fp12_t sqr() const {  // complex squaring: 2 Fq6 mul
    fp6 ab = c0 * c1;
    return {(c0 + c1) * (c0 + c1.mul_by_v()) - ab - ab.mul_by_v(), ab.dbl()};
  }

  // conj = this^(q^6): the inverse on the cyclotomic subgroup (after the easy part)
  fp12_t conj() const { return {c0, -c1}; }

  CUZK_TOWER_FN fp12_t inv() const {
    fp6 t = (c0.sqr() - c1.sqr().mul_by_v()).inv();
    return {c0 * t, -(c1 * t)};
  }

  // this·(d0 + (d3 + d4·v)·w): a D-type twist line, 13M̃ (arkworks mul_by_034)
  CUZK_TOWER_FN fp12_t mul_by_034(const fq2_t& d0, const fq2_t& d3, const fq2_t& d4) const {
    fp6 a = c0 * d0, b = c1.mul_by_01(d3, d4);
    fp6 e = (c0 + c1).mul_by_01(d0 + d3, d4);
    return {b.mul_by_v() + a, e - a - b};
  }

  // this·((d0 + d1·v) + d4·v·w): an M-type twist line, 13M̃ (arkworks mul_by_014)
  CUZK_TOWER_FN fp12_t mul_by_014(const fq2_t& d0, const fq2_t& d1, const fq2_t& d4) const {
    fp6 a = c0.mul_by_01(d0, d1), b = c1.mul_by_1(d4);
    fp6 e = (c0 + c1).mul_by_01(d0, d1 + d4);
    return {b.mul_by_v() + a, e - a - b};
  }

  // this^(q^k), k = 1, 2, 3: coefficient of w^j maps to conj^k(a_j)·γ_{k,j}
  CUZK_TOWER_FN fp12_t frobenius(int k) const {
    const auto& g = frobenius_coeffs<PT>::get().g[k - 1];
    auto f = [k](const fq2_t& a) { return (k & 1) ? a.conj() : a; };
    fp12_t r;
    r.c0 = {f(c0.c0), mul2(f(c0.c1), g[2]), mul2(f(c0.c2), g[4])};
    r.c1 = {mul2(f(c1.c0), g[1]), mul2(f(c1.c1), g[3]), mul2(f(c1.c2), g[5])};
    return r;
  }

  // Granger–Scott squaring for elements of the cyclotomic subgroup (eprint 2009/565 §3.2): 9S̃
  CUZK_TOWER_FN fp12_t cyclotomic_sqr() const {
    auto fp4_sqr = [](const fq2_t& a, const fq2_t& b, fq2_t& lo, fq2_t& hi) {
      fq2_t a2 = sqr2(a), b2 = sqr2(b);
      lo = a2 + fp6::mul_by_xi(b2);
      hi = sqr2(a + b) - a2 - b2;
    };
    fq2_t t0, t1, t2, t3, t4, t5;
    fp4_sqr(c0.c0, c1.c1, t0, t1);
    fp4_sqr(c1.c0, c0.c2, t2, t3);
    fp4_sqr(c0.c1, c1.c2, t4, t5);
    auto three_minus_two = [](const fq2_t& t, const fq2_t& z) { return (t - z).dbl() + t; };
    auto three_plus_two = [](const fq2_t& t, const fq2_t& z) { return (t + z).dbl() + t; };
    fp12_t r;
    r.c0.c0 = three_minus_two(t0, c0.c0);
    r.c1.c1 = three_plus_two(t1, c1.c1);
    r.c1.c0 = three_plus_two(fp6::mul_by_xi(t5), c1.c0);
    r.c0.c2 = three_minus_two(t4, c0.c2);
    r.c0.c1 = three_minus_two(t2, c0.c1);
    r.c1.c2 = three_plus_two(t3, c1.c2);
    return r;
  }

  // this^e on the cyclotomic subgroup, square-and-multiply over a 64-bit exponent
  fp12_t cyclotomic_exp(uint64_t e) const {
    fp12_t r = one();
    bool started = false;
    for (int b = 63; b >= 0; b--) {
      if (started) r = r.cyclotomic_sqr();
      if ((e >> b) & 1) { r = started ? r * *this : *this; started = true; }
    }
    return r;
  }

  void store_std(uint8_t* out) const {
    const fq2_t* c[6] = {&c0.c0, &c0.c1, &c0.c2, &c1.c0, &c1.c1, &c1.c2};
    for (int i = 0; i < 6; i++) c[i]->store_std(out + i * 2 * fq_t::nbytes);
  }
};

}  // namespace cuzk
