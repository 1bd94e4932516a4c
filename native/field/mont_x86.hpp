// Montgomery multiplication in x86-64 assembly (BMI2 mulx, ADX adcx/adox: two carry chains at once)
// for 4- and 6-limb moduli whose top limb leaves a spare bit: the "no-carry" CIOS of mont.hpp with
// the same output (fully reduced, < p), so results are bit-identical to the generic path.
// Host only: included by mont.hpp when CUZK_MONT_X86 is set (x86-64, not the nvcc device pass);
// the generic C++ stays the fallback, chosen once at load time (cpuid, or CUZK_NO_ASM=1).
#pragma once
#include <cpuid.h>
#include <cstdint>
#include <cstdlib>

namespace cuzk {
namespace mont_x86 {

// gcc sizes an asm statement by its line count and would call these out of line (measured: 14 of
// ~150 instructions per multiply spent on the call); the asm text costs it nothing to inline.
#define CUZK_X86_INLINE inline __attribute__((always_inline))

// BMI2 (mulx) and ADX (adcx/adox): CPUID leaf 7, EBX bits 8 and 19 (Intel Broadwell+, AMD Zen+).
inline bool cpu_has_mulx_adx() {
  unsigned a, b, c, d;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  return (b >> 8 & 1) && (b >> 19 & 1);
}

// CUZK_NO_ASM=1 forces the generic path (tests run both); CUZK_FORCE_ASM=1 skips the cpuid check,
// for valgrind, whose virtual CPU hides ADX but executes it.
inline bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && *v != '0';
}
inline bool decide() {
  if (env_set("CUZK_NO_ASM")) return false;
  return env_set("CUZK_FORCE_ASM") || cpu_has_mulx_adx();
}

// Tested by every field operation: cmpb + jne, a branch that always goes the same way (2 of the
// ~150 instructions of a 4-limb multiply), so no template parameter has to thread the choice through
// curve, MSM and NTT code. Set by the library's dynamic initialisation, before any arithmetic.
inline const bool enabled = decide();

// One round for limb b[i]: (t0..t{n-1}, A) += a·b[i] with the product's low halves on the OF chain
// and its high halves on the CF chain, so the two adds per limb do not wait on each other.
#define CUZK_X86_MAC(aj, tj, tk) \
  "mulxq " aj ", %[x], %[A]\n\t" \
  "adoxq %[x], %[" tj "]\n\t"    \
  "adcxq %[A], %[" tk "]\n\t"
// Reduction step j of (t + m·p)/2^64: t_{j-1} = t_j + lo(m·p_j) + hi(m·p_{j-1}) (two chains).
#define CUZK_X86_RED(pj, tj, tjm1)      \
  "adcxq %[" tj "], %[" tjm1 "]\n\t"    \
  "mulxq %[" pj "], %[x], %[" tj "]\n\t" \
  "adoxq %[x], %[" tjm1 "]\n\t"
// m = t0·m0 mod 2^64; t0 + lo(m·p0) is 0 mod 2^64, only its carry is kept; t0 = hi(m·p0).
#define CUZK_X86_RED0        \
  "movq %[t0], %%rdx\n\t"    \
  "imulq %[m0], %%rdx\n\t"   \
  "xorl %k[x], %k[x]\n\t"    \
  "mulxq %[p0], %[x], %[y]\n\t" \
  "adcxq %[t0], %[x]\n\t"    \
  "movq %[y], %[t0]\n\t"
// t_top = hi(m·p_top) + A + both carries (no overflow: the sum is < 2p < 2^(64n)).
#define CUZK_X86_RED_END(ttop) \
  "movl $0, %k[x]\n\t"         \
  "adcxq %[x], %[" ttop "]\n\t" \
  "adoxq %[A], %[" ttop "]\n\t"
// A = hi + carries of both chains, after the last MAC of a round.
#define CUZK_X86_MAC_END  \
  "movl $0, %k[x]\n\t"    \
  "adcxq %[x], %[A]\n\t"  \
  "adoxq %[x], %[A]\n\t"

// Limb-wise op chains for add and sub: t_i = a_i op b_i, and s_i = t_i op p_i.
#define CUZK_X86_LD_OP(op, i, ti) "movq " #i "(%[a]), %[" ti "]\n\t" op " " #i "(%[b]), %[" ti "]\n\t"
#define CUZK_X86_CP_OP(op, ti, si, pi) "movq %[" ti "], %[" si "]\n\t" op " %[" pi "], %[" si "]\n\t"

#define CUZK_X86_ROUND4(bi)                                                               \
  "xorl %k[x], %k[x]\n\t"                                                                 \
  "movq " bi "(%[b]), %%rdx\n\t"                                                          \
  "mulxq 0(%[a]), %[x], %[A]\n\t"                                                         \
  "adoxq %[x], %[t0]\n\t"                                                                 \
  "adcxq %[A], %[t1]\n\t"                                                                 \
  CUZK_X86_MAC("8(%[a])", "t1", "t2") CUZK_X86_MAC("16(%[a])", "t2", "t3")                \
  "mulxq 24(%[a]), %[x], %[A]\n\t"                                                        \
  "adoxq %[x], %[t3]\n\t"                                                                 \
  CUZK_X86_MAC_END                                                                        \
  CUZK_X86_RED0 CUZK_X86_RED("p1", "t1", "t0") CUZK_X86_RED("p2", "t2", "t1")             \
  CUZK_X86_RED("p3", "t3", "t2") CUZK_X86_RED_END("t3")

// r = a·b·2^-256 mod p, r < p; needs p[3] < 2^63 - 1 (checked by mont.hpp) and a, b < p.
template <class P>
CUZK_X86_INLINE void mul4(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0, A, x, y, dx;
  // Round 0 is a plain round on t = 0 (the adds of zero cost less than a separate code path).
  asm(CUZK_X86_ROUND4("0") CUZK_X86_ROUND4("8") CUZK_X86_ROUND4("16") CUZK_X86_ROUND4("24")
      // t < 2p: subtract p and keep the difference unless it borrowed
      "movq %[t0], %[x]\n\t subq %[p0], %[x]\n\t"
      "movq %[t1], %[A]\n\t sbbq %[p1], %[A]\n\t"
      "movq %[t2], %[y]\n\t sbbq %[p2], %[y]\n\t"
      "movq %[t3], %%rdx\n\t sbbq %[p3], %%rdx\n\t"
      "cmovncq %[x], %[t0]\n\t cmovncq %[A], %[t1]\n\t cmovncq %[y], %[t2]\n\t cmovncq %%rdx, %[t3]\n\t"
      : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [A] "=&r"(A), [x] "=&r"(x),
        [y] "=&r"(y), "=&d"(dx)
      : [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[4])a), "m"(*(const uint64_t(*)[4])b),
        [p0] "m"(P::p[0]), [p1] "m"(P::p[1]), [p2] "m"(P::p[2]), [p3] "m"(P::p[3]), [m0] "m"(P::m0)
      : "cc");
  r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3;
}

// ---- lazy reduction for Fp2 (4 limbs): products kept at 512 bits, reduced once per coefficient ----

// One row of mul4_wide: (x0..x3, top) = (x0..x3) + a·b[i] with the low halves on OF and the high
// halves on CF; x0 is then final and stored at t[off].
#define CUZK_X86_WROW(bi, off, x0, x1, x2, x3, top)                                          \
  "xorl %k[x], %k[x]\n\t"                                                                   \
  "movq " bi "(%[b]), %%rdx\n\t"                                                            \
  "mulxq 0(%[a]), %[x], %[A]\n\t adoxq %[x], %[" x0 "]\n\t adcxq %[A], %[" x1 "]\n\t"      \
  "mulxq 8(%[a]), %[x], %[A]\n\t adoxq %[x], %[" x1 "]\n\t adcxq %[A], %[" x2 "]\n\t"      \
  "mulxq 16(%[a]), %[x], %[A]\n\t adoxq %[x], %[" x2 "]\n\t adcxq %[A], %[" x3 "]\n\t"     \
  "mulxq 24(%[a]), %[x], %[" top "]\n\t adoxq %[x], %[" x3 "]\n\t"                          \
  "movl $0, %k[x]\n\t adcxq %[x], %[" top "]\n\t adoxq %[x], %[" top "]\n\t"               \
  "movq %[" x0 "], " off "(%[t])\n\t"

// t[0..8) = a·b, the whole 512-bit product of any two 4-limb values (no reduction). The running sum
// after row i is below 2^(64(i+5)), so no row carries out of its top limb.
CUZK_X86_INLINE void mul4_wide(uint64_t* t, const uint64_t* a, const uint64_t* b) {
  uint64_t r0, r1, r2, r3, r4, A, x, dx;
  asm("movq 0(%[b]), %%rdx\n\t"
      "mulxq 0(%[a]), %[r0], %[r1]\n\t"
      "mulxq 8(%[a]), %[x], %[r2]\n\t addq %[x], %[r1]\n\t"
      "mulxq 16(%[a]), %[x], %[r3]\n\t adcq %[x], %[r2]\n\t"
      "mulxq 24(%[a]), %[x], %[r4]\n\t adcq %[x], %[r3]\n\t adcq $0, %[r4]\n\t"
      "movq %[r0], 0(%[t])\n\t"
      CUZK_X86_WROW("8", "8", "r1", "r2", "r3", "r4", "r0")
      CUZK_X86_WROW("16", "16", "r2", "r3", "r4", "r0", "r1")
      CUZK_X86_WROW("24", "24", "r3", "r4", "r0", "r1", "r2")
      "movq %[r4], 32(%[t])\n\t movq %[r0], 40(%[t])\n\t movq %[r1], 48(%[t])\n\t movq %[r2], 56(%[t])\n\t"
      : [r0] "=&r"(r0), [r1] "=&r"(r1), [r2] "=&r"(r2), [r3] "=&r"(r3), [r4] "=&r"(r4), [A] "=&r"(A),
        [x] "=&r"(x), "=&d"(dx), "=m"(*(uint64_t(*)[8])t)
      : [a] "r"(a), [b] "r"(b), [t] "r"(t), "m"(*(const uint64_t(*)[4])a), "m"(*(const uint64_t(*)[4])b)
      : "cc");
}
#undef CUZK_X86_WROW

// r = t·2^-256 mod p, r < p, for t < p·2^256 (8 limbs): four reduction steps of mul4 on the low half
// give q = (t_lo + m·p)/2^256 <= p, then q + t_hi < 2p takes one conditional subtraction.
template <class P>
CUZK_X86_INLINE void redc4(uint64_t* r, const uint64_t* t) {
  uint64_t t0 = t[0], t1 = t[1], t2 = t[2], t3 = t[3], A = 0, x, y, dx;
#define CUZK_X86_REDSTEP \
  CUZK_X86_RED0 CUZK_X86_RED("p1", "t1", "t0") CUZK_X86_RED("p2", "t2", "t1") CUZK_X86_RED("p3", "t3", "t2") CUZK_X86_RED_END("t3")
  asm(CUZK_X86_REDSTEP CUZK_X86_REDSTEP CUZK_X86_REDSTEP CUZK_X86_REDSTEP
      "addq 32(%[t]), %[t0]\n\t adcq 40(%[t]), %[t1]\n\t adcq 48(%[t]), %[t2]\n\t adcq 56(%[t]), %[t3]\n\t"
      "movq %[t0], %[x]\n\t subq %[p0], %[x]\n\t"
      "movq %[t1], %[A]\n\t sbbq %[p1], %[A]\n\t"
      "movq %[t2], %[y]\n\t sbbq %[p2], %[y]\n\t"
      "movq %[t3], %%rdx\n\t sbbq %[p3], %%rdx\n\t"
      "cmovncq %[x], %[t0]\n\t cmovncq %[A], %[t1]\n\t cmovncq %[y], %[t2]\n\t cmovncq %%rdx, %[t3]\n\t"
      : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [A] "+&r"(A), [x] "=&r"(x),
        [y] "=&r"(y), "=&d"(dx)
      : [t] "r"(t), "m"(*(const uint64_t(*)[8])t), [p0] "m"(P::p[0]), [p1] "m"(P::p[1]), [p2] "m"(P::p[2]),
        [p3] "m"(P::p[3]), [m0] "m"(P::m0)
      : "cc");
#undef CUZK_X86_REDSTEP
  r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3;
}

// r = a + b over |n| limbs, no reduction; the caller knows it does not carry out (memory operands:
// mov does not touch the carry flag, so the chain runs through loads and stores).
#define CUZK_X86_ADC_STEP(i) "movq " #i "(%[a]), %[x]\n\t adcq " #i "(%[b]), %[x]\n\t movq %[x], " #i "(%[r])\n\t"
#define CUZK_X86_SBB_STEP(i) "movq " #i "(%[b]), %[x]\n\t sbbq %[x], " #i "(%[r])\n\t"
CUZK_X86_INLINE void add4_wide(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  uint64_t x;
  asm("clc\n\t" CUZK_X86_ADC_STEP(0) CUZK_X86_ADC_STEP(8) CUZK_X86_ADC_STEP(16) CUZK_X86_ADC_STEP(24)
      : [x] "=&r"(x), "=m"(*(uint64_t(*)[4])r)
      : [r] "r"(r), [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[4])a), "m"(*(const uint64_t(*)[4])b)
      : "cc");
}
// r -= b over 8 limbs; returns the borrow out as a mask (0 or all ones).
CUZK_X86_INLINE uint64_t sub8_wide(uint64_t* r, const uint64_t* b) {
  uint64_t x, m;
  asm("clc\n\t" CUZK_X86_SBB_STEP(0) CUZK_X86_SBB_STEP(8) CUZK_X86_SBB_STEP(16) CUZK_X86_SBB_STEP(24)
      CUZK_X86_SBB_STEP(32) CUZK_X86_SBB_STEP(40) CUZK_X86_SBB_STEP(48) CUZK_X86_SBB_STEP(56)
      "sbbq %[m], %[m]\n\t"
      : [x] "=&r"(x), [m] "=&r"(m), "+m"(*(uint64_t(*)[8])r)
      : [r] "r"(r), [b] "r"(b), "m"(*(const uint64_t(*)[8])b)
      : "cc");
  return m;
}
#undef CUZK_X86_ADC_STEP
#undef CUZK_X86_SBB_STEP

// t[4..8) += p & mask (the top half: + p·2^256 when mask is all ones); its carry out is dropped.
template <class P>
CUZK_X86_INLINE void add_p_hi(uint64_t* t, uint64_t mask) {
  uint64_t s0, s1, s2, s3;
  asm("movq %[p0], %[s0]\n\t andq %[m], %[s0]\n\t movq %[p1], %[s1]\n\t andq %[m], %[s1]\n\t"
      "movq %[p2], %[s2]\n\t andq %[m], %[s2]\n\t movq %[p3], %[s3]\n\t andq %[m], %[s3]\n\t"
      "addq %[s0], 32(%[t])\n\t adcq %[s1], 40(%[t])\n\t adcq %[s2], 48(%[t])\n\t adcq %[s3], 56(%[t])\n\t"
      : [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), "+m"(*(uint64_t(*)[8])t)
      : [t] "r"(t), [m] "r"(mask), [p0] "m"(P::p[0]), [p1] "m"(P::p[1]), [p2] "m"(P::p[2]), [p3] "m"(P::p[3])
      : "cc");
}

// (r0 + r1·u) = (a0 + a1·u)(b0 + b1·u) with u^2 = -1, all < p, the same values as Karatsuba over
// mul4 (3M) with two reductions instead of three: t0 = a0·b0, t1 = a1·b1, t2 = (a0+a1)(b0+b1) at
// 512 bits; r0 = redc(t0 - t1, plus p·2^256 when negative), r1 = redc(t2 - t0 - t1). Both inputs are
// below p·2^256 (|t0 - t1| < p^2, t2 - t0 - t1 = a0·b1 + a1·b0 < 2p^2, and 2p < 2^256); the sums
// a0 + a1, b0 + b1 stay unreduced (< 2p < 2^255).
template <class P>
CUZK_X86_INLINE void fp2_mul4(uint64_t* r0, uint64_t* r1, const uint64_t* a0, const uint64_t* a1,
                              const uint64_t* b0, const uint64_t* b1) {
  uint64_t sa[4], sb[4], t0[8], t1[8], t2[8];
  add4_wide(sa, a0, a1);
  add4_wide(sb, b0, b1);
  mul4_wide(t0, a0, b0);
  mul4_wide(t1, a1, b1);
  mul4_wide(t2, sa, sb);
  sub8_wide(t2, t0);
  sub8_wide(t2, t1);
  add_p_hi<P>(t0, sub8_wide(t0, t1));
  redc4<P>(r0, t0);
  redc4<P>(r1, t2);
}

#define CUZK_X86_ROUND6(bi)                                                               \
  "xorl %k[x], %k[x]\n\t"                                                                 \
  "movq " bi "(%[b]), %%rdx\n\t"                                                          \
  "mulxq 0(%[a]), %[x], %[A]\n\t"                                                         \
  "adoxq %[x], %[t0]\n\t"                                                                 \
  "adcxq %[A], %[t1]\n\t"                                                                 \
  CUZK_X86_MAC("8(%[a])", "t1", "t2") CUZK_X86_MAC("16(%[a])", "t2", "t3")                \
  CUZK_X86_MAC("24(%[a])", "t3", "t4") CUZK_X86_MAC("32(%[a])", "t4", "t5")               \
  "mulxq 40(%[a]), %[x], %[A]\n\t"                                                        \
  "adoxq %[x], %[t5]\n\t"                                                                 \
  CUZK_X86_MAC_END                                                                        \
  CUZK_X86_RED0 CUZK_X86_RED("p1", "t1", "t0") CUZK_X86_RED("p2", "t2", "t1")             \
  CUZK_X86_RED("p3", "t3", "t2") CUZK_X86_RED("p4", "t4", "t3")                           \
  CUZK_X86_RED("p5", "t5", "t4") CUZK_X86_RED_END("t5")

// t = t - p unless that borrows (t < 2p): the tail of mul6 and add6, as its own asm statement so
// that neither needs more than 12 registers (one asm with pointers, temporaries and the address
// registers of its memory operands ran out of them in nvcc's host pass, which keeps a frame pointer).
template <class P>
CUZK_X86_INLINE void reduce6(uint64_t* r, uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3, uint64_t t4,
                             uint64_t t5) {
  uint64_t s0, s1, s2, s3, s4, s5;
  asm(CUZK_X86_CP_OP("subq", "t0", "s0", "p0") CUZK_X86_CP_OP("sbbq", "t1", "s1", "p1")
      CUZK_X86_CP_OP("sbbq", "t2", "s2", "p2") CUZK_X86_CP_OP("sbbq", "t3", "s3", "p3")
      CUZK_X86_CP_OP("sbbq", "t4", "s4", "p4") CUZK_X86_CP_OP("sbbq", "t5", "s5", "p5")
      "cmovncq %[s0], %[t0]\n\t cmovncq %[s1], %[t1]\n\t cmovncq %[s2], %[t2]\n\t"
      "cmovncq %[s3], %[t3]\n\t cmovncq %[s4], %[t4]\n\t cmovncq %[s5], %[t5]\n\t"
      : [t0] "+r"(t0), [t1] "+r"(t1), [t2] "+r"(t2), [t3] "+r"(t3), [t4] "+r"(t4), [t5] "+r"(t5),
        [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4), [s5] "=&r"(s5)
      : [p0] "m"(P::p[0]), [p1] "m"(P::p[1]), [p2] "m"(P::p[2]), [p3] "m"(P::p[3]), [p4] "m"(P::p[4]),
        [p5] "m"(P::p[5])
      : "cc");
  r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3, r[4] = t4, r[5] = t5;
}

// r = a·b·2^-384 mod p, r < p (BLS12-381 Fq); needs p[5] < 2^63 - 1 and a, b < p.
template <class P>
CUZK_X86_INLINE void mul6(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5 = 0, A, x, y, dx;
  asm(CUZK_X86_ROUND6("0") CUZK_X86_ROUND6("8") CUZK_X86_ROUND6("16") CUZK_X86_ROUND6("24")
      CUZK_X86_ROUND6("32") CUZK_X86_ROUND6("40")
      : [t0] "+&r"(t0), [t1] "+&r"(t1), [t2] "+&r"(t2), [t3] "+&r"(t3), [t4] "+&r"(t4),
        [t5] "+&r"(t5), [A] "=&r"(A), [x] "=&r"(x), [y] "=&r"(y), "=&d"(dx)
      : [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[6])a), "m"(*(const uint64_t(*)[6])b),
        [p0] "m"(P::p[0]), [p1] "m"(P::p[1]), [p2] "m"(P::p[2]), [p3] "m"(P::p[3]), [p4] "m"(P::p[4]),
        [p5] "m"(P::p[5]), [m0] "m"(P::m0)
      : "cc");
  reduce6<P>(r, t0, t1, t2, t3, t4, t5);
}

#undef CUZK_X86_ROUND6
// Addition and subtraction: gcc makes ~85-115 instructions of mont.hpp's u128 carry loops (with a
// data-dependent branch); these are ~25, branch-free. a, b < p < 2^(64n - 1), so a + b has no
// carry out of the top limb.

template <class P>
CUZK_X86_INLINE void add4(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  uint64_t t0, t1, t2, t3, s0, s1, s2, s3;
  asm(CUZK_X86_LD_OP("addq", 0, "t0") CUZK_X86_LD_OP("adcq", 8, "t1")
      CUZK_X86_LD_OP("adcq", 16, "t2") CUZK_X86_LD_OP("adcq", 24, "t3")
      CUZK_X86_CP_OP("subq", "t0", "s0", "p0") CUZK_X86_CP_OP("sbbq", "t1", "s1", "p1")
      CUZK_X86_CP_OP("sbbq", "t2", "s2", "p2") CUZK_X86_CP_OP("sbbq", "t3", "s3", "p3")
      "cmovncq %[s0], %[t0]\n\t cmovncq %[s1], %[t1]\n\t cmovncq %[s2], %[t2]\n\t cmovncq %[s3], %[t3]\n\t"
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [s0] "=&r"(s0), [s1] "=&r"(s1),
        [s2] "=&r"(s2), [s3] "=&r"(s3)
      : [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[4])a), "m"(*(const uint64_t(*)[4])b),
        [p0] "m"(P::p[0]), [p1] "m"(P::p[1]), [p2] "m"(P::p[2]), [p3] "m"(P::p[3])
      : "cc");
  r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3;
}

// a - b, plus p when it borrowed (p masked by the borrow, no branch).
template <class P>
CUZK_X86_INLINE void sub4(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  uint64_t t0, t1, t2, t3, s0, s1, s2, s3, m;
  asm(CUZK_X86_LD_OP("subq", 0, "t0") CUZK_X86_LD_OP("sbbq", 8, "t1")
      CUZK_X86_LD_OP("sbbq", 16, "t2") CUZK_X86_LD_OP("sbbq", 24, "t3")
      "sbbq %[m], %[m]\n\t"
      "movq %[p0], %[s0]\n\t andq %[m], %[s0]\n\t movq %[p1], %[s1]\n\t andq %[m], %[s1]\n\t"
      "movq %[p2], %[s2]\n\t andq %[m], %[s2]\n\t movq %[p3], %[s3]\n\t andq %[m], %[s3]\n\t"
      "addq %[s0], %[t0]\n\t adcq %[s1], %[t1]\n\t adcq %[s2], %[t2]\n\t adcq %[s3], %[t3]\n\t"
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [s0] "=&r"(s0), [s1] "=&r"(s1),
        [s2] "=&r"(s2), [s3] "=&r"(s3), [m] "=&r"(m)
      : [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[4])a), "m"(*(const uint64_t(*)[4])b),
        [p0] "m"(P::p[0]), [p1] "m"(P::p[1]), [p2] "m"(P::p[2]), [p3] "m"(P::p[3])
      : "cc");
  r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3;
}

template <class P>
CUZK_X86_INLINE void add6(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  uint64_t t0, t1, t2, t3, t4, t5;
  asm(CUZK_X86_LD_OP("addq", 0, "t0") CUZK_X86_LD_OP("adcq", 8, "t1")
      CUZK_X86_LD_OP("adcq", 16, "t2") CUZK_X86_LD_OP("adcq", 24, "t3")
      CUZK_X86_LD_OP("adcq", 32, "t4") CUZK_X86_LD_OP("adcq", 40, "t5")
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5)
      : [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[6])a), "m"(*(const uint64_t(*)[6])b)
      : "cc");
  reduce6<P>(r, t0, t1, t2, t3, t4, t5);
}

// In two statements for the same reason as reduce6: a - b with its borrow as a mask, then + (p & mask).
template <class P>
CUZK_X86_INLINE void sub6(uint64_t* r, const uint64_t* a, const uint64_t* b) {
  uint64_t t0, t1, t2, t3, t4, t5, m, s0, s1, s2, s3, s4, s5;
  asm(CUZK_X86_LD_OP("subq", 0, "t0") CUZK_X86_LD_OP("sbbq", 8, "t1")
      CUZK_X86_LD_OP("sbbq", 16, "t2") CUZK_X86_LD_OP("sbbq", 24, "t3")
      CUZK_X86_LD_OP("sbbq", 32, "t4") CUZK_X86_LD_OP("sbbq", 40, "t5")
      "sbbq %[m], %[m]\n\t"
      : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5),
        [m] "=&r"(m)
      : [a] "r"(a), [b] "r"(b), "m"(*(const uint64_t(*)[6])a), "m"(*(const uint64_t(*)[6])b)
      : "cc");
  asm("movq %[p0], %[s0]\n\t andq %[m], %[s0]\n\t movq %[p1], %[s1]\n\t andq %[m], %[s1]\n\t"
      "movq %[p2], %[s2]\n\t andq %[m], %[s2]\n\t movq %[p3], %[s3]\n\t andq %[m], %[s3]\n\t"
      "movq %[p4], %[s4]\n\t andq %[m], %[s4]\n\t movq %[p5], %[s5]\n\t andq %[m], %[s5]\n\t"
      "addq %[s0], %[t0]\n\t adcq %[s1], %[t1]\n\t adcq %[s2], %[t2]\n\t"
      "adcq %[s3], %[t3]\n\t adcq %[s4], %[t4]\n\t adcq %[s5], %[t5]\n\t"
      : [t0] "+r"(t0), [t1] "+r"(t1), [t2] "+r"(t2), [t3] "+r"(t3), [t4] "+r"(t4), [t5] "+r"(t5),
        [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3), [s4] "=&r"(s4), [s5] "=&r"(s5)
      : [m] "r"(m), [p0] "m"(P::p[0]), [p1] "m"(P::p[1]), [p2] "m"(P::p[2]), [p3] "m"(P::p[3]),
        [p4] "m"(P::p[4]), [p5] "m"(P::p[5])
      : "cc");
  r[0] = t0, r[1] = t1, r[2] = t2, r[3] = t3, r[4] = t4, r[5] = t5;
}

#undef CUZK_X86_LD_OP
#undef CUZK_X86_CP_OP
#undef CUZK_X86_ROUND4
#undef CUZK_X86_MAC
#undef CUZK_X86_RED
#undef CUZK_X86_RED0
#undef CUZK_X86_RED_END
#undef CUZK_X86_MAC_END

}  // namespace mont_x86
}  // namespace cuzk
