// BN254 (snarkjs "bn128") field parameters: base field Fq and scalar field Fr, Montgomery R = 2^256.
// Constants computed from the moduli (EIP-196); w_max is snarkjs's Fr.w[28] = 5^((r-1)/2^28).
#pragma once
#include "mont.hpp"

namespace cuzk {

struct bn254_fq_params {
  static constexpr size_t n = 4;
  static constexpr uint64_t p[4] = {0x3c208c16d87cfd47, 0x97816a916871ca8d, 0xb85045b68181585d, 0x30644e72e131a029};
  static constexpr uint64_t one[4] = {0xd35d438dc58f0d9d, 0x0a78eb28f5c70b3d, 0x666ea36f7879462c, 0x0e0a77c19a07df2f};
  static constexpr uint64_t r2[4] = {0xf32cfc5b538afa89, 0xb5e71911d44501fb, 0x47ab1eff0a417ff6, 0x06d89f71cab8351f};
  static constexpr uint64_t m0 = 0x87d20782e4866389;
};

struct bn254_fr_params {
  static constexpr size_t n = 4;
  static constexpr uint64_t p[4] = {0x43e1f593f0000001, 0x2833e84879b97091, 0xb85045b68181585d, 0x30644e72e131a029};
  static constexpr uint64_t one[4] = {0xac96341c4ffffffb, 0x36fc76959f60cd29, 0x666ea36f7879462e, 0x0e0a77c19a07df2f};
  static constexpr uint64_t r2[4] = {0x1bb8e645ae216da7, 0x53fe3ab1e35c59e3, 0x8c49833d53bb8085, 0x0216d0b17f4e44a5};
  static constexpr uint64_t m0 = 0xc2e1f593efffffff;
  static constexpr uint32_t two_adicity = 28;
  // primitive 2^28-th root of unity, Montgomery form (snarkjs Fr.w[28], from the non-residue 5)
  static constexpr uint64_t w_max[4] = {0x636e735580d13d9c, 0xa22bf3742445ffd6, 0x56452ac01eb203d8, 0x1860ef942963f9e7};
  static constexpr uint64_t shift = 25;  // snarkjs Fr.shift = nqr^2, the coset used when lg_n = 28
};

using bn254_fq_t = mont_t<bn254_fq_params>;
using bn254_fr_t = mont_t<bn254_fr_params>;

}  // namespace cuzk
