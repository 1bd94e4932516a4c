// cuzk_lagrange_eval, cuzk_r1cs_accumulate, cuzk_qap_combine: argument checks around
// groth16/dev_setup.hpp, the arithmetic of cuzk dev-setup (INSECURE keys from a known τ).
#include <cstring>
#include <string>

#include "api/dispatch.hpp"
#include "groth16/dev_setup.hpp"

using namespace cuzk;

namespace {

template <class F>
F scalar_arg(const uint8_t* b, const char* what) {
  uint64_t v[F::n];
  std::memcpy(v, b, sizeof v);
  if (!F::lt_p(v)) fail(CUZK_E_INVALID_ARG, std::string(what) + " is not below r");
  return F::from_std(v);
}

template <class F>
F* aligned_fr(uint8_t* p, const char* what) {
  if (reinterpret_cast<uintptr_t>(p) % alignof(F) != 0) fail(CUZK_E_INVALID_ARG, std::string(what) + " is not 8-byte aligned");
  return reinterpret_cast<F*>(p);
}

}  // namespace

extern "C" {

CUZK_API cuzk_status cuzk_lagrange_eval(int32_t curve, const uint8_t* tau, const uint8_t* scale, uint32_t lg_n,
                                        uint64_t first, uint64_t stride, uint64_t count, uint8_t* out,
                                        cuzk_error* err) {
  return guard([&] {
    require(tau != nullptr && scale != nullptr, "cuzk_lagrange_eval: tau or scale is NULL");
    require(count == 0 || out != nullptr, "cuzk_lagrange_eval: out is NULL");
    with_curve(curve, [&](auto c) {
      using F = typename decltype(c)::fr_t;
      F t = scalar_arg<F>(tau, "cuzk_lagrange_eval: tau"), s = scalar_arg<F>(scale, "cuzk_lagrange_eval: scale");
      lagrange_eval<F>(t, s, lg_n, first, stride, count, out);
    });
  }, err);
}

CUZK_API cuzk_status cuzk_r1cs_accumulate(int32_t curve, const uint8_t* data, uint64_t len, uint32_t first_row,
                                          uint64_t max_rows, uint32_t n_wires, const uint8_t* l, uint8_t* acc_a,
                                          uint8_t* acc_b, uint8_t* acc_c, uint8_t* coefs, uint64_t coefs_cap,
                                          uint64_t* done, cuzk_error* err) {
  return guard([&] {
    require(done != nullptr && acc_a && acc_b && acc_c, "cuzk_r1cs_accumulate: done or an accumulator is NULL");
    require(len == 0 || (data != nullptr && l != nullptr && coefs != nullptr),
            "cuzk_r1cs_accumulate: data, l or coefs is NULL");
    require(coefs_cap >= len / dev_setup_detail::term_bytes, "cuzk_r1cs_accumulate: coefs_cap is below len / 36");
    with_curve(curve, [&](auto c) {
      using F = typename decltype(c)::fr_t;
      r1cs_pass_t res;
      F* acc[3] = {aligned_fr<F>(acc_a, "cuzk_r1cs_accumulate: acc_a"), aligned_fr<F>(acc_b, "cuzk_r1cs_accumulate: acc_b"),
                   aligned_fr<F>(acc_c, "cuzk_r1cs_accumulate: acc_c")};
      r1cs_accumulate<F>(data, len, first_row, max_rows, n_wires, l, acc, coefs, res);
      done[0] = res.bytes;
      done[1] = res.rows;
      done[2] = res.coefs;
    });
  }, err);
}

CUZK_API cuzk_status cuzk_qap_combine(int32_t curve, uint8_t* acc_a, uint8_t* acc_b, uint8_t* acc_c, uint32_t n_wires,
                                      uint32_t n_public, const uint8_t* alpha, const uint8_t* beta,
                                      const uint8_t* gamma, const uint8_t* delta, cuzk_error* err) {
  return guard([&] {
    require(acc_a && acc_b && acc_c && alpha && beta && gamma && delta, "cuzk_qap_combine: an argument is NULL");
    with_curve(curve, [&](auto c) {
      using F = typename decltype(c)::fr_t;
      F g = scalar_arg<F>(gamma, "cuzk_qap_combine: gamma"), d = scalar_arg<F>(delta, "cuzk_qap_combine: delta");
      require(!g.is_zero() && !d.is_zero(), "cuzk_qap_combine: gamma and delta must be nonzero");
      F* acc[3] = {aligned_fr<F>(acc_a, "cuzk_qap_combine: acc_a"), aligned_fr<F>(acc_b, "cuzk_qap_combine: acc_b"),
                   aligned_fr<F>(acc_c, "cuzk_qap_combine: acc_c")};
      qap_combine<F>(acc, n_wires, n_public,
                     scalar_arg<F>(alpha, "cuzk_qap_combine: alpha"), scalar_arg<F>(beta, "cuzk_qap_combine: beta"),
                     g.inv(), d.inv());
    });
  }, err);
}

}  // extern "C"
