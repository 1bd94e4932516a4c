// affine_buckets_t::flush (batch_affine.hpp) for BN254 G1 and G2 on eight additions at a time, with
// the 8-lane IFMA field of field/mont_ifma.hpp: the same formulas, the same special cases, the same
// (fully reduced) bucket contents as the scalar flush. Element i of the batch is lane i mod 8 of
// step i / 8, so Montgomery's trick runs as eight interleaved product chains, joined by one scalar
// batch inversion of their eight products.
//   forward:  d_i = x2 - x1, pre_i = prod of the earlier d of its lane
//   backward: 1/d_i = inv·pre_i, inv *= d_i; l = (y2 - y1)/d_i, x3 = l^2 - x1 - x2, y3 = l(x1 - x3) - y1
// Points come in as 64-byte rows (x limbs, then y; G2: two rows) and are transposed into limb
// vectors; lanes whose x are equal (P + P or P + (-P): rare) take the scalar formula.
// BLS12-381 (6 limbs) keeps the scalar flush.
#include "batch_affine.hpp"

#include <algorithm>

#include "../curve/bn254.hpp"
#include "../curve/bn254_x8_ifma.hpp"
#include "../field/mont_ifma.hpp"

// gcc 12's AVX-512 intrinsics start some results from _mm512_undefined_* (a self-initialised
// variable), which -W(maybe-)uninitialized reports once they are inlined here: a false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace cuzk {
#ifdef CUZK_IFMA
bool ifma_flush_enabled() { return ifma::enabled; }

namespace {
using namespace x8;

template <class A>
inline void prefetch_rw(const A& a) {
  for (size_t o = 0; o < sizeof(A); o += 64) __builtin_prefetch(reinterpret_cast<const char*>(&a) + o, 1);
}

template <class G>
CUZK_IFMA_TARGET void flush8(affine_t<G>* bucket, uint8_t* full, const uint32_t* pend_b, const affine_t<G>* pend_p,
                             size_t n, std::vector<uint64_t, line_allocator<uint64_t>>& scratch) {
  using F = typename G::field_t;
  using A = affine_t<G>;
  constexpr int D = sizeof(F) / sizeof(fq);
  static_assert(sizeof(A) == 64 * D, "a point is D 64-byte rows");
  using V = vf<D>;
  struct step_t { V ax, ay, px, py, den, pre; };  // bucket (a) and point (p) of eight additions
  const size_t nsteps = (n + 7) / 8, step_words = nsteps * sizeof(step_t) / 8;
  if (scratch.size() < step_words + nsteps) scratch.resize(step_words + nsteps);
  step_t* st = reinterpret_cast<step_t*>(scratch.data());
  uint8_t* eqx = reinterpret_cast<uint8_t*>(scratch.data() + step_words);  // lanes with x1 = x2
  // lanes past n: d = 1 - 0, never written back
  alignas(64) A pad_a = A::infinity(), pad_p = {F::one(), F::zero()};
  // buckets are random accesses that often miss the cache: fetched 4 steps ahead
  constexpr size_t ahead = 32;

  F lane[8], tmp[8];
  for (auto& l : lane) l = F::one();
  V acc = from_scalars<D>(lane);
  for (size_t j = 0; j < nsteps; j++) {
    const size_t i0 = 8 * j;
    for (size_t i = i0 + ahead; i < std::min(n, i0 + ahead + 8); i++) prefetch_rw(bucket[pend_b[i]]);
    const A* ar[8];
    const A* pr[8];
    for (size_t k = 0; k < 8; k++) {
      bool in = i0 + k < n;
      ar[k] = in ? &bucket[pend_b[i0 + k]] : &pad_a;
      pr[k] = in ? &pend_p[i0 + k] : &pad_p;
    }
    step_t& s = st[j];
    __m512i aw[4 * D], pw[4 * D];
    load_points<D>(reinterpret_cast<const void* const*>(ar), s.ax, s.ay, aw);
    load_points<D>(reinterpret_cast<const void* const*>(pr), s.px, s.py, pw);
    __mmask8 eq = 0xff;
    for (int c = 0; c < 4 * D; c++) eq &= _mm512_cmpeq_epi64_mask(aw[c], pw[c]);
    s.den = sub(s.px, s.ax);
    if (eq) {  // as the scalar flush: 2y1 for P + P (then l = 3x1^2/(2y1)), 1 for P + (-P) (unused)
      to_scalars(s.den, tmp);
      for (int k = 0; k < 8; k++)
        if (eq >> k & 1) tmp[k] = pr[k]->y == ar[k]->y ? ar[k]->y.dbl() : F::one();
      s.den = from_scalars<D>(tmp);
    }
    eqx[j] = eq;
    s.pre = acc;
    acc = mul(acc, s.den);
  }
  to_scalars(acc, lane);  // the eight chains' products, inverted with one inversion
  tmp[0] = lane[0];
  for (int k = 1; k < 8; k++) tmp[k] = tmp[k - 1] * lane[k];
  F all = inv_public(tmp[7]);
  for (int k = 7; k > 0; k--) {
    F ik = all * tmp[k - 1];
    all = all * lane[k];
    lane[k] = ik;
  }
  lane[0] = all;
  V inv = from_scalars<D>(lane);
  for (size_t j = nsteps; j-- > 0;) {
    const size_t i0 = 8 * j, cnt = std::min<size_t>(8, n - i0);
    if (i0 >= ahead)
      for (size_t i = i0 - ahead; i < i0 - ahead + 8; i++) prefetch_rw(bucket[pend_b[i]]);
    const step_t& s = st[j];
    V di = mul(inv, s.pre);
    inv = mul(inv, s.den);
    V lam = mul(sub(s.py, s.ay), di);
    V x3 = sub(sub(sqr(lam), s.ax), s.px);
    V y3 = sub(mul(lam, sub(s.ax, x3)), s.ay);
    A* out[8];
    for (size_t k = 0; k < 8; k++) out[k] = k < cnt ? &bucket[pend_b[i0 + k]] : &pad_a;
    __mmask8 eq = eqx[j];
    store_points<D>(reinterpret_cast<void* const*>(out), __mmask8(((1u << cnt) - 1) & ~eq), x3, y3);
    if (!eq) continue;
    to_scalars(di, tmp);
    for (size_t k = 0; k < cnt; k++) {
      if (!(eq >> k & 1)) continue;
      A& a = *out[k];
      const A& p = pend_p[i0 + k];
      if (p.y != a.y) { full[pend_b[i0 + k]] = 0; continue; }
      F xx = a.x.sqr();
      F l = (xx.dbl() + xx) * tmp[k];
      F x = l.sqr() - a.x - p.x;
      a.y = l * (a.x - x) - a.y;
      a.x = x;
    }
  }
}
// ---- the window's bucket sum: sum_b (b + 1)·B_b by running sums, in eight segments at once ----
// Lane k walks buckets [kL, kL + L) downwards: run_k += B_b (mixed XYZZ addition), acc_k += run_k,
// so acc_k = sum (b - kL + 1)·B_b and run_k = sum B_b over its segment; then
// sum_b (b + 1)·B_b = sum_k acc_k + L·sum_k k·run_k, the last few additions on the scalar path.
// Infinity is a lane mask; lanes whose addition meets equal x (doubling or opposite points) redo it
// with the scalar formula.
template <int D>
struct vxyzz {
  vf<D> X, Y, ZZ, ZZZ;
};

template <int D>
CUZK_IFMA_INLINE vf<D> blend(__mmask8 m, const vf<D>& a, const vf<D>& b) {  // b in the lanes of m
  vf<D> r;
  for (int d = 0; d < D; d++)
    for (int j = 0; j < 5; j++) r.c[d].l[j] = _mm512_mask_blend_epi64(m, a.c[d].l[j], b.c[d].l[j]);
  return r;
}
template <int D>
CUZK_IFMA_INLINE vxyzz<D> blend(__mmask8 m, const vxyzz<D>& a, const vxyzz<D>& b) {
  return {blend(m, a.X, b.X), blend(m, a.Y, b.Y), blend(m, a.ZZ, b.ZZ), blend(m, a.ZZZ, b.ZZZ)};
}
// lanes where a = 0 mod p (a < 2p: 0 or p)
template <int D>
CUZK_IFMA_INLINE __mmask8 zero_lanes(const vf<D>& a) {
  __mmask8 z = 0xff;
  for (int d = 0; d < D; d++) {
    fe8 t = a.c[d];
    ifma::select_sub(t.l, ifma::consts<bn254_fq_params>::p);
    __m512i o = _mm512_or_si512(_mm512_or_si512(t.l[0], t.l[1]), _mm512_or_si512(_mm512_or_si512(t.l[2], t.l[3]), t.l[4]));
    z &= _mm512_cmpeq_epi64_mask(o, _mm512_setzero_si512());
  }
  return z;
}

// p + (x, y), madd-2008-s (8M+2S), as xyzz_formulas.inc; |pd| = x·ZZ - X, zero for equal x.
template <int D>
CUZK_IFMA_INLINE vxyzz<D> madd(const vxyzz<D>& p, const vf<D>& x, const vf<D>& y, vf<D>& pd) {
  vf<D> S2 = mul(y, p.ZZZ), R = sub(S2, p.Y);
  pd = sub(mul(x, p.ZZ), p.X);
  vf<D> PP = sqr(pd), PPP = mul(pd, PP), Q = mul(p.X, PP);
  vxyzz<D> r;
  r.X = sub(sub(sqr(R), PPP), add(Q, Q));
  r.Y = sub(mul(R, sub(Q, r.X)), mul(p.Y, PPP));
  r.ZZ = mul(p.ZZ, PP);
  r.ZZZ = mul(p.ZZZ, PPP);
  return r;
}
// p + q, add-2008-s (12M+2S); |pd| = U2 - U1.
template <int D>
CUZK_IFMA_INLINE vxyzz<D> add(const vxyzz<D>& p, const vxyzz<D>& q, vf<D>& pd) {
  vf<D> U1 = mul(p.X, q.ZZ), U2 = mul(q.X, p.ZZ), S1 = mul(p.Y, q.ZZZ), S2 = mul(q.Y, p.ZZZ);
  pd = sub(U2, U1);
  vf<D> R = sub(S2, S1), PP = sqr(pd), PPP = mul(pd, PP), Q = mul(U1, PP);
  vxyzz<D> r;
  r.X = sub(sub(sqr(R), PPP), add(Q, Q));
  r.Y = sub(mul(R, sub(Q, r.X)), mul(S1, PPP));
  r.ZZ = mul(mul(p.ZZ, q.ZZ), PP);
  r.ZZZ = mul(mul(p.ZZZ, q.ZZZ), PPP);
  return r;
}

// Lanes to scalar points (infinity where |inf|) and back (the mask from ZZ = 0).
template <class G, int D>
CUZK_IFMA_INLINE void get_lanes(const vxyzz<D>& v, __mmask8 inf, xyzz_t<G>* out) {
  using F = typename G::field_t;
  F t[4][8];
  to_scalars(v.X, t[0]), to_scalars(v.Y, t[1]), to_scalars(v.ZZ, t[2]), to_scalars(v.ZZZ, t[3]);
  for (int k = 0; k < 8; k++) out[k] = inf >> k & 1 ? xyzz_t<G>::infinity() : xyzz_t<G>{t[0][k], t[1][k], t[2][k], t[3][k]};
}
template <class G, int D>
CUZK_IFMA_INLINE vxyzz<D> set_lanes(const xyzz_t<G>* in, __mmask8& inf) {
  using F = typename G::field_t;
  F t[4][8];
  inf = 0;
  for (int k = 0; k < 8; k++) {
    t[0][k] = in[k].X, t[1][k] = in[k].Y, t[2][k] = in[k].ZZ, t[3][k] = in[k].ZZZ;
    if (in[k].is_inf()) inf |= __mmask8(1u << k);
  }
  return {from_scalars<D>(t[0]), from_scalars<D>(t[1]), from_scalars<D>(t[2]), from_scalars<D>(t[3])};
}

template <class G>
CUZK_IFMA_TARGET xyzz_t<G> bucket_sum8(const affine_t<G>* bucket, const uint8_t* full, size_t nb) {
  using F = typename G::field_t;
  using A = affine_t<G>;
  using X = xyzz_t<G>;
  constexpr int D = sizeof(F) / sizeof(fq);
  using V = vf<D>;
  using P = vxyzz<D>;
  const size_t L = (nb + 7) / 8;
  alignas(64) A pad = A::infinity();
  F ones[8];
  for (auto& o : ones) o = F::one();
  const V one = from_scalars<D>(ones);
  P run = {one, one, one, one}, acc = run;  // any value: every lane starts as infinity
  __mmask8 run_inf = 0xff, acc_inf = 0xff;
  X s[8], q[8];
  for (size_t t = L; t-- > 0;) {
    const A* rows[8];
    __mmask8 m = 0;
    for (size_t k = 0; k < 8; k++) {
      size_t b = k * L + t;
      bool in = b < nb && full[b];
      rows[k] = in ? &bucket[b] : &pad;
      m |= __mmask8(in ? 1u << k : 0u);
      if (t >= 8 && b - 8 < nb) prefetch_rw(bucket[b - 8]);
    }
    if (m) {  // run += B for the lanes whose bucket is full
      V x, y, pd;
      __m512i xw[4 * D];
      load_points<D>(reinterpret_cast<const void* const*>(rows), x, y, xw);
      P r = madd(run, x, y, pd);
      __mmask8 fresh = m & run_inf, eq = m & ~run_inf & zero_lanes(pd);
      run = blend(__mmask8(m & ~run_inf & ~eq), run, r);
      run = blend(fresh, run, P{x, y, one, one});
      run_inf &= __mmask8(~m);
      if (eq) {
        get_lanes<G>(run, run_inf, s);
        for (int k = 0; k < 8; k++)
          if (eq >> k & 1) s[k].add_affine(rows[k]->x, rows[k]->y, false);
        run = set_lanes<G, D>(s, run_inf);
      }
    }
    __mmask8 live = __mmask8(~run_inf);
    if (!live) continue;
    V pd;  // acc += run
    P r = add(acc, run, pd);
    __mmask8 eq = live & ~acc_inf & zero_lanes(pd);
    acc = blend(__mmask8(live & ~acc_inf & ~eq), acc, r);
    acc = blend(__mmask8(live & acc_inf), acc, run);
    acc_inf &= __mmask8(~live);
    if (eq) {
      get_lanes<G>(acc, acc_inf, s);
      get_lanes<G>(run, run_inf, q);
      for (int k = 0; k < 8; k++)
        if (eq >> k & 1) s[k].add(q[k]);
      acc = set_lanes<G, D>(s, acc_inf);
    }
  }
  get_lanes<G>(acc, acc_inf, s);
  get_lanes<G>(run, run_inf, q);
  X total = X::infinity(), suffix = X::infinity(), weighted = X::infinity();
  for (int k = 0; k < 8; k++) total.add(s[k]);
  for (int k = 7; k > 0; k--) {  // weighted = sum_k k·run_k
    suffix.add(q[k]);
    weighted.add(suffix);
  }
  X lw = X::infinity();  // L·weighted
  for (int bit = 63 - __builtin_clzll(L); bit >= 0; bit--) {
    lw = lw.dbl();
    if (L >> bit & 1) lw.add(weighted);
  }
  total.add(lw);
  return total;
}
}  // namespace

template <>
xyzz_t<bn254::g1> ifma_bucket_sum<bn254::g1>(const affine_t<bn254::g1>* bucket, const uint8_t* full, size_t n) {
  return bucket_sum8<bn254::g1>(bucket, full, n);
}
template <>
xyzz_t<bn254::g2> ifma_bucket_sum<bn254::g2>(const affine_t<bn254::g2>* bucket, const uint8_t* full, size_t n) {
  return bucket_sum8<bn254::g2>(bucket, full, n);
}

template <>
void ifma_flush<bn254::g1>(affine_t<bn254::g1>* bucket, uint8_t* full, const uint32_t* pend_b,
                           const affine_t<bn254::g1>* pend_p, size_t n,
                           std::vector<uint64_t, line_allocator<uint64_t>>& scratch) {
  flush8<bn254::g1>(bucket, full, pend_b, pend_p, n, scratch);
}
template <>
void ifma_flush<bn254::g2>(affine_t<bn254::g2>* bucket, uint8_t* full, const uint32_t* pend_b,
                           const affine_t<bn254::g2>* pend_p, size_t n,
                           std::vector<uint64_t, line_allocator<uint64_t>>& scratch) {
  flush8<bn254::g2>(bucket, full, pend_b, pend_p, n, scratch);
}
#endif
}  // namespace cuzk
