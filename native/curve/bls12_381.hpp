// BLS12-381 curve constants: G1 y^2 = x^3 + 4 over Fq, G2 y^2 = x^3 + 4(1+u) over Fq2 (M-type
// twist), the standard generators (draft-irtf-cfrg-pairing-friendly-curves). Constants only.
#pragma once
#include "../field/bls12_381.hpp"
#include "../field/fp2.hpp"
#include "jacobian.hpp"

namespace cuzk {

using bls12_381_fq2_t = fp2_t<bls12_381_fq_t>;

struct bls12_381_g1_params {
  using field_t = bls12_381_fq_t;
  static field_t b() { static const field_t v = field_t::from_u64(4); return v; }
  static affine_t<bls12_381_g1_params> generator() {
    static const uint64_t x[6] = {0xfb3af00adb22c6bb, 0x6c55e83ff97a1aef, 0xa14e3a3f171bac58, 0xc3688c4f9774b905, 0x2695638c4fa9ac0f, 0x17f1d3a73197d794};
    static const uint64_t y[6] = {0x0caa232946c5e7e1, 0xd03cc744a2888ae4, 0x00db18cb2c04b3ed, 0xfcf5e095d5d00af6, 0xa09e30ed741d8ae4, 0x08b3f481e3aaa0f1};
    static const affine_t<bls12_381_g1_params> g{field_t::from_std(x), field_t::from_std(y)};
    return g;
  }
};

struct bls12_381_g2_params {
  using field_t = bls12_381_fq2_t;
  static field_t b() { static const field_t v{bls12_381_fq_t::from_u64(4), bls12_381_fq_t::from_u64(4)}; return v; }
  static affine_t<bls12_381_g2_params> generator() {
    static const uint64_t x0[6] = {0xd48056c8c121bdb8, 0x0bac0326a805bbef, 0xb4510b647ae3d177, 0xc6e47ad4fa403b02, 0x260805272dc51051, 0x024aa2b2f08f0a91};
    static const uint64_t x1[6] = {0xe5ac7d055d042b7e, 0x334cf11213945d57, 0xb5da61bbdc7f5049, 0x596bd0d09920b61a, 0x7dacd3a088274f65, 0x13e02b6052719f60};
    static const uint64_t y0[6] = {0xe193548608b82801, 0x923ac9cc3baca289, 0x6d429a695160d12c, 0xadfd9baa8cbdd3a7, 0x8cc9cdc6da2e351a, 0x0ce5d527727d6e11};
    static const uint64_t y1[6] = {0xaaa9075ff05f79be, 0x3f370d275cec1da1, 0x267492ab572e99ab, 0xcb3e287e85a763af, 0x32acd2b02bc28b99, 0x0606c4a02ea734cc};
    using fq = bls12_381_fq_t;
    static const affine_t<bls12_381_g2_params> g{{fq::from_std(x0), fq::from_std(x1)}, {fq::from_std(y0), fq::from_std(y1)}};
    return g;
  }
};

struct bls12_381 {
  static constexpr int32_t id = 2;  // CUZK_CURVE_BLS12_381
  using fr_t = bls12_381_fr_t;
  using fq_t = bls12_381_fq_t;
  using fq2_t = bls12_381_fq2_t;
  using g1 = bls12_381_g1_params;
  using g2 = bls12_381_g2_params;
  using g1_affine_t = affine_t<g1>;
  using g2_affine_t = affine_t<g2>;
  using g1_jacobian_t = jacobian_t<g1>;
  using g2_jacobian_t = jacobian_t<g2>;
};

}  // namespace cuzk
