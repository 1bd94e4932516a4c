// Affine MSM buckets filled by batched affine additions: pending additions (at most one per bucket)
// share one field inversion (Montgomery's trick), so each costs 5M+1S plus 1/cap of an inversion,
// against 8M+2S for an XYZZ mixed addition (madd-2008-s). The technique of gnark-crypto's
// "batch affine" MSM (ecc/bn254/multiexp_affine.go).
#pragma once
#include <cstdint>
#include <vector>

#include "../curve/xyzz.hpp"

namespace cuzk {

template <class G>
class affine_buckets_t {
 public:
  using F = typename G::field_t;
  using A = affine_t<G>;

  affine_buckets_t(size_t nbuckets, size_t cap)
      : bucket_(nbuckets), full_(nbuckets, 0), stamp_(nbuckets, 0), cap_(cap) {
    pend_b_.reserve(cap);
    pend_p_.reserve(cap);
    den_.resize(cap);
    pre_.resize(cap);
  }

  // bucket[b] += p. Returns false, doing nothing, when bucket b already has a pending addition.
  bool add(uint32_t b, const A& p) {
    if (stamp_[b] == gen_) return false;
    if (!full_[b]) {
      bucket_[b] = p;
      full_[b] = 1;
      return true;
    }
    stamp_[b] = gen_;
    pend_b_.push_back(b);
    pend_p_.push_back(p);
    if (pend_b_.size() == cap_) flush();
    return true;
  }

  size_t pending() const { return pend_b_.size(); }
  bool full(size_t b) const { return full_[b] != 0; }
  const A& operator[](size_t b) const { return bucket_[b]; }

  // Runs the pending additions: x3 = l^2 - x1 - x2, y3 = l(x1 - x3) - y1 with l = (y2 - y1)/(x2 - x1),
  // or l = 3x1^2/(2y1) when the points are equal; opposite points empty the bucket.
  void flush() {
    size_t n = pend_b_.size();
    if (n == 0) return;
    F acc = F::one();
    for (size_t i = 0; i < n; i++) {
      const A& a = bucket_[pend_b_[i]];
      const A& p = pend_p_[i];
      F d = p.x - a.x;
      if (d.is_zero()) d = p.y == a.y ? a.y.dbl() : F::one();
      den_[i] = d;
      pre_[i] = acc;
      acc *= d;
    }
    F inv = acc.inv();
    for (size_t i = n; i-- > 0;) {
      F di = inv * pre_[i];
      inv *= den_[i];
      uint32_t b = pend_b_[i];
      A& a = bucket_[b];
      const A& p = pend_p_[i];
      F lam;
      if (p.x == a.x) {
        if (p.y != a.y) { full_[b] = 0; continue; }
        F xx = a.x.sqr();
        lam = (xx.dbl() + xx) * di;
      } else {
        lam = (p.y - a.y) * di;
      }
      F x3 = lam.sqr() - a.x - p.x;
      a.y = lam * (a.x - x3) - a.y;
      a.x = x3;
    }
    pend_b_.clear();
    pend_p_.clear();
    gen_++;
  }

 private:
  std::vector<A> bucket_;
  std::vector<uint8_t> full_;
  std::vector<uint32_t> stamp_;  // == gen_: the bucket has a pending addition in this batch
  uint32_t gen_ = 1;
  size_t cap_;
  std::vector<uint32_t> pend_b_;
  std::vector<A> pend_p_;
  std::vector<F> den_, pre_;
};

}  // namespace cuzk
