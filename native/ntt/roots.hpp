// Roots of unity and twiddle tables for the Fr NTT, matching ffjavascript exactly: ω for size 2^k is
// Fr.w[k] = w_max^(2^(s-k)) (s = 2-adicity), so Fr.w[k] = Fr.w[k+1]^2 and ω_{2m} for a butterfly of
// half-size m does not depend on the transform size. Tables are built once and cached (thread-safe).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "../field/mont.hpp"
#include "../util/thread_pool.hpp"

namespace cuzk {

template <class F> struct field_params;
template <class P> struct field_params<mont_t<P>> { using type = P; };

// Butterflies of half-size m < 2^ntt_lg_small take twiddles from the size-independent table below
// (2^12 entries, 128 KiB); larger stages read the per-size table ω_n^j.
constexpr uint32_t ntt_lg_small = 12;
constexpr uint32_t ntt_lg_keep = 20;  // per-size tables kept for good up to 2^20 (16 MiB)

template <class F>
struct ntt_roots {
  using P = typename field_params<F>::type;
  static constexpr uint32_t s = P::two_adicity;

  // w[k] = ω_{2^k} for k <= s (Fr.w in ffjavascript), wi[k] its inverse.
  static const F& root(uint32_t k) { return tables().w[k]; }
  static const F& root_inv(uint32_t k) { return tables().wi[k]; }

  // The coset generator g of cuzk.h: ω_{2n} = Fr.w[k+1], or Fr.shift when k = s (snarkjs prover).
  static F coset_gen(uint32_t lg_n) { return lg_n < s ? root(lg_n + 1) : F::from_u64(P::shift); }

  // small[m + j] = ω_{2m}^j (forward) for m = 2^t < 2^ntt_lg_small, j < m; small_inv likewise ω_{2m}^-j.
  static const F* small(bool inverse) { return inverse ? tables().small_inv.data() : tables().small_fwd.data(); }

  // big[j] = ω_n^j for j in [0, n/2] (n/2 + 1 entries; ω_n^(n/2) = -1). Inverse twiddles come from
  // the same table: ω_{2m}^-j = -ω_{2m}^(m-j). 16·n bytes: sizes up to 2^ntt_lg_keep stay cached for
  // the process; larger ones live while some caller holds them (a proof pins its table for all its
  // transforms) and are rebuilt after that, n/2 multiplications, ~1/lg_n of one transform.
  static std::shared_ptr<const std::vector<F>> big(uint32_t lg_n) {
    static std::mutex mu;
    static std::map<uint32_t, std::shared_ptr<const std::vector<F>>> kept;
    static std::map<uint32_t, std::weak_ptr<const std::vector<F>>> held;
    std::lock_guard<std::mutex> lk(mu);
    if (lg_n <= ntt_lg_keep) {
      auto& slot = kept[lg_n];
      if (!slot) slot = build_big(lg_n);
      return slot;
    }
    auto table = held[lg_n].lock();
    if (!table) held[lg_n] = table = build_big(lg_n);
    return table;
  }

 private:
  struct tables_t {
    F w[s + 1], wi[s + 1];
    std::vector<F> small_fwd, small_inv;
  };

  static const tables_t& tables() {
    static const tables_t t = make_tables();
    return t;
  }

  static tables_t make_tables() {
    tables_t t;
    t.w[s] = F::from_raw(P::w_max);
    for (uint32_t k = s; k-- > 0;) t.w[k] = t.w[k + 1].sqr();
    for (uint32_t k = 0; k <= s; k++) t.wi[k] = t.w[k].inv();
    size_t nsmall = size_t(1) << ntt_lg_small;
    t.small_fwd.assign(nsmall, F::one());
    t.small_inv.assign(nsmall, F::one());
    for (uint32_t lg_m = 0; lg_m < ntt_lg_small; lg_m++) {
      size_t m = size_t(1) << lg_m;
      F wf = t.w[lg_m + 1], wb = t.wi[lg_m + 1], xf = F::one(), xb = F::one();
      for (size_t j = 0; j < m; j++) {
        t.small_fwd[m + j] = xf;
        t.small_inv[m + j] = xb;
        xf = xf * wf;
        xb = xb * wb;
      }
    }
    return t;
  }

  static std::shared_ptr<const std::vector<F>> build_big(uint32_t lg_n) {
    size_t half = (size_t(1) << lg_n) / 2;
    auto v = std::make_shared<std::vector<F>>(half + 1);
    F w = root(lg_n);
    F* out = v->data();
    // running powers per chunk, each chunk starting from one pow(): n/2 multiplications in all
    thread_pool::global().parallel_range(half + 1, 1 << 14, [&](size_t b, size_t e) {
      F x = w.pow(uint64_t(b));
      for (size_t j = b; j < e; j++) {
        out[j] = x;
        x = x * w;
      }
    });
    return v;
  }
};

}  // namespace cuzk
