// cuzk_points_check: the load-time check of a key's points (snarkjs zkey sections, LEM affine):
// every coordinate below q and every point on its curve, and, for the few verification-key points,
// in the r-torsion. Threaded over the pool; reports the first bad index so TypeScript can name the
// file, the section and the point. (2^20 BN254 key, 2 cores: see bench/RESULTS.md.)
#include <atomic>
#include <cstring>

#include "api/dispatch.hpp"
#include "api/point_defect.hpp"
#include "pairing/bn254_pairing.hpp"
#include "pairing/bls12_381_pairing.hpp"
#include "pairing/groth16_verify.hpp"
#include "util/thread_pool.hpp"

namespace {
using namespace cuzk;

template <class C, class G>
void check(const uint8_t* points, uint64_t n, bool subgroup, int64_t* first_bad, int32_t* why) {
  constexpr size_t pb = affine_t<G>::nbytes;
  std::atomic<uint64_t> bad{n};
  // subgroup checks are ~0.1-0.5 ms a point, on-curve ~0.1 us: grains that keep chunks ~1 ms
  thread_pool::global().parallel_range(n, subgroup ? 4 : 8192, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi && i < bad.load(std::memory_order_relaxed); i++) {
      if (point_defect<C, G>(points + i * pb, subgroup) == 0) continue;
      uint64_t cur = bad.load();
      while (i < cur && !bad.compare_exchange_weak(cur, i)) {}
      return;
    }
  });
  uint64_t i = bad.load();
  *first_bad = i < n ? int64_t(i) : -1;
  *why = i < n ? point_defect<C, G>(points + i * pb, subgroup) : 0;
}

}  // namespace

extern "C" {

CUZK_API cuzk_status cuzk_points_check(int32_t curve, int32_t group, const uint8_t* points, uint64_t n,
                                       int32_t subgroup, int64_t* first_bad, int32_t* why, cuzk_error* err) {
  return guard([&] {
    require(first_bad != nullptr && why != nullptr, "cuzk_points_check: first_bad or why is NULL");
    require(n == 0 || points != nullptr, "cuzk_points_check: points is NULL");
    require(n < (uint64_t(1) << 40), "cuzk_points_check: n must be below 2^40");
    with_curve(curve, [&](auto c) {
      using C = decltype(c);
      with_group<C>(group, [&](auto g) { check<C, decltype(g)>(points, n, subgroup != 0, first_bad, why); });
    });
  }, err);
}

}  // extern "C"
