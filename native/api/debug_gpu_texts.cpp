// Test hooks (include/cuzk_test.h; only in libcuzk_*_test.so) that run texts of the GPU MSM
// compiled for the host, so tests check them against references on any machine:
// cuzk_debug_bingcd_inv: the binary-GCD inversion (field/inv_bingcd.hpp) of Montgomery images
// (field 0 BN254 Fq, 1 BN254 Fr, 2 BLS12-381 Fq, 3 BLS12-381 Fr; out = the image of a^-1, 0 for 0).
// cuzk_debug_affine_lanes: the batch-affine accumulation (msm/affine_lanes.hpp), threads t < T in turn,
// over LEM affine points and sorted (bucket, point|sign) pairs; writes the XYZZ images (X, Y, ZZ, ZZZ)
// of the buckets, heads and tails it produces (slots it does not write are left as they were).
#include <cstring>
#include <vector>

#include "api/guard.hpp"
#include "curve/affine.hpp"
#include "curve/bls12_381.hpp"
#include "curve/bn254.hpp"
#include "curve/xyzz.hpp"
#include "field/inv_bingcd.hpp"
#include "include/cuzk_test.h"
#include "msm/affine_lanes.hpp"

using namespace cuzk;

namespace {

template <class P>
void bingcd_inv(const uint8_t* a, uint8_t* out, uint64_t n) {
  using F = mont_t<P>;
  constexpr int N = int(2 * P::n);
  uint32_t m[N];
  std::memcpy(m, P::p, sizeof m);
  const F r3 = F::from_raw(P::r2) * F::from_raw(P::r2);  // R^3 as a Montgomery product of R^2 images
  for (uint64_t i = 0; i < n; i++) {
    F x = F::load(a + sizeof(F) * i), y;
    require(is_canonical(x), "cuzk_debug_bingcd_inv: an input is not below p");
    bingcd::invert<N>(reinterpret_cast<uint32_t*>(y.l), reinterpret_cast<const uint32_t*>(x.l), m,
                      uint32_t(P::m0), bingcd::modulus_bits<P>());
    (y * r3).store(out + sizeof(F) * i);
  }
}

template <class G>
void affine_lanes_run(const uint8_t* pts, uint64_t npts, const uint32_t* keys, const uint32_t* vals, uint64_t E,
                      uint32_t L, uint32_t T, uint32_t lanes, uint8_t* buckets, uint64_t nbuckets,
                      uint8_t* heads, uint8_t* tails) {
  using A = affine_t<G>;
  using X = xyzz_t<G>;
  std::vector<A> p(npts);
  if (npts) std::memcpy(p.data(), pts, npts * sizeof(A));
  for (const A& q : p) require(q.is_canonical(), "cuzk_debug_affine_lanes: a coordinate is not below p");
  for (uint64_t i = 0; i < E; i++) {
    require(keys[i] < nbuckets, "cuzk_debug_affine_lanes: a key is not below nbuckets");
    require((vals[i] & ~affine_lanes::sign_bit) < npts, "cuzk_debug_affine_lanes: a point index is not below npts");
  }
  const uint64_t chunks = uint64_t(lanes) * T;
  std::vector<X> b(nbuckets), h(chunks), t(chunks);
  std::memcpy(b.data(), buckets, nbuckets * sizeof(X));
  std::memcpy(h.data(), heads, chunks * sizeof(X));
  std::memcpy(t.data(), tails, chunks * sizeof(X));
  affine_lanes::io_t<A, X> io{p.data(), keys, vals, uint32_t(E), L, T, lanes, b.data(), h.data(), t.data()};
  using F = typename G::field_t;
  for (uint32_t i = 0; i < T; i++) affine_lanes::run_thread<F, affine_lanes::lanes_max>(i, io);
  std::memcpy(buckets, b.data(), nbuckets * sizeof(X));
  std::memcpy(heads, h.data(), chunks * sizeof(X));
  std::memcpy(tails, t.data(), chunks * sizeof(X));
}

}  // namespace

extern "C" {

CUZK_API cuzk_status cuzk_debug_bingcd_inv(int32_t field, const uint8_t* a, uint8_t* out, uint64_t n,
                                           cuzk_error* err) {
  return guard([&] {
    require(n == 0 || (a && out), "cuzk_debug_bingcd_inv: a or out is NULL");
    switch (field) {
      case 0: return bingcd_inv<bn254_fq_params>(a, out, n);
      case 1: return bingcd_inv<bn254_fr_params>(a, out, n);
      case 2: return bingcd_inv<bls12_381_fq_params>(a, out, n);
      case 3: return bingcd_inv<bls12_381_fr_params>(a, out, n);
      default: require(false, "cuzk_debug_bingcd_inv: unknown field");
    }
  }, err);
}

CUZK_API cuzk_status cuzk_debug_affine_lanes(int32_t curve, int32_t group, const uint8_t* pts, uint64_t npts,
                                             const uint32_t* keys, const uint32_t* vals, uint64_t E, uint32_t L,
                                             uint32_t T, uint32_t lanes, uint8_t* buckets, uint64_t nbuckets,
                                             uint8_t* heads, uint8_t* tails, cuzk_error* err) {
  return guard([&] {
    require(lanes >= 1 && lanes <= uint32_t(affine_lanes::lanes_max), "cuzk_debug_affine_lanes: lanes must be 1..64");
    require(T >= 1 && L >= 1 && E < (uint64_t(1) << 31), "cuzk_debug_affine_lanes: T and L must be >= 1, E < 2^31");
    require(uint64_t(lanes) * T * L >= E, "cuzk_debug_affine_lanes: lanes·T·L must cover the E pairs");
    require((npts == 0 || pts) && (E == 0 || (keys && vals)) && (nbuckets == 0 || buckets) && heads && tails,
            "cuzk_debug_affine_lanes: a buffer is NULL");
    if (curve == CUZK_CURVE_BN254 && group == CUZK_G1)
      affine_lanes_run<bn254_g1_params>(pts, npts, keys, vals, E, L, T, lanes, buckets, nbuckets, heads, tails);
    else if (curve == CUZK_CURVE_BN254 && group == CUZK_G2)
      affine_lanes_run<bn254_g2_params>(pts, npts, keys, vals, E, L, T, lanes, buckets, nbuckets, heads, tails);
    else if (curve == CUZK_CURVE_BLS12_381 && group == CUZK_G1)
      affine_lanes_run<bls12_381_g1_params>(pts, npts, keys, vals, E, L, T, lanes, buckets, nbuckets, heads, tails);
    else if (curve == CUZK_CURVE_BLS12_381 && group == CUZK_G2)
      affine_lanes_run<bls12_381_g2_params>(pts, npts, keys, vals, E, L, T, lanes, buckets, nbuckets, heads, tails);
    else
      require(false, "cuzk_debug_affine_lanes: unknown curve or group");
  }, err);
}

}  // extern "C"
