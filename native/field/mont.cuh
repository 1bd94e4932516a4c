// dmont_t: a prime field element on the GPU in Montgomery form, N 32-bit limbs, R = 2^(32N). R is the
// same as the host mont_t's 2^(64n), so device and host elements share one byte image (snarkjs LEM)
// and move between them by plain copies. Multiplication is CIOS (Koç, Acar, Kaliski 1996) on PTX
// carry chains, 4N^2+3N 32-bit multiply-adds; every field here has 2p < R, so the running sum fits in
// N+1 limbs and one final subtraction suffices. Every asm is `asm volatile`: the carry flag is implicit
// state the compiler would otherwise reorder across (shared/reference/gpu-msm-ntt.md §2.2).
#pragma once
#include <cstddef>
#include <cstdint>

// In CUDA translation units the host math (mont_t, fp2_t, affine_t, jacobian_t, xyzz_t) stays host
// code: its __host__ __device__ default would make nvcc compile every host instantiation for the
// device too, where the host constants do not exist. Device math is the d* types below.
#ifdef CUZK_HD
#error "include field/mont.cuh before any host math header in a .cu file"
#endif
#define CUZK_HD inline __attribute__((always_inline))
#define CUZK_HD_POINT inline

#include "bls12_381.hpp"
#include "bn254.hpp"
#include "inv_bingcd.hpp"

namespace cuzk {
namespace dev {

#define CUZK_ASM asm volatile

// P supplies N (limbs), M0 = -p^-1 mod 2^32, INLINE_MUL, and __device__ mod(i), one(i), rr(i)
// returning 32-bit limbs; loops are unrolled, so the limbs fold into immediate operands.
template <class P>
struct __align__(16) dmont_t {
  static constexpr size_t N = P::N;
  static constexpr uint32_t M0 = P::M0;
  static constexpr size_t n = N;
  static constexpr size_t nbytes = 4 * N;
  uint32_t l[N];

  __device__ __forceinline__ static dmont_t zero() {
    dmont_t r;
#pragma unroll
    for (size_t i = 0; i < N; i++) r.l[i] = 0;
    return r;
  }
  __device__ __forceinline__ static dmont_t one() {
    dmont_t r;
#pragma unroll
    for (size_t i = 0; i < N; i++) r.l[i] = P::one(i);
    return r;
  }
  __device__ __forceinline__ bool is_zero() const {
    uint32_t acc = 0;
#pragma unroll
    for (size_t i = 0; i < N; i++) acc |= l[i];
    return acc == 0;
  }
  __device__ __forceinline__ bool is_one() const { return *this == one(); }
  __device__ __forceinline__ bool operator==(const dmont_t& o) const {
    uint32_t acc = 0;
#pragma unroll
    for (size_t i = 0; i < N; i++) acc |= l[i] ^ o.l[i];
    return acc == 0;
  }
  __device__ __forceinline__ bool operator!=(const dmont_t& o) const { return !(*this == o); }

  // a <- a - p when a >= p (a < 2p < R).
  __device__ __forceinline__ static void reduce_once(uint32_t* a) {
    uint32_t t[N], borrow;
    CUZK_ASM("sub.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(a[0]), "r"(P::mod(0)));
#pragma unroll
    for (size_t i = 1; i < N; i++) CUZK_ASM("subc.cc.u32 %0, %1, %2;" : "=r"(t[i]) : "r"(a[i]), "r"(P::mod(i)));
    CUZK_ASM("subc.u32 %0, 0, 0;" : "=r"(borrow));
#pragma unroll
    for (size_t i = 0; i < N; i++) a[i] = borrow ? a[i] : t[i];
  }

  __device__ __forceinline__ dmont_t operator+(const dmont_t& b) const {
    dmont_t r;
    CUZK_ASM("add.cc.u32 %0, %1, %2;" : "=r"(r.l[0]) : "r"(l[0]), "r"(b.l[0]));
#pragma unroll
    for (size_t i = 1; i < N - 1; i++) CUZK_ASM("addc.cc.u32 %0, %1, %2;" : "=r"(r.l[i]) : "r"(l[i]), "r"(b.l[i]));
    CUZK_ASM("addc.u32 %0, %1, %2;" : "=r"(r.l[N - 1]) : "r"(l[N - 1]), "r"(b.l[N - 1]));  // 2p < R: no carry out
    reduce_once(r.l);
    return r;
  }

  __device__ __forceinline__ dmont_t operator-(const dmont_t& b) const {
    dmont_t r;
    uint32_t mask;
    CUZK_ASM("sub.cc.u32 %0, %1, %2;" : "=r"(r.l[0]) : "r"(l[0]), "r"(b.l[0]));
#pragma unroll
    for (size_t i = 1; i < N; i++) CUZK_ASM("subc.cc.u32 %0, %1, %2;" : "=r"(r.l[i]) : "r"(l[i]), "r"(b.l[i]));
    CUZK_ASM("subc.u32 %0, 0, 0;" : "=r"(mask));  // all ones on borrow: add p back
    CUZK_ASM("add.cc.u32 %0, %0, %1;" : "+r"(r.l[0]) : "r"(P::mod(0) & mask));
#pragma unroll
    for (size_t i = 1; i < N - 1; i++) CUZK_ASM("addc.cc.u32 %0, %0, %1;" : "+r"(r.l[i]) : "r"(P::mod(i) & mask));
    CUZK_ASM("addc.u32 %0, %0, %1;" : "+r"(r.l[N - 1]) : "r"(P::mod(N - 1) & mask));
    return r;
  }

  __device__ __forceinline__ dmont_t operator-() const { return zero() - *this; }
  __device__ __forceinline__ dmont_t dbl() const { return *this + *this; }

  // t[0..N] += a·bi (t < 2p on entry, so the sum fits in N+1 limbs).
  __device__ __forceinline__ static void mad_row(uint32_t* t, const uint32_t* a, uint32_t bi) {
    CUZK_ASM("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(a[0]), "r"(bi));
#pragma unroll
    for (size_t j = 1; j < N; j++) CUZK_ASM("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(a[j]), "r"(bi));
    CUZK_ASM("addc.u32 %0, %0, 0;" : "+r"(t[N]));
    CUZK_ASM("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(a[0]), "r"(bi));
#pragma unroll
    for (size_t j = 1; j < N - 1; j++) CUZK_ASM("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(a[j]), "r"(bi));
    CUZK_ASM("madc.hi.u32 %0, %1, %2, %0;" : "+r"(t[N]) : "r"(a[N - 1]), "r"(bi));
  }

  // t <- (t + m·p) / 2^32 with m = t[0]·(-p^-1) mod 2^32, so the low limb cancels.
  __device__ __forceinline__ static void redc_row(uint32_t* t) {
    uint32_t m = t[0] * M0;
    mad_row_mod(t, m);
#pragma unroll
    for (size_t j = 0; j < N; j++) t[j] = t[j + 1];
    t[N] = 0;
  }
  __device__ __forceinline__ static void mad_row_mod(uint32_t* t, uint32_t m) {
    CUZK_ASM("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[0]) : "r"(P::mod(0)), "r"(m));
#pragma unroll
    for (size_t j = 1; j < N; j++) CUZK_ASM("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[j]) : "r"(P::mod(j)), "r"(m));
    CUZK_ASM("addc.u32 %0, %0, 0;" : "+r"(t[N]));
    CUZK_ASM("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[1]) : "r"(P::mod(0)), "r"(m));
#pragma unroll
    for (size_t j = 1; j < N - 1; j++) CUZK_ASM("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[j + 1]) : "r"(P::mod(j)), "r"(m));
    CUZK_ASM("madc.hi.u32 %0, %1, %2, %0;" : "+r"(t[N]) : "r"(P::mod(N - 1)), "r"(m));
  }

  // a·b·R^-1 mod p. Inlined for Fr; a call for BN254 and BLS12-381 Fq, whose multiplies fill the MSM's
  // point formulas: inlined, one accumulation step of BN254 G1 (8M + 2S) is thousands of instructions,
  // more than the instruction cache holds, and ncu found its warps stalled 46% of the time with no
  // instruction fetched (2^24, H200); for 12 limbs inlining also made ptxas take minutes per kernel.
  __device__ __forceinline__ dmont_t operator*(const dmont_t& b) const {
    if constexpr (P::INLINE_MUL) return mul(*this, b);
    else return mul_call(*this, b);
  }
  __device__ __noinline__ static dmont_t mul_call(const dmont_t a, const dmont_t b) { return mul(a, b); }

  // N rows of (t += a·b_i; t = (t + m·p)/2^32), invariant t < 2p.
  __device__ __forceinline__ static dmont_t mul(const dmont_t& a, const dmont_t& b) {
    const uint32_t* l = a.l;
    uint32_t t[N + 1];
#pragma unroll
    for (size_t j = 0; j <= N; j++) t[j] = 0;
#pragma unroll
    for (size_t i = 0; i < N; i++) {
      mad_row(t, l, b.l[i]);
      redc_row(t);
    }
    dmont_t r;
#pragma unroll
    for (size_t j = 0; j < N; j++) r.l[j] = t[j];
    reduce_once(r.l);
    return r;
  }

  // sqr_sos for 8 limbs (0.79 of mul's time on the H200, gpu_selftest bench, 2026-12-01), a call where
  // the multiply is one, for the same reason (the instruction cache). Not for 12: there it is 0.78 of
  // mul alone, but it made BLS12-381 G1 MSMs 5% slower (2^24 c = 20: 174.4 ms against 165.8; 2^20
  // 15.6 against 14.8), probably as its 24-limb product outgrows the accumulation's register budget.
  __device__ __forceinline__ dmont_t sqr() const {
    if constexpr (N > 8) return *this * *this;
    else if constexpr (P::INLINE_MUL) return sqr_sos(*this);
    else return sqr_call(*this);
  }
  __device__ __noinline__ static dmont_t sqr_call(const dmont_t a) { return sqr_sos(a); }

  // a·a·R^-1 by its own products:
  // the off-diagonal products a_i·a_j (i < j) once, doubled, plus the squares a_i^2 give T = a^2 in 2N
  // limbs, N(N+1)/2 products against mul's N^2; then REDC(T) = T_hi + (T_lo + M·p)/R, the second term
  // being N reduction rows on T_lo alone (as from_mont), < p + 1, and T_hi < p^2/R < p/4, so one
  // final subtraction suffices. Multiply-pipe slots: 100 IMAD.HI + 108 IMAD against mul's 128 + 136 (N = 8).
  __device__ __forceinline__ static dmont_t sqr_sos(const dmont_t& x) {
    const uint32_t* a = x.l;
    uint32_t t[2 * N];
#pragma unroll
    for (size_t j = 0; j < 2 * N; j++) t[j] = 0;
    // row i: a_i·a_j for j > i at limbs i + j; the lo chain's carry lands in t[i + N] (it holds at most
    // the previous row's hi carry), the hi chain's in t[i + N + 1] (still zero)
#pragma unroll
    for (size_t i = 0; i + 1 < N; i++) {
      CUZK_ASM("mad.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[2 * i + 1]) : "r"(a[i]), "r"(a[i + 1]));
#pragma unroll
      for (size_t j = i + 2; j < N; j++) CUZK_ASM("madc.lo.cc.u32 %0, %1, %2, %0;" : "+r"(t[i + j]) : "r"(a[i]), "r"(a[j]));
      CUZK_ASM("addc.u32 %0, %0, 0;" : "+r"(t[i + N]));
      CUZK_ASM("mad.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[2 * i + 2]) : "r"(a[i]), "r"(a[i + 1]));
#pragma unroll
      for (size_t j = i + 2; j < N; j++)
        CUZK_ASM("madc.hi.cc.u32 %0, %1, %2, %0;" : "+r"(t[i + j + 1]) : "r"(a[i]), "r"(a[j]));
      CUZK_ASM("addc.u32 %0, %0, 0;" : "+r"(t[i + N + 1]));
    }
    // doubled (t[0] is 0; 2·T < a^2 < 2^(64N)), then the squares on the diagonal
    CUZK_ASM("add.cc.u32 %0, %0, %0;" : "+r"(t[1]));
#pragma unroll
    for (size_t j = 2; j < 2 * N - 1; j++) CUZK_ASM("addc.cc.u32 %0, %0, %0;" : "+r"(t[j]));
    CUZK_ASM("addc.u32 %0, %0, %0;" : "+r"(t[2 * N - 1]));
    CUZK_ASM("mad.lo.cc.u32 %0, %1, %1, %0;" : "+r"(t[0]) : "r"(a[0]));
    CUZK_ASM("madc.hi.cc.u32 %0, %1, %1, %0;" : "+r"(t[1]) : "r"(a[0]));
#pragma unroll
    for (size_t i = 1; i + 1 < N; i++) {
      CUZK_ASM("madc.lo.cc.u32 %0, %1, %1, %0;" : "+r"(t[2 * i]) : "r"(a[i]));
      CUZK_ASM("madc.hi.cc.u32 %0, %1, %1, %0;" : "+r"(t[2 * i + 1]) : "r"(a[i]));
    }
    CUZK_ASM("madc.lo.cc.u32 %0, %1, %1, %0;" : "+r"(t[2 * N - 2]) : "r"(a[N - 1]));
    CUZK_ASM("madc.hi.u32 %0, %1, %1, %0;" : "+r"(t[2 * N - 1]) : "r"(a[N - 1]));
    // (T_lo + M·p)/R by N reduction rows, then + T_hi
    uint32_t s[N + 1];
#pragma unroll
    for (size_t j = 0; j < N; j++) s[j] = t[j];
    s[N] = 0;
#pragma unroll
    for (size_t i = 0; i < N; i++) redc_row(s);
    CUZK_ASM("add.cc.u32 %0, %0, %1;" : "+r"(s[0]) : "r"(t[N]));
#pragma unroll
    for (size_t j = 1; j < N - 1; j++) CUZK_ASM("addc.cc.u32 %0, %0, %1;" : "+r"(s[j]) : "r"(t[N + j]));
    CUZK_ASM("addc.u32 %0, %0, %1;" : "+r"(s[N - 1]) : "r"(t[2 * N - 1]));
    dmont_t r;
#pragma unroll
    for (size_t j = 0; j < N; j++) r.l[j] = s[j];
    reduce_once(r.l);
    return r;
  }

  // a^-1 (0 for 0), variable time: public values only (the MSM's batch inversions). The binary GCD of
  // field/inv_bingcd.hpp inverts the image a·R to a^-1·R^-1, and Montgomery products turn that into
  // the image a^-1·R: rr·rr = R^3, then y·R^3 = a^-1·R. A call: its loops are long and run once per K adds.
  __device__ __forceinline__ dmont_t inv() const { return inv_of(*this); }
  __device__ __noinline__ static dmont_t inv_of(const dmont_t a) {
    uint32_t m[N];
#pragma unroll
    for (size_t i = 0; i < N; i++) m[i] = P::mod(i);
    dmont_t y, rr;
    bingcd::invert<int(N)>(y.l, a.l, m, M0, P::BITS);
#pragma unroll
    for (size_t i = 0; i < N; i++) rr.l[i] = P::rr(i);
    return y * (rr * rr);
  }
  __device__ __forceinline__ dmont_t& operator+=(const dmont_t& b) { return *this = *this + b; }
  __device__ __forceinline__ dmont_t& operator-=(const dmont_t& b) { return *this = *this - b; }
  __device__ __forceinline__ dmont_t& operator*=(const dmont_t& b) { return *this = *this * b; }

  // standard <-> Montgomery (·R^2·R^-1 and ·1·R^-1)
  __device__ __forceinline__ dmont_t to_mont() const {
    dmont_t rr;
#pragma unroll
    for (size_t i = 0; i < N; i++) rr.l[i] = P::rr(i);
    return *this * rr;
  }
  __device__ __forceinline__ dmont_t from_mont() const {
    dmont_t one_raw = zero();
    one_raw.l[0] = 1;
    return *this * one_raw;
  }
};

#undef CUZK_ASM

// 32-bit limb images of the host (64-bit limb) constants, as local constexpr arrays: loops over i
// are unrolled, so each limb folds into an immediate operand. -p^-1 mod 2^32 is the low half of the
// host's -p^-1 mod 2^64.
#define CUZK_L32(a, k) uint32_t(a[k]), uint32_t(a[k] >> 32)
#define CUZK_L32x4(a) CUZK_L32(a, 0), CUZK_L32(a, 1), CUZK_L32(a, 2), CUZK_L32(a, 3)
#define CUZK_L32x6(a) CUZK_L32x4(a), CUZK_L32(a, 4), CUZK_L32(a, 5)
#define CUZK_DEV_PARAMS(name, host, nlimbs, split, inline_mul)                              \
  struct name {                                                                              \
    static constexpr size_t N = nlimbs;                                                      \
    static constexpr uint32_t M0 = uint32_t(host::m0);                                       \
    static constexpr bool INLINE_MUL = inline_mul;                                           \
    static constexpr uint32_t BITS = bingcd::modulus_bits<host>();                           \
    __device__ __forceinline__ static uint32_t mod(size_t i) {                               \
      constexpr uint32_t v[N] = {split(host::p)};                                            \
      return v[i];                                                                           \
    }                                                                                        \
    __device__ __forceinline__ static uint32_t one(size_t i) {                               \
      constexpr uint32_t v[N] = {split(host::one)};                                          \
      return v[i];                                                                           \
    }                                                                                        \
    __device__ __forceinline__ static uint32_t rr(size_t i) {                                \
      constexpr uint32_t v[N] = {split(host::r2)};                                           \
      return v[i];                                                                           \
    }                                                                                        \
  };
CUZK_DEV_PARAMS(bn254_fq_dparams, bn254_fq_params, 8, CUZK_L32x4, false)
CUZK_DEV_PARAMS(bn254_fr_dparams, bn254_fr_params, 8, CUZK_L32x4, true)
CUZK_DEV_PARAMS(bls12_381_fq_dparams, bls12_381_fq_params, 12, CUZK_L32x6, false)
CUZK_DEV_PARAMS(bls12_381_fr_dparams, bls12_381_fr_params, 8, CUZK_L32x4, true)
#undef CUZK_DEV_PARAMS
#undef CUZK_L32x6
#undef CUZK_L32x4
#undef CUZK_L32

using bn254_fq_t = dmont_t<bn254_fq_dparams>;
using bn254_fr_t = dmont_t<bn254_fr_dparams>;
using bls12_381_fq_t = dmont_t<bls12_381_fq_dparams>;
using bls12_381_fr_t = dmont_t<bls12_381_fr_dparams>;

// F[u]/(u^2 + 1), as field/fp2.hpp (same formulas, same c0‖c1 image). Karatsuba mul 3M, sqr 2M.
template <class F>
struct dfp2_t {
  static constexpr size_t nbytes = 2 * F::nbytes;
  F c0, c1;

  __device__ __forceinline__ static dfp2_t zero() { return {F::zero(), F::zero()}; }
  __device__ __forceinline__ static dfp2_t one() { return {F::one(), F::zero()}; }
  __device__ __forceinline__ bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  __device__ __forceinline__ bool operator==(const dfp2_t& o) const { return c0 == o.c0 && c1 == o.c1; }
  __device__ __forceinline__ dfp2_t operator+(const dfp2_t& b) const { return {c0 + b.c0, c1 + b.c1}; }
  __device__ __forceinline__ dfp2_t operator-(const dfp2_t& b) const { return {c0 - b.c0, c1 - b.c1}; }
  __device__ __forceinline__ dfp2_t operator-() const { return {-c0, -c1}; }
  __device__ __forceinline__ dfp2_t dbl() const { return {c0.dbl(), c1.dbl()}; }
  __device__ __forceinline__ dfp2_t operator*(const dfp2_t& b) const {
    F t0 = c0 * b.c0, t1 = c1 * b.c1, t2 = (c0 + c1) * (b.c0 + b.c1);
    return {t0 - t1, t2 - t0 - t1};
  }
  __device__ __forceinline__ dfp2_t sqr() const {
    F t = c0 * c1;
    return {(c0 + c1) * (c0 - c1), t.dbl()};
  }
  // 1/(a + bu) = (a - bu)/(a^2 + b^2)
  __device__ __forceinline__ dfp2_t inv() const {
    F t = (c0.sqr() + c1.sqr()).inv();
    return {c0 * t, -(c1 * t)};
  }
};

using bn254_fq2_t = dfp2_t<bn254_fq_t>;
using bls12_381_fq2_t = dfp2_t<bls12_381_fq_t>;

}  // namespace dev
}  // namespace cuzk
