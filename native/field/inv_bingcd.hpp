// Modular inversion by Pornin's optimized binary GCD ("Optimized Binary GCD for Modular Inversion",
// ePrint 2020/972) over N 32-bit limbs, one source for the host and the device: the GPU MSM's batch
// inversions (msm/pippenger.cuh) run it, and the host compiles the same text so a test can check it
// against a BigInt reference without a GPU. Variable time: for public values only.
//
// (a, b) start at (x, m), (u, v) at (1, 0), keeping a = x·u and b = x·v (mod m). Each outer step takes
// K inner binary-GCD steps on 62-bit images of a and b (their low K bits and the top 32 bits of
// the longer one), which decide the same subtractions as the whole values would, collecting them as a
// 2x2 matrix of factors (|f| + |g| <= 2^K); it is then applied once to the whole a, b (exactly divisible
// by 2^K) and to u, v (divided by 2^K modulo m, Montgomery-style). When a reaches 0, b = gcd = 1 and
// v = x^-1. The paper bounds the inner steps by 2·len(m) - 1, so ceil((2·len(m) - 1)/K) outer steps.
#pragma once
#include <cstddef>
#include <cstdint>

#include "../util/unroll.hpp"

#ifdef __CUDACC__
#define CUZK_BG_FN __host__ __device__ __forceinline__
#else
#define CUZK_BG_FN inline
#endif

namespace cuzk {
namespace bingcd {

constexpr int K = 30;  // inner steps per outer step: factors fit int32, images 62 bits (2K + 2)

CUZK_BG_FN uint32_t clz32(uint32_t w) {
#ifdef __CUDA_ARCH__
  return __clz(w);
#else
  return w ? uint32_t(__builtin_clz(w)) : 32;
#endif
}

// Every thread of the warp (device) or this call (host) has |done|: the warp leaves the loop together.
CUZK_BG_FN bool all_done(bool done) {
#ifdef __CUDA_ARCH__
  return !__any_sync(__activemask(), !done);
#else
  return done;
#endif
}

// Bits of the modulus of host field parameters P (64-bit limbs P::p, P::n of them).
template <class P>
constexpr uint32_t modulus_bits() {
  uint32_t b = 0;
  for (size_t i = 0; i < P::n; i++)
    for (uint32_t k = 0; k < 64; k++)
      if (P::p[i] >> k & 1) b = uint32_t(64 * i + k + 1);
  return b;
}

// Outer steps for a modulus of |bits| bits.
constexpr int outer_steps(uint32_t bits) { return int((2 * bits - 1 + K - 1) / K); }

// a·f as a signed 64-bit value from one 32x32 -> 64 unsigned product (mul.wide.u32 on the device,
// where a 64-bit product of the sign-extended operands costs several): a·(f mod 2^32) = a·f + [f < 0]·a·2^32.
// (asm on the device: otherwise the compiler folds the correction back into a 64-bit product.)
CUZK_BG_FN uint64_t wide_u32(uint32_t a, uint32_t b) {
#ifdef __CUDA_ARCH__
  uint64_t r;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(r) : "r"(a), "r"(b));
  return r;
#else
  return uint64_t(a) * b;
#endif
}
CUZK_BG_FN int64_t mul_us(uint32_t a, int32_t f) {
  return int64_t(wide_u32(a, uint32_t(f)) - (uint64_t(a & uint32_t(f >> 31)) << 32));
}

// Bits 0..31 of a >> s, s + 32 <= 32N (a loop over the limbs, not an index: register arrays stay registers).
template <int N>
CUZK_BG_FN uint32_t bits_at(const uint32_t* a, uint32_t s) {
  uint32_t wi = s >> 5, sh = s & 31, r = 0;
CUZK_UNROLL
  for (int i = 0; i < N; i++) {
    uint64_t w = uint64_t(a[i]) | (i + 1 < N ? uint64_t(a[i + 1]) << 32 : 0);
    if (uint32_t(i) == wi) r = uint32_t(w >> sh);
  }
  return r;
}

// out = (a·f + b·g [+ q·m]) / 2^K as N limbs in two's complement; returns whether it is negative.
// The division is exact: without ADD_QM the low K bits are 0 already, with it q = the low K bits of
// (a·f + b·g)·m0 (m0 = -m^-1 mod 2^32) makes them so. a, b < 2^(32N-2).
template <int N, bool ADD_QM>
CUZK_BG_FN bool comb(uint32_t* out, const uint32_t* a, const uint32_t* b, int32_t f, int32_t g, const uint32_t* m,
                     uint32_t m0) {
  uint32_t t[N + 1], q = 0;
  int64_t c = 0;
CUZK_UNROLL
  for (int i = 0; i < N; i++) {
    c += mul_us(a[i], f) + mul_us(b[i], g);  // |.| < 2^62: |f| + |g| <= 2^K
    if (ADD_QM) {
      if (i == 0) q = (uint32_t(c) * m0) & ((1u << K) - 1);
      c += int64_t(wide_u32(q, m[i]));  // still below 2^63 in magnitude (q < 2^K)
    }
    t[i] = uint32_t(c);
    c >>= 32;
  }
  t[N] = uint32_t(c);
CUZK_UNROLL
  for (int i = 0; i < N; i++) out[i] = (t[i] >> K) | (t[i + 1] << (32 - K));
  return int32_t(t[N]) < 0;
}

// out = |(a·f + b·g) / 2^K|, returns whether a·f + b·g was negative.
template <int N>
CUZK_BG_FN bool comb_shift(uint32_t* out, const uint32_t* a, const uint32_t* b, int32_t f, int32_t g) {
  bool neg = comb<N, false>(out, a, b, f, g, nullptr, 0);
  if (neg) {  // two's complement negation over N limbs (|value| < 2^(32N-2))
    uint32_t carry = 1;
CUZK_UNROLL
    for (int i = 0; i < N; i++) {
      uint64_t s = uint64_t(~out[i]) + carry;
      out[i] = uint32_t(s);
      carry = uint32_t(s >> 32);
    }
  }
  return neg;
}

// out = (u·f + v·g) / 2^K mod m, u, v in [0, m); m0 = -m^-1 mod 2^32.
template <int N>
CUZK_BG_FN void comb_mod(uint32_t* out, const uint32_t* u, const uint32_t* v, int32_t f, int32_t g, const uint32_t* m,
                         uint32_t m0) {
  bool neg = comb<N, true>(out, u, v, f, g, m, m0);
  // out is in (-m, 2m): add m if negative, else subtract m if not below it
  uint32_t s[N], borrow = 0;
CUZK_UNROLL
  for (int i = 0; i < N; i++) {
    uint64_t d = uint64_t(out[i]) - m[i] - borrow;
    s[i] = uint32_t(d);
    borrow = uint32_t(d >> 63);
  }
  if (neg) {
    uint32_t carry = 0;
CUZK_UNROLL
    for (int i = 0; i < N; i++) {
      uint64_t d = uint64_t(out[i]) + m[i] + carry;
      out[i] = uint32_t(d);
      carry = uint32_t(d >> 32);
    }
  } else if (!borrow) {
CUZK_UNROLL
    for (int i = 0; i < N; i++) out[i] = s[i];
  }
}

// y = x^-1 mod m for x in [0, m) (0 for x = 0), m odd, m < 2^(32N-2), of |bits| bits; m0 = -m^-1 mod 2^32.
template <int N>
CUZK_BG_FN void invert(uint32_t* y, const uint32_t* x, const uint32_t* m, uint32_t m0, uint32_t bits) {
  uint32_t a[N], b[N], u[N], v[N];
CUZK_UNROLL
  for (int i = 0; i < N; i++) a[i] = x[i], b[i] = m[i], u[i] = 0, v[i] = 0;
  u[0] = 1;
  const int steps = outer_steps(bits);
  for (int it = 0; it < steps; it++) {
    uint32_t any = 0, len = 0;
CUZK_UNROLL
    for (int i = 0; i < N; i++) any |= a[i];
    if (all_done(any == 0)) break;  // a = 0 stays 0 and leaves v as it is
CUZK_UNROLL
    for (int i = 0; i < N; i++)
      if (a[i] | b[i]) len = 32 * i + 32 - clz32(a[i] | b[i]);
    const uint32_t s = (len > 2 * K + 2 ? len : 2 * K + 2) - 32;  // the top 32 bits of the images
    uint64_t ab = (uint64_t(bits_at<N>(a, s)) << K) | (a[0] & ((1u << K) - 1));
    uint64_t bb = (uint64_t(bits_at<N>(b, s)) << K) | (b[0] & ((1u << K) - 1));
    int32_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
CUZK_UNROLL_N(5)
    for (int j = 0; j < K; j++) {
      bool odd = ab & 1, swap = odd && ab < bb;
      uint64_t ta = ab;
      int32_t tf = f0, tg = g0;
      ab = swap ? bb : ab, bb = swap ? ta : bb;
      f0 = swap ? f1 : f0, f1 = swap ? tf : f1;
      g0 = swap ? g1 : g0, g1 = swap ? tg : g1;
      if (odd) ab -= bb, f0 -= f1, g0 -= g1;
      ab >>= 1, f1 *= 2, g1 *= 2;
    }
    uint32_t na[N], nb[N], nu[N], nv[N];
    if (comb_shift<N>(na, a, b, f0, g0)) f0 = -f0, g0 = -g0;
    if (comb_shift<N>(nb, a, b, f1, g1)) f1 = -f1, g1 = -g1;
    comb_mod<N>(nu, u, v, f0, g0, m, m0);
    comb_mod<N>(nv, u, v, f1, g1, m, m0);
CUZK_UNROLL
    for (int i = 0; i < N; i++) a[i] = na[i], b[i] = nb[i], u[i] = nu[i], v[i] = nv[i];
  }
CUZK_UNROLL
  for (int i = 0; i < N; i++) y[i] = v[i];
}

}  // namespace bingcd
}  // namespace cuzk
