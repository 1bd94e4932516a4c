// C ABI shims for the pairing: cuzk_pairing (a pairing product, for tests and snarkjs's
// vk_alphabeta_12) and cuzk_groth16_verify. Argument checks here; the math is in pairing/.
#include <string>
#include <vector>

#include "api/dispatch.hpp"
#include "pairing/bls12_381_pairing.hpp"
#include "pairing/bn254_pairing.hpp"
#include "pairing/groth16_verify.hpp"

using namespace cuzk;

extern "C" CUZK_API cuzk_status cuzk_pairing(int32_t curve, const uint8_t* g1, const uint8_t* g2,
                                             uint64_t n, uint8_t* out, cuzk_error* err) {
  return guard([&] {
    require(out != nullptr, "pairing: out is NULL");
    require(n == 0 || (g1 != nullptr && g2 != nullptr), "pairing: g1 or g2 is NULL");
    with_curve(curve, [&](auto c) {
      using C = decltype(c);
      using PT = typename pairing_of<C>::type;
      using g1a = typename C::g1_affine_t;
      using g2a = typename C::g2_affine_t;
      std::vector<g1a> p(n);
      std::vector<g2a> q(n);
      for (uint64_t i = 0; i < n; i++) {
        if (!load_point<PT>(g1 + i * g1a::nbytes, p[i]))
          fail(CUZK_E_INVALID_ARG, "pairing: g1[" + std::to_string(i) + "] is not a point of the curve");
        if (!load_point<PT>(g2 + i * g2a::nbytes, q[i]))
          fail(CUZK_E_INVALID_ARG, "pairing: g2[" + std::to_string(i) + "] is not a point of the twist");
      }
      multi_pairing<PT>(p.data(), q.data(), n).store_std(out);
    });
  }, err);
}

extern "C" CUZK_API cuzk_status cuzk_groth16_verify(int32_t curve, const uint8_t* vk,
                                                    const uint8_t* publics, uint32_t n_public,
                                                    const uint8_t* proof, int32_t* valid,
                                                    cuzk_error* err) {
  return guard([&] {
    require(vk != nullptr && proof != nullptr && valid != nullptr, "groth16_verify: vk, proof or valid is NULL");
    require(n_public == 0 || publics != nullptr, "groth16_verify: publics is NULL");
    *valid = 0;
    with_curve(curve, [&](auto c) {
      using C = decltype(c);
      for (uint32_t i = 0; i < n_public; i++) {
        uint64_t k[C::fr_t::n];
        std::memcpy(k, publics + 32 * i, 32);
        if (!C::fr_t::lt_p(k))
          fail(CUZK_E_INVALID_ARG, "groth16_verify: public input " + std::to_string(i) + " is not below r");
      }
      *valid = groth16_verify<C>(vk, publics, n_public, proof) ? 1 : 0;
    });
  }, err);
}
