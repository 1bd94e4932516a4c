// cuzk_msm and cuzk_batch_mul: argument checks around msm/pippenger_cpu.hpp and msm/fixed_base.hpp
// (both go to the GPU through api/gpu_dispatch.hpp in the CUDA build, when large enough: the same
// bytes either way).
// Point bytes are used in place when aligned (the LEM image is exactly the affine_t layout) and
// copied otherwise; coordinates are range-checked (< q; beside the GPU's work when it runs the MSM),
// being on the curve is the caller's job.
#include <atomic>
#include <cstring>
#include <exception>
#include <thread>
#include <vector>

#include "api/dispatch.hpp"
#include "msm/fixed_base.hpp"
#include "msm/pippenger_cpu.hpp"
#include "api/gpu_dispatch.hpp"

namespace {
using namespace cuzk;

template <class T>
const T* aligned_view(const uint8_t* p, size_t n, std::vector<T>& copy) {
  static_assert(sizeof(T) == T::nbytes, "affine_t must be exactly its LEM image");
  if (reinterpret_cast<uintptr_t>(p) % alignof(T) == 0) return reinterpret_cast<const T*>(p);
  copy.resize(n);
  std::memcpy(static_cast<void*>(copy.data()), p, n * sizeof(T));
  return copy.data();
}

// Fails with the first index whose coordinates are not canonical.
template <class G>
void check_points(const affine_t<G>* pts, size_t n, const char* what) {
  std::atomic<size_t> first_bad{n};
  thread_pool::global().parallel_range(n, 4096, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; i++) {
      if (pts[i].is_canonical()) continue;
      size_t cur = first_bad.load();
      while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {}
      return;
    }
  });
  if (first_bad.load() < n)
    fail(CUZK_E_INVALID_ARG, std::string(what) + "[" + std::to_string(first_bad.load()) + "] has a coordinate not below q");
}

template <class G>
void msm(const uint8_t* points, const uint8_t* scalars, uint64_t n, uint8_t* out) {
  std::vector<affine_t<G>> copy;
  const affine_t<G>* pts = aligned_view(points, n, copy);
  jacobian_t<G> r;
  if (!gpu_msm_wanted(n)) {
    check_points<G>(pts, n, "cuzk_msm: points");
    r = msm_pippenger<G>(pts, scalars, n);
  } else {
    // The coordinate check (a pass over every point on the CPU threads: ~2 ms for 2^20 BN254 G1 points,
    // ~25 ms for 2^24 on 16 cores) runs beside the upload and the kernels instead of before them, and
    // the sum is kept only if it passes: a coordinate not below q only makes the device's sum wrong
    // (what the kernels read is indexed by position, never by a coordinate's value).
    std::exception_ptr bad;
    std::thread check([&] {
      try {
        check_points<G>(pts, n, "cuzk_msm: points");
      } catch (...) {
        bad = std::current_exception();
      }
    });
    try {
      (void)gpu_msm_try<G>(pts, scalars, n, r);
    } catch (...) {
      check.join();
      if (bad) std::rethrow_exception(bad);
      throw;
    }
    check.join();
    if (bad) std::rethrow_exception(bad);
  }
  r.to_affine().store(out);
}

template <class G>
void batch_mul(const uint8_t* base, const uint8_t* scalars, uint64_t n, uint8_t* out) {
  affine_t<G> b = affine_t<G>::load(base);
  require(b.is_canonical(), "cuzk_batch_mul: base has a coordinate not below q");
  auto run = [&](affine_t<G>* dst) {
    if (!gpu_batch_mul_try<G>(b, scalars, n, dst)) fixed_base_mul<G>(b, scalars, n, dst);
  };
  if (reinterpret_cast<uintptr_t>(out) % alignof(affine_t<G>) == 0) {
    run(reinterpret_cast<affine_t<G>*>(out));
    return;
  }
  std::vector<affine_t<G>> tmp(n);
  run(tmp.data());
  std::memcpy(out, static_cast<const void*>(tmp.data()), n * sizeof(affine_t<G>));
}

}  // namespace

extern "C" {

CUZK_API cuzk_status cuzk_msm(int32_t curve, int32_t group, const uint8_t* points,
                              const uint8_t* scalars, uint64_t npoints, uint8_t* out, cuzk_error* err) {
  return guard([&] {
    require(out != nullptr, "cuzk_msm: out is NULL");
    require(npoints == 0 || (points != nullptr && scalars != nullptr), "cuzk_msm: points or scalars is NULL");
    require(npoints < (uint64_t(1) << 32), "cuzk_msm: npoints must be below 2^32");
    with_curve(curve, [&](auto c) {
      using C = decltype(c);
      with_group<C>(group, [&](auto g) { msm<decltype(g)>(points, scalars, npoints, out); });
    });
  }, err);
}

CUZK_API cuzk_status cuzk_batch_mul(int32_t curve, int32_t group, const uint8_t* base,
                                    const uint8_t* scalars, uint64_t n, uint8_t* out, cuzk_error* err) {
  return guard([&] {
    require(base != nullptr, "cuzk_batch_mul: base is NULL");
    require(n == 0 || (scalars != nullptr && out != nullptr), "cuzk_batch_mul: scalars or out is NULL");
    with_curve(curve, [&](auto c) {
      using C = decltype(c);
      with_group<C>(group, [&](auto g) { batch_mul<decltype(g)>(base, scalars, n, out); });
    });
  }, err);
}

}  // extern "C"
