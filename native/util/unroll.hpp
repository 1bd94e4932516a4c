// Loop-unrolling hints for text compiled for both the device and the host: CUZK_UNROLL for loops
// over limbs (a compile-time count, so limbs stay in registers), CUZK_UNROLL_N(n) for nvcc's
// `#pragma unroll n` (nothing on the host, where gcc would warn on it).
#pragma once

#define CUZK_PRAGMA(x) _Pragma(#x)
#ifdef __CUDACC__
#define CUZK_UNROLL _Pragma("unroll")
#define CUZK_UNROLL_N(n) CUZK_PRAGMA(unroll n)
#else
#define CUZK_UNROLL _Pragma("GCC unroll 16")
#define CUZK_UNROLL_N(n)
#endif
