// Affine MSM buckets filled by batched affine additions: pending additions (at most one per bucket)
// share one field inversion (Montgomery's trick), so each costs 5M+1S plus 1/cap of an inversion,
// against 8M+2S for an XYZZ mixed addition (madd-2008-s). The technique of gnark-crypto's
// "batch affine" MSM (ecc/bn254/multiexp_affine.go).
#pragma once
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

#include "../curve/xyzz.hpp"
#include "../field/bn254.hpp"
#include "../field/fp2.hpp"
#include "../field/inv_divsteps.hpp"

namespace cuzk {

// Cache-line aligned storage: a 64-byte G1 bucket then fills one line, not two (malloc's 16-byte
// alignment put every bucket across a line boundary: twice the misses on its random accesses).
template <class T>
struct line_allocator {
  using value_type = T;
  line_allocator() = default;
  template <class U>
  line_allocator(const line_allocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <class U>
  bool operator==(const line_allocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const line_allocator<U>&) const { return false; }
};

// The flush on eight additions at once with AVX-512 IFMA (batch_affine_ifma.cpp), and the window's
// bucket sum: BN254 G1 and G2 on x86-64, used where the CPU has IFMA (ifma_flush_enabled(): cpuid,
// CUZK_NO_IFMA=1 turns both off).
template <class F>
constexpr bool ifma_field = false;
#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
template <>
constexpr bool ifma_field<bn254_fq_t> = true;
template <>
constexpr bool ifma_field<fp2_t<bn254_fq_t>> = true;
#endif
bool ifma_flush_enabled();
template <class G>
void ifma_flush(affine_t<G>* bucket, uint8_t* full, const uint32_t* pend_b, const affine_t<G>* pend_p, size_t n,
                std::vector<uint64_t, line_allocator<uint64_t>>& scratch);

// sum_b (b + 1)·bucket[b] over the full buckets of |n| (the window's running sums), on eight lanes.
template <class G>
xyzz_t<G> ifma_bucket_sum(const affine_t<G>* bucket, const uint8_t* full, size_t n);

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

  // bucket[b] += (neg ? -p : p). Returns false, doing nothing, when bucket b already has a pending
  // addition (the point is then neither copied nor negated).
  bool add(uint32_t b, const A& p, bool neg) {
    if (stamp_[b] == gen_) return false;
    if (!full_[b]) {
      bucket_[b] = p;
      if (neg) bucket_[b].y = -p.y;
      full_[b] = 1;
      return true;
    }
    stamp_[b] = gen_;
    pend_b_.push_back(b);
    pend_p_.push_back(p);
    if (neg) pend_p_.back().y = -p.y;
    if (pend_b_.size() == cap_) flush();
    return true;
  }

  size_t pending() const { return pend_b_.size(); }
  bool full(size_t b) const { return full_[b] != 0; }
  const A& operator[](size_t b) const { return bucket_[b]; }
  const A* data() const { return bucket_.data(); }
  const uint8_t* full_data() const { return full_.data(); }

  // Runs the pending additions: x3 = l^2 - x1 - x2, y3 = l(x1 - x3) - y1 with l = (y2 - y1)/(x2 - x1),
  // or l = 3x1^2/(2y1) when the points are equal; opposite points empty the bucket.
  void flush() {
    size_t n = pend_b_.size();
    if (n == 0) return;
    if constexpr (ifma_field<F>) {
      if (ifma_flush_enabled()) {
        ifma_flush<G>(bucket_.data(), full_.data(), pend_b_.data(), pend_p_.data(), n, vscratch_);
        return next_batch();
      }
    }
    // Montgomery's trick on two interleaved chains (even and odd i): one chain's products wait on
    // each other (a multiply's latency is ~1.5x its issue interval), two keep the multiplier busy.
    F acc[2] = {F::one(), F::one()};
    // the buckets are random accesses that often miss the cache (a 2^13-bucket window is 256 KiB):
    // each loop fetches its bucket a few iterations ahead
    constexpr size_t ahead = 8;
    for (size_t i = 0; i < n; i++) {
      if (i + ahead < n) prefetch(bucket_[pend_b_[i + ahead]]);
      const A& a = bucket_[pend_b_[i]];
      const A& p = pend_p_[i];
      F d = p.x - a.x;
      if (d.is_zero()) d = p.y == a.y ? a.y.dbl() : F::one();
      den_[i] = d;
      pre_[i] = acc[i & 1];
      acc[i & 1] *= d;
    }
    F both = inv_public(acc[0] * acc[1]);
    F inv[2] = {both * acc[1], both * acc[0]};  // 1/acc[0], 1/acc[1]
    for (size_t i = n; i-- > 0;) {
      if (i >= ahead) prefetch(bucket_[pend_b_[i - ahead]]);
      F di = inv[i & 1] * pre_[i];
      inv[i & 1] *= den_[i];
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
    next_batch();
  }

 private:
  void next_batch() {
    pend_b_.clear();
    pend_p_.clear();
    gen_++;
  }
  static void prefetch(const A& a) {
    for (size_t o = 0; o < sizeof(A); o += 64) __builtin_prefetch(reinterpret_cast<const char*>(&a) + o, 1);
  }

  std::vector<A, line_allocator<A>> bucket_;
  std::vector<uint8_t> full_;
  std::vector<uint32_t> stamp_;  // == gen_: the bucket has a pending addition in this batch
  uint32_t gen_ = 1;
  size_t cap_;
  std::vector<uint32_t> pend_b_;
  std::vector<A> pend_p_;
  std::vector<F> den_, pre_;
  std::vector<uint64_t, line_allocator<uint64_t>> vscratch_;  // the IFMA flush's lanes
};

}  // namespace cuzk
