// Field inversion by Bernstein-Yang divsteps ("Fast constant-time gcd computation and modular
// inversion", 2019), in the variable-time form: for public values only (the MSM's batch
// inversions), 3-4x faster than the Fermat power a^(p-2) that mont_t::inv computes (~380 products
// whose latency chains). 4-limb fields below 2^254 (BN254), results identical to mont_t::inv.
//
// The gcd runs on (f, g) = (p, x) in signed 62-bit limbs; each batch takes 62 divsteps on the low
// 62 bits of f and g alone (what they decide depends on no higher bit), giving a 2x2 matrix M with
// [f, g] <- M·[f, g]/2^62, and the same matrix carries (d, e) with f = d·x and g = e·x mod p. When g
// reaches 0, f = ±1 and x^-1 = ±d. Montgomery form: x = a·R, so x^-1·R^2 = a^-1·R is one product
// with R^3 mod p.
#pragma once
#include <cstdint>

#include "fp2.hpp"
#include "mont.hpp"

namespace cuzk {
namespace divsteps {

constexpr int64_t M62 = int64_t(UINT64_MAX >> 2);
using i128 = __int128;

struct s62 {
  int64_t v[5];  // sum v[i]·2^(62 i); v[0..3] in [0, 2^62), v[4] signed
};
struct matrix {
  int64_t u, v, q, r;  // rows: f's and g's coefficients, scaled by 2^62
};

inline s62 to_s62(const uint64_t* a) {
  return {{int64_t(a[0] & M62), int64_t((a[0] >> 62 | a[1] << 2) & M62), int64_t((a[1] >> 60 | a[2] << 4) & M62),
           int64_t((a[2] >> 58 | a[3] << 6) & M62), int64_t(a[3] >> 56)}};
}
inline void from_s62(const s62& s, uint64_t* a) {  // s in [0, 2^256)
  a[0] = uint64_t(s.v[0]) | uint64_t(s.v[1]) << 62;
  a[1] = uint64_t(s.v[1]) >> 2 | uint64_t(s.v[2]) << 60;
  a[2] = uint64_t(s.v[2]) >> 4 | uint64_t(s.v[3]) << 58;
  a[3] = uint64_t(s.v[3]) >> 6 | uint64_t(s.v[4]) << 56;
}

// 62 divsteps on the low bits of f (odd) and g. delta > 0 and g odd: (f, g) <- (g, (g - f)/2),
// delta <- 1 - delta; else g odd: g <- (g + f)/2; g even: g <- g/2; delta += 1 in both. With
// f_j = (u·f + v·g)/2^j and g_j = (q·f + r·g)/2^j, halving g doubles f's row instead.
inline matrix batch(int64_t& delta, uint64_t f, uint64_t g) {
  uint64_t u = 1, v = 0, q = 0, r = 1;  // two's complement entries, |.| <= 2^62 at the end
  int left = 62;
  while (left > 0) {
    if (!(g & 1)) {  // a run of halvings at once
      int z = g ? __builtin_ctzll(g) : left;
      if (z > left) z = left;
      g >>= z, u <<= z, v <<= z, delta += z, left -= z;
      continue;
    }
    if (delta > 0) {
      uint64_t t = f;
      f = g, g = (g - t) >> 1;
      uint64_t nu = q << 1, nv = r << 1;
      q -= u, r -= v, u = nu, v = nv;
      delta = 1 - delta;
    } else {
      g = (g + f) >> 1;
      q += u, r += v, u <<= 1, v <<= 1;
      delta += 1;
    }
    left--;
  }
  return {int64_t(u), int64_t(v), int64_t(q), int64_t(r)};
}

// [f, g] <- M·[f, g]/2^62 (exact).
inline void apply_fg(const matrix& m, s62& f, s62& g) {
  i128 cf = (i128)m.u * f.v[0] + (i128)m.v * g.v[0], cg = (i128)m.q * f.v[0] + (i128)m.r * g.v[0];
  cf >>= 62, cg >>= 62;
  for (int i = 1; i < 5; i++) {
    cf += (i128)m.u * f.v[i] + (i128)m.v * g.v[i];
    cg += (i128)m.q * f.v[i] + (i128)m.r * g.v[i];
    f.v[i - 1] = int64_t(cf) & M62, g.v[i - 1] = int64_t(cg) & M62;
    cf >>= 62, cg >>= 62;
  }
  f.v[4] = int64_t(cf), g.v[4] = int64_t(cg);
}

// [d, e] <- (M·[d, e] + [md, me]·p)/2^62 with md, me making both sums divisible by 2^62 (mod p
// the division by 2^62 of M·[d, e]); |d|, |e| grow by at most p per batch (|u| + |v| <= 2^62).
inline void apply_de(const matrix& m, s62& d, s62& e, const s62& p, uint64_t pinv62) {
  uint64_t md = (0 - (uint64_t(m.u) * uint64_t(d.v[0]) + uint64_t(m.v) * uint64_t(e.v[0])) * pinv62) & uint64_t(M62);
  uint64_t me = (0 - (uint64_t(m.q) * uint64_t(d.v[0]) + uint64_t(m.r) * uint64_t(e.v[0])) * pinv62) & uint64_t(M62);
  i128 cd = (i128)m.u * d.v[0] + (i128)m.v * e.v[0] + (i128)md * p.v[0];
  i128 ce = (i128)m.q * d.v[0] + (i128)m.r * e.v[0] + (i128)me * p.v[0];
  cd >>= 62, ce >>= 62;
  for (int i = 1; i < 5; i++) {
    cd += (i128)m.u * d.v[i] + (i128)m.v * e.v[i] + (i128)md * p.v[i];
    ce += (i128)m.q * d.v[i] + (i128)m.r * e.v[i] + (i128)me * p.v[i];
    d.v[i - 1] = int64_t(cd) & M62, e.v[i - 1] = int64_t(ce) & M62;
    cd >>= 62, ce >>= 62;
  }
  d.v[4] = int64_t(cd), e.v[4] = int64_t(ce);
}

inline bool is_zero(const s62& a) { return (a.v[0] | a.v[1] | a.v[2] | a.v[3] | a.v[4]) == 0; }
inline bool negative(const s62& a) { return a.v[4] < 0; }
// a += k·p (k = ±1), limbs renormalised
inline void add_p(s62& a, const s62& p, int64_t k) {
  int64_t c = 0;
  for (int i = 0; i < 4; i++) {
    c += a.v[i] + k * p.v[i];
    a.v[i] = c & M62;
    c >>= 62;
  }
  a.v[4] += c + k * p.v[4];
}
inline bool less(const s62& a, const s62& b) {  // both normalised, a >= 0
  for (int i = 4; i >= 0; i--)
    if (a.v[i] != b.v[i]) return a.v[i] < b.v[i];
  return false;
}

}  // namespace divsteps

// a^-1 for a 4-limb Montgomery element below 2^254 (inv(0) = 0), variable time.
template <class P>
inline mont_t<P> inv_divsteps(const mont_t<P>& a) {
  static_assert(P::n == 4 && P::p[3] >> 62 == 0, "4 limbs, p < 2^254");
  using namespace divsteps;
  if (a.is_zero()) return a;
  static const s62 p = to_s62(P::p);
  static const uint64_t pinv62 = [] {  // p^-1 mod 2^64 by Newton's iteration, then its low 62 bits
    uint64_t x = P::p[0];
    for (int i = 0; i < 5; i++) x *= 2 - P::p[0] * x;
    return x;
  }();
  static const mont_t<P> r3 = mont_t<P>::from_raw(P::r2) * mont_t<P>::from_raw(P::r2);  // R^3 mod p (raw)
  s62 f = p, g = to_s62(a.l), d = {{0, 0, 0, 0, 0}}, e = {{1, 0, 0, 0, 0}};
  int64_t delta = 1;
  while (!is_zero(g)) {
    matrix m = batch(delta, uint64_t(f.v[0]), uint64_t(g.v[0]));
    apply_fg(m, f, g);
    apply_de(m, d, e, p, pinv62);
  }
  if (negative(f)) {  // f = -1: x^-1 = -d
    for (int i = 0; i < 5; i++) d.v[i] = -d.v[i];
    add_p(d, p, 0);  // renormalise the negated limbs
  }
  while (negative(d)) add_p(d, p, 1);
  while (!less(d, p)) add_p(d, p, -1);
  mont_t<P> y;
  from_s62(d, y.l);
  return y * r3;
}

// The inverse for public values: divsteps where they apply (4 limbs below 2^254: BN254), the
// Fermat power of mont_t::inv elsewhere; Fq2 through its norm, 1/(a + bu) = (a - bu)/(a^2 + b^2).
template <class F>
inline F inv_public(const F& a) {
  return a.inv();
}
template <class P>
inline mont_t<P> inv_public(const mont_t<P>& a) {
  if constexpr (P::n == 4 && P::p[3] >> 62 == 0) return inv_divsteps(a);
  else return a.inv();
}
template <class P>
inline fp2_t<mont_t<P>> inv_public(const fp2_t<mont_t<P>>& a) {
  mont_t<P> t = inv_public(a.c0.sqr() + a.c1.sqr());
  return {a.c0 * t, -(a.c1 * t)};
}

}  // namespace cuzk
