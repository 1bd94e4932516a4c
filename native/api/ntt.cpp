// cuzk_ntt: the Fr NTT of ntt/ntt.hpp on standard-form bytes (converted to Montgomery and back in
// place, since a standard 32-byte scalar and a Montgomery element share one layout), or the GPU's
// when util/gpu_dispatch.hpp takes it (CUDA build, large enough sizes).
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "api/dispatch.hpp"
#include "ntt/ntt.hpp"
#include "api/gpu_dispatch.hpp"

using namespace cuzk;

namespace {

// Checked before anything is converted, so a rejected call leaves |data| as it was.
template <class F>
bool all_below_r(const F* a, size_t n) {
  std::atomic<bool> ok{true};
  thread_pool::global().parallel_range(n, 1 << 12, [&](size_t b, size_t e) {
    for (size_t i = b; i < e && ok; i++)
      if (!F::lt_p(a[i].l)) ok = false;
  });
  return ok;
}

template <class F>
void to_mont(F* a, size_t n) {
  thread_pool::global().parallel_range(n, 1 << 12, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; i++) a[i] = F::from_std(a[i].l);
  });
}

template <class F>
void to_std(F* a, size_t n) {
  thread_pool::global().parallel_range(n, 1 << 12, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; i++) a[i].to_std(a[i].l);
  });
}

}  // namespace

extern "C" CUZK_API cuzk_status cuzk_ntt(int32_t curve, uint8_t* data, uint32_t lg_n, uint32_t flags,
                                         cuzk_error* err) {
  return guard([&] {
    with_curve(curve, [&](auto c) {
      using F = typename decltype(c)::fr_t;
      constexpr uint32_t s = ntt_roots<F>::s;
      require(data != nullptr, "cuzk_ntt: data is NULL");
      require((flags & ~uint32_t(CUZK_NTT_INVERSE | CUZK_NTT_COSET)) == 0, "cuzk_ntt: unknown flag bits");
      if (lg_n > s || lg_n > 28)
        fail(CUZK_E_INVALID_ARG, "cuzk_ntt: lg_n " + std::to_string(lg_n) + " exceeds the maximum " +
                                     std::to_string(s < 28 ? s : 28));
      size_t n = size_t(1) << lg_n;
      // |data| is caller bytes with no alignment promise: F is 8-byte limbs, so work on them only
      // when aligned, else on an aligned copy.
      F* a = reinterpret_cast<F*>(data);
      std::vector<F> copy;
      if (reinterpret_cast<uintptr_t>(data) % alignof(F) != 0) {
        copy.resize(n);
        std::memcpy(copy.data(), data, n * sizeof(F));
        a = copy.data();
      }
      // the GPU checks the elements on the device as its first pass loads them (no host pass over
      // the vector before the upload: 512 MiB at 2^24)
      if (!gpu_ntt_try(a, lg_n, flags)) {
        if (!all_below_r(a, n)) fail(CUZK_E_INVALID_ARG, "cuzk_ntt: an element is not below r");
        to_mont(a, n);
        ntt_natural(a, lg_n, (flags & CUZK_NTT_INVERSE) != 0, (flags & CUZK_NTT_COSET) != 0);
        to_std(a, n);
      }
      if (!copy.empty()) std::memcpy(data, copy.data(), n * sizeof(F));
    });
  }, err);
}
