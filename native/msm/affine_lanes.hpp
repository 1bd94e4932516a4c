// Batch-affine bucket accumulation, one thread's share, written once for the device kernel
// (msm/accumulate_affine.cuh) and the host (a debug hook runs it over every thread index, so tests
// check this text against plain bucket sums without a GPU).
//
// An affine addition P + Q costs an inversion + 2M + 1S (lambda = dy/dx, x3, y3) against the mixed
// XYZZ addition's 8M + 2S; with Montgomery's trick one inversion serves the additions a thread makes
// per step, for 3M each, so an addition costs 5M + 1S + an inversion's share.
//
// Thread t of T runs |lanes| chunks in lock-step (chunk c = k·T + t for lane k): per step each lane
// takes its next sorted (bucket, point|sign) pair, and the lanes whose pair adds to their running sum
// multiply their denominators into one running product (forward); it is inverted once and going back
// over the lanes peels each lane's inverse off it. Chunks, heads, tails are those of the XYZZ
// accumulation (chunk c is pairs [c·L, c·L + L); a run that began in an earlier chunk goes to
// heads[c], one that goes on into the next to tails[c], the join adds them), and a run's sum leaves
// as an XYZZ point with ZZ = ZZZ = 1, so the rest of the MSM is unchanged. Equal x: a doubling
// (denominator 2y, numerator 3x^2, then the same x3 and y3 formulas) or, for P + (-P), infinity;
// infinity points are skipped, and a sum at infinity takes the next point as it is.
#pragma once
#include <cstddef>
#include <cstdint>

#include "../util/unroll.hpp"

#ifdef __CUDACC__
#define CUZK_LANES_FN __device__ __forceinline__
#else
#define CUZK_LANES_FN inline
#endif

namespace cuzk {
namespace affine_lanes {

constexpr int lanes_max = 64;  // the most any build of run_thread holds (its KMAX)
constexpr uint32_t sign_bit = 1u << 31;

// Lane flags.
enum : uint8_t { active = 1, at_inf = 2, first_run = 4, from_before = 8, adds = 16, dbls = 32 };

// A: affine point type (x, y, is_inf()), X: XYZZ point type (X, Y, ZZ, ZZZ, infinity()).
template <class A, class X>
struct io_t {
  const A* pts;
  const uint32_t *keys, *vals;
  uint32_t E, L, T, lanes;  // pairs, chunk length, threads, lanes per thread (<= run_thread's KMAX)
  X *buckets, *heads, *tails;
};

template <class F, class X>
CUZK_LANES_FN X as_xyzz(const F& x, const F& y, bool inf) {
  if (inf) return X::infinity();
  return X{x, y, F::one(), F::one()};
}

// One pair of a lane at a step: whether the lane has one, its bucket, its point|sign and the point.
template <class A>
struct pair_t {
  bool ok;
  uint32_t key, v;
  A q;
};

// KMAX: the lanes its local arrays hold (io.lanes <= KMAX). Each lane loads its pair when it comes to
// it: loading one lane ahead lost on the H200 in every case timed (the loads' registers cost more than
// the latency they hid: BN254 G2 2^24 262.9 ms against 249.9, 32 lanes; H200, 2026-12-01).
template <class F, int KMAX, class A, class X>
CUZK_LANES_FN void run_thread(uint32_t t, const io_t<A, X>& io) {
  static_assert(KMAX >= 1 && KMAX <= lanes_max, "KMAX lanes");
  const uint32_t T = io.T, E = io.E, L = io.L;
  F ax[KMAX], ay[KMAX], pre[KMAX];  // per-lane sums and prefix products (local memory)
  uint32_t cur[KMAX];
  uint8_t st[KMAX];
  uint32_t busy = 0;  // lanes with a chunk
CUZK_UNROLL_N(1)
  for (uint32_t k = 0; k < io.lanes; k++) {
    size_t b = size_t(k * T + t) * L;
    st[k] = 0;
    if (b >= E) continue;
    busy = k + 1;
    st[k] = active | at_inf | first_run | (b > 0 && io.keys[b - 1] == io.keys[b] ? from_before : 0);
    cur[k] = io.keys[b];
  }
  // a finished run's sum: to heads[c] when it is the chunk's first run and began before it, else its bucket
  auto flush = [&](uint32_t k, uint8_t& s) {
    X r = as_xyzz<F, X>(ax[k], ay[k], s & at_inf);
    if ((s & first_run) && (s & from_before)) io.heads[k * T + t] = r;
    else io.buckets[cur[k]] = r;
    s &= uint8_t(~first_run);
  };
CUZK_UNROLL_N(1)
  for (uint32_t j = 0; j < L; j++) {
    F prod = F::one();
    bool any = false;
    auto fetch = [&](uint32_t k) {
      pair_t<A> r;
      size_t p = size_t(k * T + t) * L + j;
      r.ok = (st[k] & active) && p < E;
      if (r.ok) {
        r.key = io.keys[p];
        r.v = io.vals[p];
        r.q = io.pts[r.v & ~sign_bit];
      }
      return r;
    };
CUZK_UNROLL_N(1)
    for (uint32_t k = 0; k < busy; k++) {
      uint8_t s = st[k] & uint8_t(~(adds | dbls));
      const pair_t<A> cp = fetch(k);
      if (cp.ok) {
        const uint32_t key = cp.key, v = cp.v;
        if (key != cur[k]) {
          flush(k, s);
          cur[k] = key;
          s |= at_inf;
        }
        const A& q = cp.q;
        if (!q.is_inf()) {
          F y = (v & sign_bit) ? -q.y : q.y;
          if (s & at_inf) {
            ax[k] = q.x;
            ay[k] = y;
            s &= uint8_t(~at_inf);
          } else {
            F d = q.x - ax[k];
            if (!d.is_zero()) {
              s |= adds;
            } else {
              F y0 = ay[k];
              if (y == y0 && !y0.is_zero()) d = y0.dbl(), s |= dbls;
              else s |= at_inf;  // P + (-P)
            }
            if (s & (adds | dbls)) {
              pre[k] = prod;
              prod = prod * d;
              any = true;
            }
          }
        }
      }
      st[k] = s;
    }
    if (!any) continue;
    F inv = prod.inv();
    // the pair's point again (cheaper than keeping d, num and x in local memory)
    auto refetch = [&](uint32_t k) {
      pair_t<A> r;
      r.ok = st[k] & adds;
      if (r.ok) {
        r.v = io.vals[size_t(k * T + t) * L + j];
        r.q = io.pts[r.v & ~sign_bit];
      }
      return r;
    };
CUZK_UNROLL_N(1)
    for (uint32_t k = busy; k-- > 0;) {
      uint8_t s = st[k];
      const pair_t<A> cp = refetch(k);
      if (!(s & (adds | dbls))) continue;
      F x0 = ax[k], y0 = ay[k], d, num, x1;
      if (s & adds) {
        const uint32_t v = cp.v;
        const A& q = cp.q;
        d = q.x - x0;
        num = ((v & sign_bit) ? -q.y : q.y) - y0;
        x1 = q.x;
      } else {
        F xx = x0.sqr();
        d = y0.dbl();
        num = xx.dbl() + xx;
        x1 = x0;
      }
      F ik = inv * pre[k];  // 1/d
      inv = inv * d;
      F lam = num * ik;
      F x3 = lam.sqr() - x0 - x1;
      ay[k] = lam * (x0 - x3) - y0;
      ax[k] = x3;
    }
  }
  // the last run: to tails[c] when it goes on into the next chunk
CUZK_UNROLL_N(1)
  for (uint32_t k = 0; k < busy; k++) {
    uint8_t s = st[k];
    if (!(s & active)) continue;
    size_t c = size_t(k * T + t), e = c * L + L < E ? c * L + L : E;
    if (e < E && io.keys[e] == io.keys[e - 1]) io.tails[c] = as_xyzz<F, X>(ax[k], ay[k], s & at_inf);
    else flush(k, s);
  }
}

}  // namespace affine_lanes
}  // namespace cuzk
