// BLS12-381 field parameters: base field Fq (381 bits, R = 2^384) and scalar field Fr (R = 2^256).
// w_max is snarkjs's Fr.w[32] = 5^((r-1)/2^32) (5 is the first non-residue ffjavascript finds).
#pragma once
#include "mont.hpp"

namespace cuzk {

struct bls12_381_fq_params {
  static constexpr size_t n = 6;
  static constexpr uint64_t p[6] = {0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624, 0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a};
  static constexpr uint64_t one[6] = {0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba, 0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493};
  static constexpr uint64_t r2[6] = {0xf4df1f341c341746, 0x0a76e6a609d104f1, 0x8de5476c4c95b6d5, 0x67eb88a9939d83c0, 0x9a793e85b519952d, 0x11988fe592cae3aa};
  static constexpr uint64_t m0 = 0x89f3fffcfffcfffd;
};

struct bls12_381_fr_params {
  static constexpr size_t n = 4;
  static constexpr uint64_t p[4] = {0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48};
  static constexpr uint64_t one[4] = {0x00000001fffffffe, 0x5884b7fa00034802, 0x998c4fefecbc4ff5, 0x1824b159acc5056f};
  static constexpr uint64_t r2[4] = {0xc999e990f3f29c6d, 0x2b6cedcb87925c23, 0x05d314967254398f, 0x0748d9d99f59ff11};
  static constexpr uint64_t m0 = 0xfffffffeffffffff;
  static constexpr uint32_t two_adicity = 32;
  static constexpr uint64_t w_max[4] = {0x9cab6d5c0c17f47c, 0x1ce1e93dfd4b71e5, 0x0d6db230471dd505, 0x3f0ee990743a3b6a};
  static constexpr uint64_t shift = 25;
};

using bls12_381_fq_t = mont_t<bls12_381_fq_params>;
using bls12_381_fr_t = mont_t<bls12_381_fr_params>;

}  // namespace cuzk
