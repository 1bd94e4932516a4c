// fe8_t<P>: eight elements of a 4-limb prime field (BN254 Fq) at once, for AVX-512 IFMA
// (vpmadd52luq/huq: eight 52x52-bit multiplies per instruction, low or high 52 bits of each product).
// Structure of arrays in radix 2^52: l[j] holds limb j (bits 52j..52j+51) of all eight elements.
//
// Montgomery R: the scalar path (mont.hpp) keeps a·2^256 mod p. Five 52-bit limbs would make the
// natural R 2^260, and every conversion a multiplication by 2^±4. Instead the reduction runs four
// 52-bit steps and a last one of 48 bits (m mod 2^48): the product is divided by exactly 2^256, the
// elements are the scalar path's integers, and conversion is only re-slicing the bits. Results are
// then bit-identical to the scalar path (both give the unique representative below p on output).
//
// Values are kept below 2p between operations (every limb < 2^52), reduced below p on the way out:
// with a, b < 2p and 4p < 2^256, (a·b + m·p)/2^256 < 2p, so mul needs no final subtraction.
//
// Host x86-64 only; compiled per function for IFMA (the library itself targets generic x86-64) and
// used only when ifma::enabled (cpuid at load time; CUZK_NO_IFMA=1 forces the scalar path).
#pragma once
#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
#define CUZK_IFMA 1
#include <cpuid.h>
#include <immintrin.h>

#include <cstdint>
#include <cstdlib>

#define CUZK_IFMA_TARGET __attribute__((target("avx512f,avx512ifma,avx512vl,avx512dq,avx512bw")))
#define CUZK_IFMA_INLINE inline __attribute__((always_inline)) CUZK_IFMA_TARGET

namespace cuzk {
namespace ifma {

// AVX-512 F/DQ/BW/VL/IFMA: CPUID leaf 7 EBX bits 16, 17, 30, 31, 21; and the OS saves the zmm state
// (OSXSAVE, then XCR0 bits 1-2 SSE/AVX and 5-7 opmask/zmm).
inline bool cpu_has_ifma() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c >> 27 & 1)) return false;
  unsigned lo, hi;
  asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  if ((lo & 0xe6) != 0xe6) return false;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  const unsigned need = 1u << 16 | 1u << 17 | 1u << 21 | 1u << 30 | 1u << 31;
  return (b & need) == need;
}
inline bool decide() {
  const char* v = std::getenv("CUZK_NO_IFMA");
  if (v && *v && *v != '0') return false;
  return cpu_has_ifma();
}
inline const bool enabled = decide();

constexpr uint64_t mask52 = (uint64_t(1) << 52) - 1;

// Bits [52j, 52j + 52) of an |n|-limb integer.
constexpr uint64_t limb52(const uint64_t* v, unsigned j, unsigned n = 4) {
  unsigned o = 52 * j, w = o / 64, s = o % 64;
  if (w >= n) return 0;
  uint64_t r = v[w] >> s;
  if (s > 12 && w + 1 < n) r |= v[w + 1] << (64 - s);
  return r & mask52;
}

// 4·p^2 as 8 limbs (schoolbook, then a 2-bit shift).
struct wide_t {
  uint64_t v[8];
};
constexpr wide_t four_p_squared(const uint64_t* p) {
  wide_t t{};
  for (int i = 0; i < 4; i++) {
    unsigned __int128 c = 0;
    for (int j = 0; j < 4; j++) {
      c += (unsigned __int128)p[i] * p[j] + t.v[i + j];
      t.v[i + j] = (uint64_t)c;
      c >>= 64;
    }
    t.v[i + 4] = (uint64_t)c;
  }
  for (int i = 7; i > 0; i--) t.v[i] = t.v[i] << 2 | t.v[i - 1] >> 62;
  t.v[0] <<= 2;
  return t;
}

template <class P>
struct consts {
  static_assert(P::n == 4, "fe8_t is for 4-limb fields");
  static constexpr uint64_t two_p[4] = {P::p[0] << 1, P::p[1] << 1 | P::p[0] >> 63, P::p[2] << 1 | P::p[1] >> 63,
                                        P::p[3] << 1 | P::p[2] >> 63};
  static constexpr uint64_t p[5] = {limb52(P::p, 0), limb52(P::p, 1), limb52(P::p, 2), limb52(P::p, 3), limb52(P::p, 4)};
  static constexpr uint64_t p2[5] = {limb52(two_p, 0), limb52(two_p, 1), limb52(two_p, 2), limb52(two_p, 3),
                                     limb52(two_p, 4)};
  static constexpr uint64_t m0 = P::m0 & mask52;  // -p^-1 mod 2^52 (and, masked, mod 2^48)
  static_assert(P::p[3] >> 62 == 0, "4p < 2^256 keeps products below 2p");
  static constexpr wide_t pp4 = four_p_squared(P::p);  // p^2 < 2^508: 4p^2 fits 8 limbs
  static constexpr uint64_t p2x4[10] = {limb52(pp4.v, 0, 8), limb52(pp4.v, 1, 8), limb52(pp4.v, 2, 8), limb52(pp4.v, 3, 8),
                                        limb52(pp4.v, 4, 8), limb52(pp4.v, 5, 8), limb52(pp4.v, 6, 8), limb52(pp4.v, 7, 8),
                                        limb52(pp4.v, 8, 8), limb52(pp4.v, 9, 8)};
};

template <class P>
struct fe8_t {
  __m512i l[5];
};

#define CUZK_V(x) _mm512_set1_epi64((long long)(x))

// Carries each limb's bits above 52 into the next (arithmetic shift: limbs may be negative); the
// top limb keeps its sign, which says whether the value is negative.
CUZK_IFMA_INLINE void carry_chain(__m512i* v) {
  const __m512i M = CUZK_V(mask52);
  for (int j = 0; j < 4; j++) {
    v[j + 1] = _mm512_add_epi64(v[j + 1], _mm512_srai_epi64(v[j], 52));
    v[j] = _mm512_and_si512(v[j], M);
  }
}

// u - q (limbs of q: the constant c), or u itself where that is negative: u < 2q in, < q out.
// Both chains are independent (u's own and u - q's), so they overlap.
CUZK_IFMA_INLINE void select_sub(__m512i* u, const uint64_t* c) {
  __m512i v[5];
  for (int j = 0; j < 5; j++) v[j] = _mm512_sub_epi64(u[j], CUZK_V(c[j]));
  carry_chain(u);
  carry_chain(v);
  __mmask8 neg = _mm512_movepi64_mask(v[4]);
  for (int j = 0; j < 5; j++) u[j] = _mm512_mask_blend_epi64(neg, v[j], u[j]);
}

// a + b, a - b: inputs and output < 2p.
template <class P>
CUZK_IFMA_INLINE fe8_t<P> add(const fe8_t<P>& a, const fe8_t<P>& b) {
  fe8_t<P> r;
  for (int j = 0; j < 5; j++) r.l[j] = _mm512_add_epi64(a.l[j], b.l[j]);
  select_sub(r.l, consts<P>::p2);
  return r;
}
template <class P>
CUZK_IFMA_INLINE fe8_t<P> sub(const fe8_t<P>& a, const fe8_t<P>& b) {
  fe8_t<P> r;
  for (int j = 0; j < 5; j++) r.l[j] = _mm512_add_epi64(_mm512_sub_epi64(a.l[j], b.l[j]), CUZK_V(consts<P>::p2[j]));
  select_sub(r.l, consts<P>::p2);
  return r;
}

// The whole product a·b in ten unnormalised 64-bit columns (column s: bits 52s..; each gathers
// at most 10 terms below 2^52), for limbs below 2^52.
template <class P>
CUZK_IFMA_INLINE void mul_wide(const fe8_t<P>& a, const fe8_t<P>& b, __m512i* z) {
  for (int s = 0; s < 10; s++) z[s] = _mm512_setzero_si512();
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++) {
      z[i + j] = _mm512_madd52lo_epu64(z[i + j], a.l[j], b.l[i]);
      z[i + j + 1] = _mm512_madd52hi_epu64(z[i + j + 1], a.l[j], b.l[i]);
    }
}

// z·2^-256 mod p, below z/2^256 + p, for columns |z_s| < 2^60 of a value 0 <= z < 2^256·p·k (k small):
// Montgomery reduction one 52-bit digit at a time (m = z_i·(-p^-1) mod 2^52 clears column i; its
// carry moves up, arithmetically: a difference of products may have negative columns), the last
// digit 48 bits, and the quotient z/2^256 re-sliced to 52-bit limbs.
template <class P>
CUZK_IFMA_INLINE fe8_t<P> redc(__m512i* z) {
  using K = consts<P>;
  for (int i = 0; i < 5; i++) {
    __m512i m = _mm512_madd52lo_epu64(_mm512_setzero_si512(), z[i], CUZK_V(K::m0));
    if (i == 4) m = _mm512_and_si512(m, CUZK_V((uint64_t(1) << 48) - 1));
    for (int j = 0; j < 5; j++) {
      z[i + j] = _mm512_madd52lo_epu64(z[i + j], m, CUZK_V(K::p[j]));
      z[i + j + 1] = _mm512_madd52hi_epu64(z[i + j + 1], m, CUZK_V(K::p[j]));
    }
    if (i < 4) z[i + 1] = _mm512_add_epi64(z[i + 1], _mm512_srai_epi64(z[i], 52));
  }
  // z = z_4·2^208 + ... with z_4 = 0 mod 2^48: z/2^256 = (z_4 >> 48) + sum_{j>=5} z_j·2^4·2^(52(j-5))
  fe8_t<P> r;
  r.l[0] = _mm512_add_epi64(_mm512_srai_epi64(z[4], 48), _mm512_slli_epi64(z[5], 4));
  for (int j = 1; j < 5; j++) r.l[j] = _mm512_slli_epi64(z[j + 5], 4);
  carry_chain(r.l);
  return r;
}

// a·b·2^-256 mod p (< 2p) for a, b < 2p: with 4p < 2^256, (a·b + m·p)/2^256 < 2p.
template <class P>
CUZK_IFMA_INLINE fe8_t<P> mul(const fe8_t<P>& a, const fe8_t<P>& b) {
  __m512i z[10];
  mul_wide(a, b, z);
  return redc<P>(z);
}

// a + b unreduced (< 4p for a, b < 2p), limbs normalised: an operand for mul_wide, not for mul.
template <class P>
CUZK_IFMA_INLINE fe8_t<P> add_wide(const fe8_t<P>& a, const fe8_t<P>& b) {
  fe8_t<P> r;
  for (int j = 0; j < 5; j++) r.l[j] = _mm512_add_epi64(a.l[j], b.l[j]);
  carry_chain(r.l);
  return r;
}

// (a0 + a1·u)(b0 + b1·u) with u^2 = -1, inputs and outputs < 2p: Karatsuba's three products kept
// wide, two reductions instead of three (as mont_x86.hpp's fp2_mul4). c0 = a0·b0 - a1·b1 + 4p^2
// and c1 = (a0 + a1)(b0 + b1) - a0·b0 - a1·b1 = a0·b1 + a1·b0 are both in [0, 8p^2), so each
// reduces below 8p^2/2^256 + p < 2.6p, and one subtraction of 2p brings it below 2p.
template <class P>
CUZK_IFMA_INLINE void fp2_mul(const fe8_t<P>& a0, const fe8_t<P>& a1, const fe8_t<P>& b0, const fe8_t<P>& b1,
                              fe8_t<P>& r0, fe8_t<P>& r1) {
  static_assert(P::p[3] < 0x6000000000000000ull, "p < 3·2^253, so 8p^2/2^256 + p < 4p");
  __m512i z0[10], z1[10], z2[10];
  mul_wide(a0, b0, z0);
  mul_wide(a1, b1, z1);
  mul_wide(add_wide(a0, a1), add_wide(b0, b1), z2);
  for (int s = 0; s < 10; s++) {
    z2[s] = _mm512_sub_epi64(z2[s], _mm512_add_epi64(z0[s], z1[s]));
    z0[s] = _mm512_add_epi64(_mm512_sub_epi64(z0[s], z1[s]), CUZK_V(consts<P>::p2x4[s]));
  }
  r0 = redc<P>(z0);
  r1 = redc<P>(z2);
  select_sub(r0.l, consts<P>::p2);
  select_sub(r1.l, consts<P>::p2);
}

// From four 64-bit limb vectors (limb k of eight elements in x[k]) to radix 2^52, and back with a
// full reduction (< 2p in, < p out: the scalar path's representative).
template <class P>
CUZK_IFMA_INLINE fe8_t<P> from_u64x4(const __m512i* x) {
  const __m512i M = CUZK_V(mask52);
  fe8_t<P> r;
  r.l[0] = _mm512_and_si512(x[0], M);
  r.l[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(x[0], 52), _mm512_slli_epi64(x[1], 12)), M);
  r.l[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(x[1], 40), _mm512_slli_epi64(x[2], 24)), M);
  r.l[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(x[2], 28), _mm512_slli_epi64(x[3], 36)), M);
  r.l[4] = _mm512_srli_epi64(x[3], 16);
  return r;
}
template <class P>
CUZK_IFMA_INLINE void to_u64x4(fe8_t<P> a, __m512i* x) {
  select_sub(a.l, consts<P>::p);
  x[0] = _mm512_or_si512(a.l[0], _mm512_slli_epi64(a.l[1], 52));
  x[1] = _mm512_or_si512(_mm512_srli_epi64(a.l[1], 12), _mm512_slli_epi64(a.l[2], 40));
  x[2] = _mm512_or_si512(_mm512_srli_epi64(a.l[2], 24), _mm512_slli_epi64(a.l[3], 28));
  x[3] = _mm512_or_si512(_mm512_srli_epi64(a.l[3], 36), _mm512_slli_epi64(a.l[4], 16));
}

// 8x8 transpose of 64-bit words: row i of r becomes column i. Used to turn eight 64-byte affine
// points (x limbs then y limbs) into the eight limb vectors of their coordinates, and back.
CUZK_IFMA_INLINE void transpose8(__m512i* r) {
  __m512i t[8], s[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm512_unpacklo_epi64(r[i], r[i + 1]);      // r_i[0] r_{i+1}[0] r_i[2] r_{i+1}[2] ...
    t[i + 1] = _mm512_unpackhi_epi64(r[i], r[i + 1]);  // words 1, 3, 5, 7
  }
  for (int h = 0; h < 2; h++)      // h: even or odd words
    for (int g = 0; g < 2; g++) {  // g: rows 0-3 or 4-7
      const __m512i& lo = t[4 * g + h], &hi = t[4 * g + 2 + h];
      s[4 * g + h] = _mm512_shuffle_i64x2(lo, hi, 0x88);      // 128-bit lanes 0, 2 of each: words 0,4 (or 1,5)
      s[4 * g + 2 + h] = _mm512_shuffle_i64x2(lo, hi, 0xdd);  // lanes 1, 3: words 2,6 (or 3,7)
    }
  // s[4g + 2q + h] holds words {2q+h, 2q+h+4} of rows 4g..4g+3; pair the two row groups
  for (int w = 0; w < 4; w++) {
    r[w] = _mm512_shuffle_i64x2(s[w], s[4 + w], 0x88);
    r[w + 4] = _mm512_shuffle_i64x2(s[w], s[4 + w], 0xdd);
  }
}

#undef CUZK_V

}  // namespace ifma
}  // namespace cuzk
#endif
