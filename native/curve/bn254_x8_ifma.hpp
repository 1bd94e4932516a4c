// Eight BN254 points at once in AVX-512 IFMA lanes (field/mont_ifma.hpp): vf<D>, an 8-lane element
// of Fq (D = 1) or Fq2 = Fq[u]/(u^2 + 1) (D = 2), its operations, and eight affine points (LEM rows)
// loaded into lanes and stored back. Shared by the batch-affine flush (msm/batch_affine_ifma.cpp)
// and the load-time point checks (curve/on_curve_ifma.cpp). Host x86-64 only, under CUZK_IFMA.
#pragma once
#include "../curve/bn254.hpp"
#include "../field/mont_ifma.hpp"

#ifdef CUZK_IFMA
namespace cuzk {
namespace x8 {
using fe8 = ifma::fe8_t<bn254_fq_params>;
using fq = bn254_fq_t;

// An 8-lane element of Fq (D = 1) or Fq2 = Fq[u]/(u^2 + 1) (D = 2: c[0] + c[1]·u).
template <int D>
struct vf {
  fe8 c[D];
};

template <int D>
CUZK_IFMA_INLINE vf<D> add(const vf<D>& a, const vf<D>& b) {
  vf<D> r;
  for (int d = 0; d < D; d++) r.c[d] = ifma::add(a.c[d], b.c[d]);
  return r;
}
template <int D>
CUZK_IFMA_INLINE vf<D> sub(const vf<D>& a, const vf<D>& b) {
  vf<D> r;
  for (int d = 0; d < D; d++) r.c[d] = ifma::sub(a.c[d], b.c[d]);
  return r;
}
CUZK_IFMA_INLINE vf<1> mul(const vf<1>& a, const vf<1>& b) { return {{ifma::mul(a.c[0], b.c[0])}}; }
CUZK_IFMA_INLINE vf<1> sqr(const vf<1>& a) { return {{ifma::mul(a.c[0], a.c[0])}}; }
// Karatsuba with two reductions (ifma::fp2_mul)
CUZK_IFMA_INLINE vf<2> mul(const vf<2>& a, const vf<2>& b) {
  vf<2> r;
  ifma::fp2_mul(a.c[0], a.c[1], b.c[0], b.c[1], r.c[0], r.c[1]);
  return r;
}
// (a0 + a1·u)^2 = (a0 + a1)(a0 - a1) + 2·a0·a1·u, 2M
CUZK_IFMA_INLINE vf<2> sqr(const vf<2>& a) {
  fe8 t = ifma::mul(a.c[0], a.c[1]);
  return {{ifma::mul(ifma::add(a.c[0], a.c[1]), ifma::sub(a.c[0], a.c[1])), ifma::add(t, t)}};
}

// Component d of a scalar element (for lane extraction).
inline fq& comp(fq& f, int) { return f; }
inline fq& comp(fp2_t<fq>& f, int d) { return d ? f.c1 : f.c0; }

// Lanes to eight scalar elements (reduced below p) and back: the rare paths and the inversion.
template <int D, class F>
CUZK_IFMA_INLINE void to_scalars(const vf<D>& v, F* out) {
  alignas(64) uint64_t t[4][8];
  for (int d = 0; d < D; d++) {
    __m512i x[4];
    ifma::to_u64x4(v.c[d], x);
    for (int j = 0; j < 4; j++) _mm512_store_si512(t[j], x[j]);
    for (int k = 0; k < 8; k++)
      for (int j = 0; j < 4; j++) comp(out[k], d).l[j] = t[j][k];
  }
}
template <int D, class F>
CUZK_IFMA_INLINE vf<D> from_scalars(F* in) {
  alignas(64) uint64_t t[4][8];
  vf<D> v;
  for (int d = 0; d < D; d++) {
    for (int k = 0; k < 8; k++)
      for (int j = 0; j < 4; j++) t[j][k] = comp(in[k], d).l[j];
    __m512i x[4];
    for (int j = 0; j < 4; j++) x[j] = _mm512_load_si512(t[j]);
    v.c[d] = ifma::from_u64x4<bn254_fq_params>(x);
  }
  return v;
}

// Eight affine points (D 64-byte rows each: x then y) into lane form. Row r of a point holds
// Fq components 2r and 2r + 1 in the order x.c0 [x.c1] y.c0 [y.c1]; |xw| gets the 4D 64-bit words
// of the x coordinates (row 0), for the equality test.
template <int D>
CUZK_IFMA_INLINE void load_points(const void* const* pts, vf<D>& x, vf<D>& y, __m512i* xw) {
  for (int r = 0; r < D; r++) {
    __m512i w[8];
    for (int k = 0; k < 8; k++) w[k] = _mm512_loadu_si512(static_cast<const char*>(pts[k]) + 64 * r);
    ifma::transpose8(w);
    if (r == 0)
      for (int c = 0; c < 4 * D; c++) xw[c] = w[c];
    for (int h = 0; h < 2; h++) {
      int q = 2 * r + h;
      vf<D>& v = q < D ? x : y;
      v.c[q % D] = ifma::from_u64x4<bn254_fq_params>(w + 4 * h);
    }
  }
}
// The reverse, writing only the points of lanes in |keep|.
template <int D>
CUZK_IFMA_INLINE void store_points(void* const* pts, __mmask8 keep, const vf<D>& x, const vf<D>& y) {
  for (int r = 0; r < D; r++) {
    __m512i w[8];
    for (int h = 0; h < 2; h++) {
      int q = 2 * r + h;
      ifma::to_u64x4((q < D ? x : y).c[q % D], w + 4 * h);
    }
    ifma::transpose8(w);
    for (int k = 0; k < 8; k++)
      if (keep >> k & 1) _mm512_storeu_si512(static_cast<char*>(pts[k]) + 64 * r, w[k]);
  }
}

}  // namespace x8
}  // namespace cuzk
#endif
