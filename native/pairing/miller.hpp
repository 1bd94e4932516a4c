// Optimal ate Miller loop (Vercauteren 2010) for BN (loop 6x+2 plus two Frobenius lines) and
// BLS12 (loop |x|) curves, over any number of pairs sharing one accumulator (one squaring per
// step for all pairs). G2 steps run in homogeneous projective coordinates with the line formulas
// of Costello–Lange–Naehrig 2010 as arranged in arkworks (ark-ec models/bls12, models/bn), so lines
// are scaled by Fq2/Fq factors that the final exponentiation removes.
#pragma once
#include <vector>

#include "fp12.hpp"

namespace cuzk {

template <class PT>
struct g2_proj_t {  // (X : Y : Z), x = X/Z, y = Y/Z, on the twist
  using fq2_t = typename PT::fq2_t;
  using fq_t = typename PT::fq_t;
  using affine = typename PT::curve_t::g2_affine_t;
  struct line_t { fq2_t l0, l1, l2; };  // arkworks ell-coefficients, before evaluation at P
  fq2_t X, Y, Z;

  static g2_proj_t from_affine(const affine& q) { return {q.x, q.y, fq2_t::one()}; }

  // T ← 2T and the tangent line: 4M̃+6S̃ (Costello–Lange–Naehrig 2010 §4, a = 0)
  CUZK_TOWER_FN line_t dbl() {
    static const fq_t two_inv = fq_t::from_u64(2).inv();
    fq2_t a = mul2(X, Y) * two_inv, b = sqr2(Y), c = sqr2(Z);
    fq2_t e = mul2(PT::curve_t::g2::b(), c.dbl() + c), f = e.dbl() + e;
    fq2_t g = (b + f) * two_inv, h = sqr2(Y + Z) - (b + c);
    fq2_t i = e - b, j = sqr2(X), e2 = sqr2(e);
    X = mul2(a, b - f);
    Y = sqr2(g) - (e2.dbl() + e2);
    Z = mul2(b, h);
    if (PT::twist == twist_kind::m_type) return {i, j.dbl() + j, -h};
    return {-h, j.dbl() + j, i};
  }

  // T ← T + Q (Q affine) and the chord line: 11M̃+2S̃
  CUZK_TOWER_FN line_t add(const affine& q) {
    fq2_t theta = Y - mul2(q.y, Z), lambda = X - mul2(q.x, Z);
    fq2_t c = sqr2(theta), d = sqr2(lambda), e = mul2(lambda, d);
    fq2_t f = mul2(Z, c), g = mul2(X, d), h = e + f - g.dbl();
    X = mul2(lambda, h);
    Y = mul2(theta, g - h) - mul2(e, Y);
    Z = mul2(Z, e);
    fq2_t j = mul2(theta, q.x) - mul2(lambda, q.y);
    if (PT::twist == twist_kind::m_type) return {j, -theta, lambda};
    return {lambda, -theta, j};
  }
};

// f ← f·ℓ(P): the line is sparse in Fq12, its position fixed by the twist type
template <class PT, class Line, class G1>
CUZK_TOWER_FN fp12_t<PT> mul_line(const fp12_t<PT>& f, const Line& l, const G1& p) {
  if (PT::twist == twist_kind::m_type) return f.mul_by_014(l.l0, l.l1 * p.x, l.l2 * p.y);
  return f.mul_by_034(l.l0 * p.y, l.l1 * p.x, l.l2);
}

// Signed binary digits (NAF), least significant first, of the Miller loop length.
template <class PT>
const std::vector<int8_t>& miller_digits() {
  static const std::vector<int8_t> d = [] {
    u128 v = PT::family == family_kind::bn ? (u128)6 * PT::x_abs + 2 : (u128)PT::x_abs;
    std::vector<int8_t> out;
    for (; v; v >>= 1) {
      int8_t di = (v & 1) ? (int8_t)(2 - (int)(v & 3)) : 0;
      out.push_back(di);
      if (di == 1) v -= 1;
      if (di == -1) v += 1;
    }
    return out;
  }();
  return d;
}

// π(Q) on the D-type twist: (conj(x)·ξ^((q−1)/3), conj(y)·ξ^((q−1)/2)), i.e. ψ⁻¹∘Frobenius∘ψ
template <class PT, class A>
inline A twist_frobenius(const A& q) {
  const auto& g = frobenius_coeffs<PT>::get().g[0];
  return {mul2(q.x.conj(), g[2]), mul2(q.y.conj(), g[3])};
}

// prod_i f_{loop, Q_i}(P_i) with the BN/BLS12 finishing steps; pairs with an infinity are skipped.
template <class PT>
fp12_t<PT> miller_loop(const typename PT::curve_t::g1_affine_t* p,
                       const typename PT::curve_t::g2_affine_t* q, size_t n) {
  using proj = g2_proj_t<PT>;
  std::vector<size_t> idx;
  for (size_t i = 0; i < n; i++)
    if (!p[i].is_inf() && !q[i].is_inf()) idx.push_back(i);
  std::vector<proj> t;
  for (size_t i : idx) t.push_back(proj::from_affine(q[i]));

  const auto& d = miller_digits<PT>();
  fp12_t<PT> f = fp12_t<PT>::one();
  for (size_t s = d.size() - 1; s-- > 0;) {
    if (s + 2 != d.size()) f = f.sqr();
    for (size_t k = 0; k < idx.size(); k++) f = mul_line<PT>(f, t[k].dbl(), p[idx[k]]);
    if (d[s] == 0) continue;
    for (size_t k = 0; k < idx.size(); k++) {
      const auto& qk = q[idx[k]];
      f = mul_line<PT>(f, t[k].add(d[s] > 0 ? qk : -qk), p[idx[k]]);
    }
  }
  if (PT::x_negative) f = f.conj();
  if (PT::family == family_kind::bn) {  // ℓ_{T,π(Q)} · ℓ_{T+π(Q),−π²(Q)}
    for (size_t k = 0; k < idx.size(); k++) {
      if (PT::x_negative) t[k].Y = -t[k].Y;
      auto q1 = twist_frobenius<PT>(q[idx[k]]);
      auto q2 = -twist_frobenius<PT>(q1);
      f = mul_line<PT>(f, t[k].add(q1), p[idx[k]]);
      f = mul_line<PT>(f, t[k].add(q2), p[idx[k]]);
    }
  }
  return f;
}

}  // namespace cuzk
