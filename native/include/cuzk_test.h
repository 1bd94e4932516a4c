/* cuzk_test.h: the test hooks, the ABI that libcuzk_cpu_test.so and libcuzk_cuda_test.so export on
 * top of cuzk.h (and the release libraries never do: test/native/exports.test.ts checks both). They
 * are defined in native/api/debug_*.cpp, which only the test libraries link; src/ffi/abi.ts binds them
 * in its test-hook block, from a test library only (CUZK_NATIVE_TEST_HOOKS=1). Same conventions as
 * cuzk.h: caller-owned |err|, borrowed pointers, never throws. */
#ifndef CUZK_TEST_H
#define CUZK_TEST_H

#include "cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the CPU MSM's batch-affine flush runs on AVX-512 IFMA (cpuid, CUZK_NO_IFMA unset), else 0. */
CUZK_API int32_t cuzk_debug_ifma(void);

/* BN254 Fq op |op| on field/mont_ifma.hpp's 8 lanes (0 +, 1 -, 2 ·, 3 a·a, 4 (a+b)(a-b), 5 (a+b)^2), or
 * Fq2 (6 ·, 7 (a+b)(a-b); |n| counts Fq coefficients, a multiple of 16); 8: a^-1 by the scalar
 * divsteps inversion (any CPU). |a|, |b|, |out|: n Montgomery-form 32-byte elements (< p), n % 8 == 0. */
CUZK_API cuzk_status cuzk_debug_fq8_op(int32_t op, const uint8_t* a, const uint8_t* b, uint8_t* out, uint64_t n,
                                       cuzk_error* err);

/* A count the CUDA core keeps of the kernel variants it ran: 0 = batch-affine bucket passes launched
 * (util/gpu.hpp's gpu_counters); always 0 in the CPU build and for other |which|. */
CUZK_API uint64_t cuzk_debug_gpu_counter(int32_t which);

/* The GPU MSM's binary-GCD inversion (field/inv_bingcd.hpp) compiled for the host, on |n| Montgomery
 * images of |field| (0 BN254 Fq, 1 BN254 Fr, 2 BLS12-381 Fq, 3 BLS12-381 Fr); |out| = images of a^-1,
 * 0 for 0. */
/* The next |calls| cuzk_groth16_prove_ab calls fail with |code| (a failure status, 1..10), their
 * message saying it was injected; |calls| 0 disarms. Any thread; for tests of the error paths. */
CUZK_API cuzk_status cuzk_debug_fail_next(int32_t code, int32_t calls, cuzk_error* err);

CUZK_API cuzk_status cuzk_debug_bingcd_inv(int32_t field, const uint8_t* a, uint8_t* out, uint64_t n,
                                           cuzk_error* err);

/* The GPU MSM's batch-affine accumulation (msm/affine_lanes.hpp) compiled for the host, threads
 * t < |T| in turn, with |lanes| lanes and chunks of |L| pairs, over |npts| LEM affine points and |E|
 * sorted (bucket |keys|, point index |vals|, bit 31 = negated) pairs; writes the XYZZ images (X‖Y‖ZZ‖ZZZ)
 * of the |nbuckets| buckets and the lanes·T heads and tails it produces (other slots are left as they were). */
CUZK_API cuzk_status cuzk_debug_affine_lanes(int32_t curve, int32_t group, const uint8_t* pts, uint64_t npts,
                                             const uint32_t* keys, const uint32_t* vals, uint64_t E, uint32_t L,
                                             uint32_t T, uint32_t lanes, uint8_t* buckets, uint64_t nbuckets,
                                             uint8_t* heads, uint8_t* tails, cuzk_error* err);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_TEST_H */
