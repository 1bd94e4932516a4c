// Final exponentiation f^((q^12 − 1)/r) and the multi-pairing prod e(P_i, Q_i). The hard parts are
// the x-chains snarkjs (wasmcurves) and @noble/curves use, so cuzk_pairing bytes equal theirs (and
// snarkjs's vk_alphabeta_12): BN, Fuentes-Castañeda–Knapp–Rodríguez-Henríquez 2011 (computes a
// fixed power m·h, gcd(m, r) = 1, still a non-degenerate bilinear pairing); BLS12, Hayashida–
// Hayasaka–Teruya (eprint 2020/875) as in zkcrypto/bls12_381.
#pragma once
#include "miller.hpp"

namespace cuzk {

template <class PT>
struct final_exp {
  using fp12 = fp12_t<PT>;

  static fp12 pow_x(const fp12& a) {  // a^x, a cyclotomic
    fp12 r = a.cyclotomic_exp(PT::x_abs);
    return PT::x_negative ? r.conj() : r;
  }
  static fp12 pow_neg_x(const fp12& a) { return pow_x(a).conj(); }

  // f^((q^6 − 1)(q^2 + 1)): lands in the cyclotomic subgroup, where conj = inverse
  static fp12 easy(const fp12& f) {
    fp12 t = f.conj() * f.inv();
    return t.frobenius(2) * t;
  }

  // wasmcurves bn128 __finalExponentiationLastChunk (from libff alt_bn128), z = x
  static fp12 hard_bn(const fp12& elt) {
    fp12 a = pow_neg_x(elt);                      // elt^(−z)
    fp12 b = a.cyclotomic_sqr();                  // elt^(−2z)
    fp12 dd = b.cyclotomic_sqr() * b;             // elt^(−6z)
    fp12 e = pow_neg_x(dd);                       // elt^(6z^2)
    fp12 g = pow_neg_x(e.cyclotomic_sqr());       // elt^(−12z^3)
    fp12 k = g.conj() * e * dd.conj();            // elt^(12z^3 + 6z^2 + 6z)
    fp12 l = k * b;                               // elt^(12z^3 + 6z^2 + 4z)
    fp12 nn = k * e * elt;                        // elt^(12z^3 + 12z^2 + 6z + 1)
    fp12 r = k.frobenius(2) * l.frobenius(1) * nn;
    return (elt.conj() * l).frobenius(3) * r;     // · elt^(q^3(12z^3 + 6z^2 + 4z − 1))
  }

  // zkcrypto bls12_381 final_exponentiation after its easy part; pow_x is the signed x
  static fp12 hard_bls12(const fp12& t2) {
    fp12 t1 = t2.cyclotomic_sqr().conj();
    fp12 t3 = pow_x(t2);
    fp12 t4 = t3.cyclotomic_sqr();
    fp12 t5 = t1 * t3;
    t1 = pow_x(t5);
    fp12 t0 = pow_x(t1);
    fp12 t6 = pow_x(t0) * t4;
    t4 = pow_x(t6) * t5.conj() * t2;
    t1 = (t1 * t2).frobenius(3);
    t6 = (t6 * t2.conj()).frobenius(1);
    t3 = (t3 * t0).frobenius(2) * t1 * t6;
    return t3 * t4;
  }

  static fp12 run(const fp12& f) {
    fp12 t = easy(f);
    return PT::family == family_kind::bn ? hard_bn(t) : hard_bls12(t);
  }
};

// prod e(p[i], q[i]); points must be on their curves (not checked here); infinity pairs give 1.
template <class PT>
fp12_t<PT> multi_pairing(const typename PT::curve_t::g1_affine_t* p,
                         const typename PT::curve_t::g2_affine_t* q, size_t n) {
  return final_exp<PT>::run(miller_loop<PT>(p, q, n));
}

}  // namespace cuzk
