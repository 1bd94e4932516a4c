// mont_t<P>: a prime field element in Montgomery form, n 64-bit limbs, little-endian, R = 2^(64n).
// The byte image of an element is exactly snarkjs's "LEM" encoding, so zkey points are used in
// place. Multiplication is CIOS (Koç, Acar, Kaliski 1996), 2n^2+n mul. Host code; the same source
// compiles under nvcc for host (device kernels use field/mont.cuh with 32-bit limbs).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#ifndef CUZK_HD
#ifdef __CUDACC__
#define CUZK_HD __host__ __device__ __forceinline__
#define CUZK_HD_IS_DEVICE 1
#else
#define CUZK_HD inline  // no always_inline: forced inlining of every field op made MSM/pairing TUs take minutes to compile
#endif
#endif

#include "../util/unroll.hpp"  // CUZK_UNROLL: loops over limbs unrolled, so limbs stay in registers

// x86-64 hosts get mulx/adx assembly for +, - and * (field/mont_x86.hpp), picked at load time;
// the nvcc device pass and other CPUs keep the generic C++ below.
#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
#define CUZK_MONT_X86 1
#include "mont_x86.hpp"
#endif
// On x86 hosts the generic ops are the cold fallback: out of line, so the ~100-400 instructions gcc
// makes of each are not inlined next to every asm, while +, -, * (a flag test and the asm) always
// are. Where CUZK_HD means __host__ __device__ both keep it, so that each op has one execution
// space in both nvcc passes (CUDA files that include field/mont.cuh make the host math host-only).
#if defined(CUZK_MONT_X86) && !defined(CUZK_HD_IS_DEVICE)
#define CUZK_GENERIC_OP __attribute__((noinline))
#define CUZK_HD_ARITH inline __attribute__((always_inline))
#else
#define CUZK_GENERIC_OP CUZK_HD
#define CUZK_HD_ARITH CUZK_HD
#endif

namespace cuzk {

using u128 = unsigned __int128;

// P supplies: static constexpr size_t n; uint64_t p[n], one[n] (R mod p), r2[n] (R^2 mod p),
// m0 (-p^-1 mod 2^64); and nbytes (the snarkjs n8, = 8n).
template <class P>
struct mont_t {
  using params = P;
  static constexpr size_t n = P::n;
  static constexpr size_t nbytes = 8 * P::n;
  uint64_t l[n];

  CUZK_HD static mont_t zero() { mont_t r; for (size_t i = 0; i < n; i++) r.l[i] = 0; return r; }
  CUZK_HD static mont_t one() { mont_t r; for (size_t i = 0; i < n; i++) r.l[i] = P::one[i]; return r; }
  CUZK_HD static mont_t from_raw(const uint64_t* v) { mont_t r; for (size_t i = 0; i < n; i++) r.l[i] = v[i]; return r; }

  CUZK_HD bool is_zero() const { uint64_t acc = 0; for (size_t i = 0; i < n; i++) acc |= l[i]; return acc == 0; }
  CUZK_HD bool is_one() const { return *this == one(); }
  CUZK_HD bool operator==(const mont_t& o) const { uint64_t acc = 0; for (size_t i = 0; i < n; i++) acc |= l[i] ^ o.l[i]; return acc == 0; }
  CUZK_HD bool operator!=(const mont_t& o) const { return !(*this == o); }

  // true when the raw limbs are < p (a canonical representative)
  CUZK_HD static bool lt_p(const uint64_t* v) {
    for (size_t i = n; i-- > 0;) {
      if (v[i] < P::p[i]) return true;
      if (v[i] > P::p[i]) return false;
    }
    return false;
  }

  // r = a - p if a >= p (a < 2p, with an optional carry bit above the top limb)
  CUZK_HD static void reduce_once(uint64_t* a, uint64_t carry) {
    uint64_t t[n];
    uint64_t borrow = 0;
CUZK_UNROLL
    for (size_t i = 0; i < n; i++) {
      u128 d = (u128)a[i] - P::p[i] - borrow;
      t[i] = (uint64_t)d;
      borrow = (uint64_t)(d >> 64) & 1;
    }
    // keep a when a < p, i.e. the subtraction borrowed and there was no carry
    bool keep = borrow && !carry;
    for (size_t i = 0; i < n; i++) a[i] = keep ? a[i] : t[i];
  }

// The asm forms where the CPU has them (mont_x86.hpp; add and sub need no ADX, but one switch keeps
// CUZK_NO_ASM a clean A/B), for 4 and 6 limbs: |asm_fn4| or |asm_fn6|(r.l, l, b.l).
#ifdef CUZK_MONT_X86
#define CUZK_MONT_ASM(asm_fn4, asm_fn6, b)                                   \
  if constexpr (n == 4 || n == 6) {                                          \
    if (mont_x86::enabled) {                                                 \
      mont_t r;                                                              \
      if constexpr (n == 4) mont_x86::asm_fn4<P>(r.l, l, b.l);               \
      else mont_x86::asm_fn6<P>(r.l, l, b.l);                                \
      return r;                                                              \
    }                                                                        \
  }
#else
#define CUZK_MONT_ASM(asm_fn4, asm_fn6, b)
#endif

  CUZK_HD_ARITH mont_t operator+(const mont_t& b) const {
    CUZK_MONT_ASM(add4, add6, b)
    return add_generic(b);
  }
  CUZK_HD_ARITH mont_t operator-(const mont_t& b) const {
    CUZK_MONT_ASM(sub4, sub6, b)
    return sub_generic(b);
  }

  CUZK_GENERIC_OP mont_t add_generic(const mont_t& b) const {
    mont_t r;
    uint64_t carry = 0;
    for (size_t i = 0; i < n; i++) {
      u128 s = (u128)l[i] + b.l[i] + carry;
      r.l[i] = (uint64_t)s;
      carry = (uint64_t)(s >> 64);
    }
    reduce_once(r.l, carry);
    return r;
  }

  CUZK_GENERIC_OP mont_t sub_generic(const mont_t& b) const {
    mont_t r;
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
      u128 d = (u128)l[i] - b.l[i] - borrow;
      r.l[i] = (uint64_t)d;
      borrow = (uint64_t)(d >> 64) & 1;
    }
    if (borrow) {  // add p back
      uint64_t carry = 0;
      for (size_t i = 0; i < n; i++) {
        u128 s = (u128)r.l[i] + P::p[i] + carry;
        r.l[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
      }
    }
    return r;
  }

  CUZK_HD_ARITH mont_t operator-() const { return is_zero() ? *this : zero() - *this; }
  CUZK_HD_ARITH mont_t dbl() const { return *this + *this; }

  // a·b·R^-1 mod p, fully reduced: mulx/adx assembly where the CPU has it (identical results).
  CUZK_HD_ARITH mont_t operator*(const mont_t& b) const {
    static_assert(P::p[P::n - 1] < 0x7fffffffffffffffull, "no-carry CIOS needs a spare top bit");
    CUZK_MONT_ASM(mul4, mul6, b)
    return mul_generic(b);
  }

  // CIOS Montgomery multiplication, a·b·R^-1 mod p, in the "no-carry" form (gnark-crypto's
  // variant): valid because every modulus here has its top limb below 2^63 - 1, so the running
  // sum fits n limbs and the two extra carry words of textbook CIOS are not needed. 2n^2+n mul.
  CUZK_GENERIC_OP mont_t mul_generic(const mont_t& b) const {
    uint64_t t[n] = {};
CUZK_UNROLL
    for (size_t i = 0; i < n; i++) {
      u128 s = (u128)l[0] * b.l[i] + t[0];
      uint64_t A = (uint64_t)(s >> 64);
      t[0] = (uint64_t)s;
      uint64_t m = t[0] * P::m0;
      u128 r = (u128)m * P::p[0] + t[0];
      uint64_t C = (uint64_t)(r >> 64);
CUZK_UNROLL
      for (size_t j = 1; j < n; j++) {
        s = (u128)l[j] * b.l[i] + t[j] + A;
        A = (uint64_t)(s >> 64);
        r = (u128)m * P::p[j] + (uint64_t)s + C;
        C = (uint64_t)(r >> 64);
        t[j - 1] = (uint64_t)r;
      }
      t[n - 1] = C + A;
    }
    mont_t out;
CUZK_UNROLL
    for (size_t i = 0; i < n; i++) out.l[i] = t[i];
    reduce_once(out.l, 0);
    return out;
  }

  CUZK_HD_ARITH mont_t sqr() const { return *this * *this; }
  CUZK_HD_ARITH mont_t& operator+=(const mont_t& b) { return *this = *this + b; }
  CUZK_HD_ARITH mont_t& operator-=(const mont_t& b) { return *this = *this - b; }
  CUZK_HD_ARITH mont_t& operator*=(const mont_t& b) { return *this = *this * b; }

  // this^e for a little-endian exponent of |nlimbs| limbs (square-and-multiply, not constant time:
  // used on public values and on secrets only in test/dev tooling).
  CUZK_HD mont_t pow(const uint64_t* e, size_t nlimbs) const {
    mont_t r = one();
    for (size_t i = nlimbs; i-- > 0;)
      for (int b = 63; b >= 0; b--) {
        r = r.sqr();
        if ((e[i] >> b) & 1) r = r * *this;
      }
    return r;
  }
  CUZK_HD mont_t pow(uint64_t e) const { return pow(&e, 1); }

  // Fermat inverse a^(p-2); inv(0) = 0.
  CUZK_HD mont_t inv() const {
    uint64_t e[n];
    uint64_t borrow = 2;
    for (size_t i = 0; i < n; i++) {
      u128 d = (u128)P::p[i] - borrow;
      e[i] = (uint64_t)d;
      borrow = (uint64_t)(d >> 64) & 1;
    }
    return pow(e, n);
  }

  // standard (canonical) limbs -> Montgomery, and back
  CUZK_HD static mont_t from_std(const uint64_t* v) { mont_t a = from_raw(v), r2 = from_raw(P::r2); return a * r2; }
  CUZK_HD void to_std(uint64_t* v) const {
    mont_t one_raw = zero();
    one_raw.l[0] = 1;
    mont_t r = *this * one_raw;
    for (size_t i = 0; i < n; i++) v[i] = r.l[i];
  }
  CUZK_HD static mont_t from_u64(uint64_t x) { uint64_t v[n] = {x}; return from_std(v); }

  // Byte images (little-endian hosts): LEM bytes are the limbs as they are.
  static mont_t load(const uint8_t* b) { mont_t r; std::memcpy(r.l, b, nbytes); return r; }
  void store(uint8_t* b) const { std::memcpy(b, l, nbytes); }
  static mont_t load_std(const uint8_t* b) { uint64_t v[n]; std::memcpy(v, b, nbytes); return from_std(v); }
  void store_std(uint8_t* b) const { uint64_t v[n]; to_std(v); std::memcpy(b, v, nbytes); }
};
#undef CUZK_MONT_ASM

// Montgomery batch inversion: a[i] <- a[i]^-1 for all i with one inversion; zeros stay zero.
// |scratch| holds n elements.
template <class F>
inline void batch_inverse(F* a, F* scratch, size_t count) {
  F acc = F::one();
  for (size_t i = 0; i < count; i++) {
    scratch[i] = acc;
    if (!a[i].is_zero()) acc = acc * a[i];
  }
  F inv = acc.inv();
  for (size_t i = count; i-- > 0;) {
    if (a[i].is_zero()) continue;
    F t = inv * scratch[i];
    inv = inv * a[i];
    a[i] = t;
  }
}

}  // namespace cuzk
