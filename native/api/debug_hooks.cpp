// Test hooks (include/cuzk_test.h; linked only into libcuzk_*_test.so, see native/CMakeLists.txt):
// parts of the CPU core that no public call reaches on their own, exposed so that tests can check
// them against references. cuzk_debug_ifma: 1 when the MSM's batch-affine flush runs on AVX-512 IFMA (cpuid,
// CUZK_NO_IFMA unset). cuzk_debug_fq8_op: BN254 Fq and Fq2 ops through field/mont_ifma.hpp's 8 lanes
// on Montgomery-form elements (< p, n a multiple of 8), the results reduced as the scalar path's are;
// op 8 is the scalar divsteps inversion the flushes use (inv_public), on any CPU.
// cuzk_debug_fail_next: the next |calls| cuzk_groth16_prove_ab calls (any device) fail with |code|
// (DEVICE_LOST, DEVICE_OOM, ...), so the engine's error paths run on the CPU core; the armed state
// lives in api/groth16.cpp (dormant in release builds: one relaxed load, no way to arm it).
#include <atomic>
#include <cstring>
#include <string>

#include "api/guard.hpp"
#include "curve/affine.hpp"
#include "field/bn254.hpp"
#include "field/inv_divsteps.hpp"
#include "field/mont_ifma.hpp"
#include "include/cuzk_test.h"

// as in msm/batch_affine_ifma.cpp: gcc 12's AVX-512 intrinsics trip these once inlined
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

using namespace cuzk;

namespace cuzk {
extern std::atomic<int32_t> debug_fail_calls;  // api/groth16.cpp
extern std::atomic<int32_t> debug_fail_code;
}  // namespace cuzk

#ifdef CUZK_IFMA
namespace {
using fe8 = ifma::fe8_t<bn254_fq_params>;

// eight elements 32·|step| bytes apart
CUZK_IFMA_TARGET fe8 load8(const uint8_t* p, size_t step = 1) {
  __m512i x[4];
  alignas(64) uint64_t t[4][8];
  for (int k = 0; k < 8; k++) {
    uint64_t v[4];
    std::memcpy(v, p + 32 * step * k, 32);
    for (int j = 0; j < 4; j++) t[j][k] = v[j];
  }
  for (int j = 0; j < 4; j++) x[j] = _mm512_load_si512(t[j]);
  return ifma::from_u64x4<bn254_fq_params>(x);
}
CUZK_IFMA_TARGET void store8(const fe8& a, uint8_t* p, size_t step = 1) {
  __m512i x[4];
  alignas(64) uint64_t t[4][8];
  ifma::to_u64x4(a, x);
  for (int j = 0; j < 4; j++) _mm512_store_si512(t[j], x[j]);
  for (int k = 0; k < 8; k++) {
    uint64_t v[4] = {t[0][k], t[1][k], t[2][k], t[3][k]};
    std::memcpy(p + 32 * step * k, v, 32);
  }
}
// Fq2 (c0, c1 adjacent): 6 a·b, 7 (a + b)(a - b), on 16 Fq elements of a and b.
CUZK_IFMA_TARGET void fq2x8_op(int32_t op, const uint8_t* a, const uint8_t* b, uint8_t* out) {
  fe8 a0 = load8(a, 2), a1 = load8(a + 32, 2), b0 = load8(b, 2), b1 = load8(b + 32, 2), r0, r1;
  if (op == 7) {
    fe8 s0 = ifma::add(a0, b0), s1 = ifma::add(a1, b1);
    b0 = ifma::sub(a0, b0), b1 = ifma::sub(a1, b1), a0 = s0, a1 = s1;
  }
  ifma::fp2_mul(a0, a1, b0, b1, r0, r1);
  store8(r0, out, 2);
  store8(r1, out + 32, 2);
}

// 0 a + b, 1 a - b, 2 a·b, 3 a·a, 4 (a + b)(a - b) and 5 (a + b)^2: the last two feed the product
// the unreduced sums and differences (in [0, 2p)) that the flush passes along.
CUZK_IFMA_TARGET void fq8_op(int32_t op, const uint8_t* a, const uint8_t* b, uint8_t* out) {
  fe8 x = load8(a), y = load8(b), r;
  switch (op) {
    case 0: r = ifma::add(x, y); break;
    case 1: r = ifma::sub(x, y); break;
    case 2: r = ifma::mul(x, y); break;
    case 3: r = ifma::mul(x, x); break;
    case 4: r = ifma::mul(ifma::add(x, y), ifma::sub(x, y)); break;
    default: { fe8 s = ifma::add(x, y); r = ifma::mul(s, s); }
  }
  store8(r, out);
}
}  // namespace
#endif

extern "C" {

CUZK_API int32_t cuzk_debug_ifma(void) {
#ifdef CUZK_IFMA
  return ifma::enabled ? 1 : 0;
#else
  return 0;
#endif
}

CUZK_API cuzk_status cuzk_debug_fail_next(int32_t code, int32_t calls, cuzk_error* err) {
  return guard([&] {
    require(code > CUZK_OK && code <= CUZK_E_INTERNAL, "cuzk_debug_fail_next: code must be a failure status (1..10)");
    require(calls >= 0, "cuzk_debug_fail_next: calls must be >= 0 (0 disarms)");
    debug_fail_calls.store(0, std::memory_order_relaxed);
    debug_fail_code.store(code, std::memory_order_relaxed);
    debug_fail_calls.store(calls, std::memory_order_release);
  }, err);
}

CUZK_API cuzk_status cuzk_debug_fq8_op(int32_t op, const uint8_t* a, const uint8_t* b, uint8_t* out, uint64_t n,
                                       cuzk_error* err) {
  return guard([&] {
    require(n % 8 == 0, "cuzk_debug_fq8_op: n must be a multiple of 8");
    require(op >= 0 && op <= 8, "cuzk_debug_fq8_op: unknown op");
    require(op < 6 || n % 16 == 0, "cuzk_debug_fq8_op: n must be a multiple of 16 for an Fq2 op");
    require(n == 0 || (a && b && out), "cuzk_debug_fq8_op: a, b or out is NULL");
    for (uint64_t i = 0; i < 2 * n; i++) {
      const uint8_t* e = i < n ? a + 32 * i : b + 32 * (i - n);
      require(is_canonical(bn254_fq_t::load(e)), "cuzk_debug_fq8_op: an input is not below p");
    }
    if (op == 8) {  // the scalar inversion of public values (field/inv_divsteps.hpp), any CPU
      for (uint64_t i = 0; i < n; i++) inv_public(bn254_fq_t::load(a + 32 * i)).store(out + 32 * i);
      return;
    }
#ifdef CUZK_IFMA
    require(ifma::enabled, "cuzk_debug_fq8_op: the IFMA path is off (no AVX-512 IFMA, or CUZK_NO_IFMA is set)");
    if (op >= 6)
      for (uint64_t i = 0; i < n; i += 16) fq2x8_op(op, a + 32 * i, b + 32 * i, out + 32 * i);
    else
      for (uint64_t i = 0; i < n; i += 8) fq8_op(op, a + 32 * i, b + 32 * i, out + 32 * i);
#else
    require(false, "cuzk_debug_fq8_op: not an x86-64 build");
#endif
  }, err);
}

}  // extern "C"
