// The NTT's second Montgomery multiply (gpu_tuning_t::ntt, "wide" kernels): the CIOS of
// field/mont.cuh, the same a·b·R^-1 mod p and the same canonical result, written as plain C++ over
// 64-bit sums so that the compiler emits one IMAD.WIDE.U32 (the 64-bit product, lo and hi together)
// per limb product where mont.cuh's PTX carry chains issue an IMAD and an IMAD.HI (shared/perf/h200.md:
// IMAD.HI issues at half rate; the multiply is what bounds the NTT's passes). Plain C++, so the host
// compiles the very same text (mont_mul_wide_check in gpu_selftest runs it against mont_t there too).
#pragma once
#include <cstddef>
#include <cstdint>

#ifdef __CUDACC__
#define CUZK_MW_HD __host__ __device__ __forceinline__
#else
#define CUZK_MW_HD inline
#endif

namespace cuzk {

// a·b + c in 64 bits (c <= 2^33 - 2 here, so no overflow): on the device one
// mad.wide.u32 (nvcc otherwise turns products by the modulus' constant limbs into 64-bit multiplies).
CUZK_MW_HD uint64_t mad_wide(uint32_t a, uint32_t b, uint64_t c) {
#ifdef __CUDA_ARCH__
  uint64_t r;
  asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(r) : "r"(a), "r"(b), "l"(c));
  return r;
#else
  return uint64_t(a) * b + c;
#endif
}

// r = a·b·R^-1 mod p, R = 2^(32N), for a, b < p with 2p < R (every Fr here: BN254's 254 bits,
// BLS12-381's 255). Between rows t < 2p < R, so t's limb N is 0 and each row's top limb is only the
// product row's carry; within a row t + a·b_i + m·p < 2^33·p < 2^(32N+32) fits N + 1 limbs, and each
// 64-bit step t_j + a_j·b_i + c <= (2^32 - 1) + (2^32 - 1)^2 + (2^32 - 1) = 2^64 - 1 cannot overflow.
template <size_t N>
CUZK_MW_HD void mont_mul_wide(uint32_t* r, const uint32_t* a, const uint32_t* b, const uint32_t* p, uint32_t m0) {
  uint32_t t[N];
#pragma unroll
  for (size_t j = 0; j < N; j++) t[j] = 0;
#pragma unroll
  for (size_t i = 0; i < N; i++) {
    uint32_t c = 0;
#pragma unroll
    for (size_t j = 0; j < N; j++) {
      uint64_t s = mad_wide(a[j], b[i], uint64_t(t[j]) + c);
      t[j] = uint32_t(s);
      c = uint32_t(s >> 32);
    }
    const uint32_t top = c;
    const uint32_t m = t[0] * m0;  // t + m·p = 0 mod 2^32
    uint64_t s = mad_wide(m, p[0], t[0]);
    c = uint32_t(s >> 32);
#pragma unroll
    for (size_t j = 1; j < N; j++) {
      s = mad_wide(m, p[j], uint64_t(t[j]) + c);
      t[j - 1] = uint32_t(s);
      c = uint32_t(s >> 32);
    }
    t[N - 1] = top + c;  // the shifted sum is < 2p < R: no carry past limb N - 1
  }
  // t < 2p: subtract p once when t >= p
  uint32_t d[N], borrow = 0;
#pragma unroll
  for (size_t j = 0; j < N; j++) {
    uint64_t x = uint64_t(t[j]) - p[j] - borrow;
    d[j] = uint32_t(x);
    borrow = uint32_t(x >> 63);
  }
#pragma unroll
  for (size_t j = 0; j < N; j++) r[j] = borrow ? t[j] : d[j];
}

// a < p, limb by limb from the bottom (the borrow of a - p).
template <size_t N>
CUZK_MW_HD bool below_modulus(const uint32_t* a, const uint32_t* p) {
  uint32_t borrow = 0;
#pragma unroll
  for (size_t j = 0; j < N; j++) borrow = uint32_t((uint64_t(a[j]) - p[j] - borrow) >> 63);
  return borrow != 0;
}

}  // namespace cuzk
