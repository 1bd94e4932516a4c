// Helpers of tools/gpu_selftest.cu: a seeded RNG, random canonical field elements, random points
// with known discrete logs (P_i = d_i·G, built as walks P += Q per 4096-point chunk, then one batch
// inversion), and medians. Known logs give an MSM oracle independent of any MSM code:
// sum s_i·P_i = (sum s_i·d_i mod r)·G.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "../curve/jacobian.hpp"
#include "../util/thread_pool.hpp"

namespace cuzk {
namespace selftest {

inline uint64_t& seed() {
  static uint64_t s = 0x5eed2026;
  return s;
}

template <class P>
void rand_field(mont_t<P>& r, std::mt19937_64& g) {
  uint64_t top = P::p[P::n - 1];
  unsigned bits = 64 - unsigned(__builtin_clzll(top));
  uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  do {
    for (size_t i = 0; i < P::n; i++) r.l[i] = g();
    r.l[P::n - 1] &= mask;
  } while (!mont_t<P>::lt_p(r.l));
}
template <class F>
void rand_field(fp2_t<F>& r, std::mt19937_64& g) {
  rand_field(r.c0, g);
  rand_field(r.c1, g);
}

// kind 0: zero, 1: one, 2: the raw limbs p - 1
template <class P>
void edge_field(mont_t<P>& r, int kind) {
  r = kind == 0 ? mont_t<P>::zero() : mont_t<P>::one();
  if (kind == 2) {
    for (size_t i = 0; i < P::n; i++) r.l[i] = P::p[i];
    r.l[0] -= 1;
  }
}
template <class F>
void edge_field(fp2_t<F>& r, int kind) {
  edge_field(r.c0, kind);
  edge_field(r.c1, kind == 1 ? 0 : kind);
}

template <class Fr>
void rand_scalar_bytes(uint8_t* out, std::mt19937_64& g) {
  Fr v;
  rand_field(v, g);
  std::memcpy(out, v.l, 32);  // a uniform canonical value, read as a standard-form integer
}

// n points with their logs; the point set is shared by prefixes (n_max generated once).
template <class C, class G>
struct point_set_t {
  using Fr = typename C::fr_t;
  std::vector<affine_t<G>> pts;
  std::vector<Fr> dlog;

  explicit point_set_t(size_t n) : pts(n), dlog(n) {
    using J = jacobian_t<G>;
    const size_t chunk = 4096, nch = (n + chunk - 1) / chunk;
    std::mt19937_64 g0(seed() ^ 0x9e3779b97f4a7c15ull);
    Fr q;
    rand_field(q, g0);
    uint64_t qs[4];
    q.to_std(qs);
    J gen = J::from_affine(G::generator());
    affine_t<G> qa = gen.mul(qs, 4).to_affine();
    thread_pool::global().parallel_for(nch, [&](size_t ch) {
      std::mt19937_64 g(seed() + 7919 * ch);
      size_t b = ch * chunk, len = std::min(chunk, n - b);
      Fr d;
      rand_field(d, g);
      uint64_t ks[4];
      d.to_std(ks);
      std::vector<J> js(len);
      std::vector<typename G::field_t> s1(len), s2(len);
      J p = gen.mul(ks, 4);
      for (size_t j = 0; j < len; j++) {
        js[j] = p;
        dlog[b + j] = d;
        p = p.add(qa);
        d = d + q;
      }
      batch_to_affine(js.data(), pts.data() + b, len, s1.data(), s2.data());
    });
  }

  // (sum s_i·d_i)·G for 32-byte standard scalars (any 256-bit value: load_std reduces mod r)
  affine_t<G> expected(const uint8_t* scalars, const std::vector<Fr>& logs, size_t n) const {
    const size_t chunk = 1 << 14, nch = (n + chunk - 1) / chunk;
    std::vector<Fr> part(nch, Fr::zero());
    thread_pool::global().parallel_for(nch, [&](size_t ch) {
      for (size_t i = ch * chunk; i < std::min(n, (ch + 1) * chunk); i++)
        part[ch] += Fr::load_std(scalars + 32 * i) * logs[i];
    });
    Fr e = Fr::zero();
    for (auto& v : part) e += v;
    uint64_t es[4];
    e.to_std(es);
    return jacobian_t<G>::from_affine(G::generator()).mul(es, 4).to_affine();
  }
};

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

inline double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace selftest
}  // namespace cuzk
