// GLV endomorphism for the CPU MSM (Gallant-Lambert-Vanstone 2001): on BN254 G1, φ(x, y) = (β·x, y)
// with β a cube root of unity in Fq equals λ·P for a cube root of unity λ in Fr, so k·P =
// k1·P + k2·φ(P) with |k1|, |k2| < 2^127: twice the points at half the scalar length, which halves
// the MSM's windows and so its bucket reductions. Only for groups where every point of the curve has
// order r (BN254 G1, cofactor 1): elsewhere an off-subgroup point would give a different sum.
// Constants computed from the moduli (β, λ picked so that φ(G) = λ·G; the lattice basis
// (a1, b1), (a2, b2) of {(x, y): x + y·λ = 0 mod r} by the extended Euclid of GLV §4).
#pragma once
#include <cstdint>

#include "../curve/bn254.hpp"

namespace cuzk {

template <class G>
struct glv_t {
  static constexpr bool enabled = false;
};

namespace glv_detail {

// out[0..na+nb) = a·b.
inline void mul(const uint64_t* a, int na, const uint64_t* b, int nb, uint64_t* out) {
  for (int i = 0; i < na + nb; i++) out[i] = 0;
  for (int i = 0; i < na; i++) {
    unsigned __int128 carry = 0;
    for (int j = 0; j < nb; j++) {
      carry += (unsigned __int128)a[i] * b[j] + out[i + j];
      out[i + j] = (uint64_t)carry;
      carry >>= 64;
    }
    out[i + nb] = (uint64_t)carry;
  }
}

// a = a - b (mod 2^256), b of |nb| limbs.
inline void sub4(uint64_t* a, const uint64_t* b, int nb) {
  unsigned char borrow = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t bi = i < nb ? b[i] : 0;
    unsigned __int128 d = (unsigned __int128)a[i] - bi - borrow;
    a[i] = (uint64_t)d;
    borrow = (unsigned char)((d >> 64) & 1);
  }
}

inline bool geq4(const uint64_t* a, const uint64_t* b) {
  for (int i = 4; i-- > 0;)
    if (a[i] != b[i]) return a[i] > b[i];
  return true;
}

}  // namespace glv_detail

template <>
struct glv_t<bn254_g1_params> {
  static constexpr bool enabled = true;
  static constexpr unsigned nbits = 127;  // |k1|, |k2| < 1.25·(|a1| + |a2|) < 2^127 (see split)

  // β·x for φ(P) = (β·x, y).
  static bn254_fq_t beta() {
    static const uint64_t b[4] = {0xe4bd44e5607cfd48, 0xc28f069fbb966e3d, 0x5e6dd9e7e0acccb0, 0x30644e72e131a029};
    static const bn254_fq_t v = bn254_fq_t::from_std(b);
    return v;
  }

  // k (any 256-bit value) = k1 + k2·λ mod r with 0 <= k1 < 2^127 and |k2| < 2^127, k2 = neg2 ? -|k2| : |k2|.
  // c_i = floor(k·g_i / 2^256) with g_1 = floor(2^256·b2/r), g_2 = floor(2^256·(-b1)/r) undershoots
  // the exact b2·k/r, -b1·k/r by e_i in [0, 1.25) (k < r < 2^254), so k1 = e1·a1 + e2·a2 >= 0 and
  // k2 = e1·b1 + e2·b2 are both under 1.25·2^126.2 in size.
  static void split(const uint64_t* kin, uint64_t* k1, uint64_t* k2, bool& neg2) {
    using namespace glv_detail;
    static const uint64_t r[4] = {0x43e1f593f0000001, 0x2833e84879b97091, 0xb85045b68181585d, 0x30644e72e131a029};
    static const uint64_t a1[2] = {0x8211bbeb7d4f1128, 0x6f4d8248eeb859fc};
    static const uint64_t b1_abs[1] = {0x89d3256894d213e3};  // b1 < 0
    static const uint64_t a2[1] = {0x89d3256894d213e3};
    static const uint64_t b2[2] = {0x0be4e1541221250b, 0x6f4d8248eeb859fd};
    static const uint64_t g1[3] = {0x5398fd0300ff6565, 0x4ccef014a773d2d2, 0x2};
    static const uint64_t g2[2] = {0xd91d232ec7e0b3d7, 0x2};
    uint64_t k[4] = {kin[0], kin[1], kin[2], kin[3]};
    while (geq4(k, r)) sub4(k, r, 4);
    uint64_t t[8], c1[2], c2[2];
    mul(k, 4, g1, 3, t);
    c1[0] = t[4], c1[1] = t[5];  // c1 < 2^128
    mul(k, 4, g2, 2, t);
    c2[0] = t[4], c2[1] = t[5];  // c2 < 2^65
    // k1 = k - c1·a1 - c2·a2
    for (int i = 0; i < 4; i++) k1[i] = k[i];
    mul(c1, 2, a1, 2, t);
    sub4(k1, t, 4);
    mul(c2, 2, a2, 1, t);
    sub4(k1, t, 3);
    // k2 = -c1·b1 - c2·b2 = c1·|b1| - c2·b2
    mul(c1, 2, b1_abs, 1, t);
    for (int i = 0; i < 4; i++) k2[i] = i < 3 ? t[i] : 0;
    mul(c2, 2, b2, 2, t);
    sub4(k2, t, 4);
    neg2 = k2[3] >> 63;
    if (neg2) {
      uint64_t z[4] = {0, 0, 0, 0};
      sub4(z, k2, 4);
      for (int i = 0; i < 4; i++) k2[i] = z[i];
    }
  }
};

}  // namespace cuzk
