// CPU multi-scalar multiplication: Pippenger's bucket method with signed c-bit windows (digits in
// [-2^(c-1), 2^(c-1)], so 2^(c-1) buckets per window), digits recoded once per MSM; buckets are
// XYZZ (mixed additions) for small windows and batched affine (batch_affine.hpp) from 12 bits up.
// Scalars equal to 0 (and infinity points) are dropped and scalars equal to 1 are summed directly,
// because Groth16 witnesses are mostly 0/1. On BN254 G1, scalars over 127 bits are split by the GLV
// endomorphism (glv.hpp) into two of 127 bits: half the windows, half the bucket reductions
// (2^16 random scalars, 1 thread: 262 -> 239 ms). Tasks = windows x point ranges on thread_pool::global().
// Measured (2 threads of a 16-core H200 host, 2026-11-30, random scalars, BN254 Fq mul ~30 ns):
// BN254 G1 2^12/2^14/2^16 = 35/93/290 ms; BLS12-381 G2 2^16 = 2.5 s.
//
// API (cuzk_msm and the Groth16 prover call these):
//   template <class G> jacobian_t<G> msm_pippenger(const affine_t<G>* points, const uint8_t* scalars,
//                                                  size_t n, size_t scalar_stride = 32);
//     = sum_i k_i·points[i], k_i the 32-byte little-endian standard-form integer at
//     scalars + i·scalar_stride (any 256-bit value, not reduced mod r). Points: affine (Montgomery),
//     infinity allowed, on the curve. n < 2^32. Called inside a parallel region it runs inline.
//   template <class G> jacobian_t<G> msm_pippenger(const affine_t<G>* points,
//                                                  const uint8_t* const* scalar_ptrs, size_t n);
//     the same with k_i at scalar_ptrs[i].
#pragma once
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "../curve/bls12_381.hpp"
#include "../curve/bn254.hpp"
#include "../curve/xyzz.hpp"
#include "../util/thread_pool.hpp"
#include "batch_affine.hpp"
#include "glv.hpp"

namespace cuzk {
namespace msm_detail {

constexpr unsigned max_window = 15;        // int16 digits: |d| <= 2^14
constexpr size_t block_scalars = 1u << 20;  // digits for one block: <= 2^20 · nwin · 2 bytes (~36 MB)
constexpr size_t classify_chunk = 1u << 13;
// Batched affine buckets from this window size up: the batch (nbuckets/4 >= 512 additions) then
// amortises its inversion (~380M at 254 bits) to under 1M per addition. nbuckets/4 against /8 and
// /2: best of two noisy runs each (2 threads, BN254 G1 2^16: 227 vs 302 / 288 ms); all-XYZZ
// (-DCUZK_MSM_AFFINE_MIN_WINDOW=99) was 1.35x (BN254 G1) to 1.5x (BLS12-381 G2) slower.
#ifndef CUZK_MSM_AFFINE_MIN_WINDOW
#define CUZK_MSM_AFFINE_MIN_WINDOW 12
#endif
constexpr unsigned affine_min_window = CUZK_MSM_AFFINE_MIN_WINDOW;
constexpr size_t batch_div = 4;

struct strided_scalars {
  const uint8_t* p;
  size_t stride;
  void load(size_t i, uint64_t* k) const { std::memcpy(k, p + i * stride, 32); }
};
struct indirect_scalars {
  const uint8_t* const* p;
  void load(size_t i, uint64_t* k) const { std::memcpy(k, p[i], 32); }
};

// Bits [off, off + c) of the 256-bit |k| (k[4] must be 0); zero past bit 255.
inline uint32_t window_bits(const uint64_t* k, unsigned off, unsigned c) {
  unsigned li = off >> 6, sh = off & 63;
  if (li >= 4) return 0;
  uint64_t v = k[li] >> sh;
  if (sh + c > 64) v |= k[li + 1] << (64 - sh);
  return (uint32_t)v & ((1u << c) - 1);
}

// Signed recoding: raw window + carry in [0, 2^c]; above 2^(c-1) it becomes raw - 2^c with a carry
// into the next window. nwin·c >= nbits + 1 leaves no carry out of the top window.
inline void recode(const uint64_t* k, unsigned c, unsigned nwin, int16_t* out, size_t stride) {
  uint32_t carry = 0, half = 1u << (c - 1);
  for (unsigned w = 0; w < nwin; w++) {
    uint32_t raw = window_bits(k, w * c, c) + carry;
    carry = raw > half;
    out[w * stride] = (int16_t)((int32_t)raw - (int32_t)(carry << c));
  }
}

inline unsigned bit_length(const uint64_t* k) {
  for (unsigned i = 4; i-- > 0;)
    if (k[i]) return 64 * i + 64 - (unsigned)__builtin_clzll(k[i]);
  return 0;
}

struct plan_t {
  unsigned c, nwin, nsub;  // window bits, windows, point ranges per window
};

// Picks c and the number of point ranges by modelled makespan: tasks = nwin·nsub spread over
// |nthreads|, each costing m/nsub bucket additions plus the running-sum reduction over 2^(c-1)
// buckets. Unit = one XYZZ mixed addition (8M+2S); a general one (12M+2S) is ~1.4, a batched
// affine one ~0.7 (5M+1S plus its share of the inversion and bookkeeping); an affine bucket costs
// 3.0 to reduce (madd + add, plus its allocation and cache misses). Checked by sweeping c
// (2 threads, 2^16 points, 2026-11-30): best c = 12 for BN254 G1, 12-13 for BLS12-381 G2.
// |force_window| (benchmarks only; 0 = model) fixes c.
inline unsigned force_window = 0;

inline plan_t choose_plan(size_t m, unsigned nbits, size_t nthreads) {
  plan_t best{1, nbits + 1, 1};
  double best_cost = 1e300;
  size_t max_sub = nthreads > 1 ? 4 * nthreads : 1;
  for (unsigned c = 1; c <= max_window; c++) {
    if (force_window && c != force_window) continue;
    unsigned nwin = (nbits + 1 + c - 1) / c;
    bool affine = c >= affine_min_window;
    double per_point = affine ? 0.7 : 1.0, per_bucket = affine ? 3.0 : 2.8;
    for (size_t nsub = 1; nsub <= max_sub && nsub <= m; nsub++) {
      double task = per_point * (double)m / nsub + per_bucket * (double)(1u << (c - 1));
      double cost = (double)((nwin * nsub + nthreads - 1) / nthreads) * task;
      if (cost < best_cost) { best_cost = cost; best = {c, nwin, (unsigned)nsub}; }
    }
  }
  return best;
}

// Points of an MSM block by position k: points[idx[k]], or with the endomorphism, P = points[idx[k/2]]
// for even k and φ(P) = (β·x, y) for odd k (phix[k/2] = β·x: 32 bytes per point, not a copy of P).
// prefetch(k) asks for point k's lines ahead of its use: the points of a window pass are 2-8 MiB
// read in index order with gaps (the dropped 0/1 scalars), which the hardware prefetcher misses.
inline void prefetch_lines(const void* p, size_t bytes) {
  for (size_t o = 0; o < bytes; o += 64) __builtin_prefetch(static_cast<const char*>(p) + o);
}
template <class G>
struct direct_src {
  const affine_t<G>* points;
  const uint32_t* idx;
  const affine_t<G>& operator()(size_t k) const { return points[idx[k]]; }
  void prefetch(size_t k) const { prefetch_lines(&points[idx[k]], sizeof(affine_t<G>)); }
};
template <class G>
struct glv_src {
  const affine_t<G>* points;
  const uint32_t* idx;
  const typename G::field_t* phix;
  affine_t<G> operator()(size_t k) const {
    const affine_t<G>& p = points[idx[k >> 1]];
    return (k & 1) ? affine_t<G>{phix[k >> 1], p.y} : p;
  }
  void prefetch(size_t k) const {
    prefetch_lines(&points[idx[k >> 1]], sizeof(affine_t<G>));
    if (k & 1) prefetch_lines(&phix[k >> 1], sizeof(phix[0]));
  }
};
constexpr size_t prefetch_ahead = 16;  // points ahead: an addition takes 0.1-0.3 us, a miss to memory ~0.1 us

// Sum over buckets of (b+1)·bucket[b] for one window of one point range [b, e).
template <class G, class Src>
xyzz_t<G> window_sum_xyzz(const Src& point, const int16_t* digits, size_t b, size_t e, unsigned c) {
  using xyzz = xyzz_t<G>;
  size_t nb = size_t(1) << (c - 1);
  std::vector<xyzz> buckets(nb, xyzz::infinity());
  for (size_t k = b; k < e; k++) {
    if (k + prefetch_ahead < e && digits[k + prefetch_ahead] != 0) point.prefetch(k + prefetch_ahead);
    int32_t d = digits[k];
    if (d == 0) continue;
    const affine_t<G> p = point(k);
    if (d > 0) buckets[d - 1].add_affine(p.x, p.y, false);
    else buckets[-d - 1].add_affine(p.x, p.y, true);
  }
  xyzz run = xyzz::infinity(), acc = xyzz::infinity();
  for (size_t i = nb; i-- > 0;) {
    run.add(buckets[i]);
    acc.add(run);
  }
  return acc;
}

// bk[b] += rest[b] for every b: the XYZZ leftovers made affine with one batch inversion (x = X/ZZ,
// y = Y/ZZZ), then added as one more batch, so the bucket sum reads affine buckets only.
template <class G>
void fold_into(affine_buckets_t<G>& bk, const std::vector<xyzz_t<G>>& rest) {
  using F = typename G::field_t;
  std::vector<uint32_t> idx;
  std::vector<F> z;
  for (size_t b = 0; b < rest.size(); b++) {
    if (rest[b].is_inf()) continue;
    idx.push_back(uint32_t(b));
    z.push_back(rest[b].ZZ);
    z.push_back(rest[b].ZZZ);
  }
  std::vector<F> tmp(z.size());
  batch_inverse(z.data(), tmp.data(), z.size());
  for (size_t j = 0; j < idx.size(); j++) {
    const xyzz_t<G>& p = rest[idx[j]];
    bk.add(idx[j], affine_t<G>{p.X * z[2 * j], p.Y * z[2 * j + 1]}, false);  // no bucket is pending: never refused
  }
  bk.flush();
}

// window_sum_xyzz with batched affine buckets. Additions to a bucket that already has one pending
// are retried after the batch; when retries stop filling batches (many equal digits), the rest go
// to XYZZ buckets so that no input costs an inversion per addition. A window whose digits use few
// buckets (the top one: |d| <= 2^(nbits mod c)) spreads each digit over R copies of its bucket,
// by point index, so its additions rarely meet in a batch; the reduction sums the copies.
template <class G, class Src>
xyzz_t<G> window_sum_affine(const Src& point, const int16_t* digits, size_t b, size_t e, unsigned c) {
  using xyzz = xyzz_t<G>;
  size_t nb = size_t(1) << (c - 1);
  int32_t maxd = 0;
  for (size_t k = b; k < e; k++) maxd = std::max<int32_t>(maxd, std::abs(int32_t(digits[k])));
  if (maxd == 0) return xyzz::infinity();
  size_t copies = 1;
  while (size_t(maxd) * copies * 2 <= nb) copies *= 2;
  size_t nbe = size_t(maxd) * copies;
  affine_buckets_t<G> bk(nbe, std::max<size_t>(1, nbe / batch_div));
  auto bucket_of = [&](size_t k, int32_t d) {
    return uint32_t(size_t(d > 0 ? d - 1 : -d - 1) * copies + (k & (copies - 1)));
  };
  std::vector<uint32_t> deferred, next;
  auto try_add = [&](size_t k) {
    int32_t d = digits[k];
    return bk.add(bucket_of(k, d), point(k), d < 0);
  };
  for (size_t k = b; k < e; k++) {
    if (k + prefetch_ahead < e && digits[k + prefetch_ahead] != 0) point.prefetch(k + prefetch_ahead);
    if (digits[k] != 0 && !try_add(k)) deferred.push_back((uint32_t)k);
  }
  std::vector<xyzz> rest;
  while (!deferred.empty()) {
    bk.flush();
    next.clear();
    for (uint32_t k : deferred)
      if (!try_add(k)) next.push_back(k);
    if (deferred.size() - next.size() < nbe / 64 + 1 && !next.empty()) {
      rest.assign(nbe, xyzz::infinity());
      for (uint32_t k : next) {
        int32_t d = digits[k];
        const affine_t<G> p = point(k);
        rest[bucket_of(k, d)].add_affine(p.x, p.y, d < 0);
      }
      next.clear();
    }
    deferred.swap(next);
  }
  bk.flush();
  if (!rest.empty()) fold_into(bk, rest);
  if constexpr (ifma_field<typename G::field_t>) {
    if (copies == 1 && nbe >= 64 && ifma_flush_enabled()) return ifma_bucket_sum<G>(bk.data(), bk.full_data(), nbe);
  }
  xyzz run = xyzz::infinity(), acc = xyzz::infinity();
  for (size_t i = nbe; i-- > 0;) {
    if (bk.full(i)) run.add_affine(bk[i].x, bk[i].y, false);
    if (i % copies == 0) acc.add(run);
  }
  return acc;
}

template <class G, class Src>
xyzz_t<G> window_sum(const Src& point, const int16_t* digits, size_t b, size_t e, unsigned c) {
  if (c >= affine_min_window) return window_sum_affine<G>(point, digits, b, e, c);
  return window_sum_xyzz<G>(point, digits, b, e, c);
}

// One MSM's bucket work as independent tasks (window x point range of each block), so that several
// MSMs can share one parallel region (msm_run_jobs): the Groth16 prover runs its five that way,
// which keeps every thread busy however the windows divide among them, and overlaps what each
// MSM does alone (the final sums).
struct msm_job {
  virtual ~msm_job() = default;
  virtual size_t ntasks() const = 0;
  virtual double cost(size_t t) const = 0;  // relative, for scheduling the largest tasks first
  virtual void run(size_t t) = 0;
  virtual void finish() = 0;  // after every run(t): writes the result
};

// Prepares sum_i k_i·points[i] (classification, recoding: parallel regions of their own) with
// window plans sized for |plan_threads| threads; the result lands in *out at finish().
template <class G, class S>
class job_t final : public msm_job {
 public:
  using xyzz = xyzz_t<G>;
  using F = typename G::field_t;

  job_t(const affine_t<G>* points, const S& scalars, size_t n, jacobian_t<G>* out, size_t plan_threads)
      : points_(points), out_(out) {
    thread_pool& pool = thread_pool::global();
    size_t nchunks = (n + classify_chunk - 1) / classify_chunk;
    std::vector<std::vector<uint32_t>> lists(nchunks);
    std::vector<xyzz> ones(nchunks, xyzz::infinity());
    std::vector<uint64_t> bits(nchunks * 4, 0);
    pool.parallel_for(nchunks, [&](size_t ch) {
      size_t b = ch * classify_chunk, e = std::min(n, b + classify_chunk);
      uint64_t k[4];
      for (size_t i = b; i < e; i++) {
        scalars.load(i, k);
        if ((k[0] | k[1] | k[2] | k[3]) == 0 || points[i].is_inf()) continue;
        if (k[0] == 1 && (k[1] | k[2] | k[3]) == 0) { ones[ch].add(points[i]); continue; }
        lists[ch].push_back((uint32_t)i);
        for (int l = 0; l < 4; l++) bits[ch * 4 + l] |= k[l];
      }
    });
    size_t m = 0;
    uint64_t all_bits[4] = {0, 0, 0, 0};
    for (size_t ch = 0; ch < nchunks; ch++) {
      total_.add(ones[ch]);
      m += lists[ch].size();
      for (int l = 0; l < 4; l++) all_bits[l] |= bits[ch * 4 + l];
    }
    if (m == 0) return;
    idx_.reserve(m);
    for (auto& l : lists) { idx_.insert(idx_.end(), l.begin(), l.end()); std::vector<uint32_t>().swap(l); }
    unsigned nbits = bit_length(all_bits);
    // The endomorphism pays when it shortens the scalars: not for small ones (witness values < 2^127).
    if constexpr (glv_t<G>::enabled) glv_ = nbits > glv_t<G>::nbits;
    size_t per = glv_ ? block_scalars / 2 : block_scalars;  // scalars per block
    unsigned block_bits = nbits;
    if constexpr (glv_t<G>::enabled) {
      if (glv_) {
        block_bits = glv_t<G>::nbits;
        phix_.resize(m);
        const F beta = glv_t<G>::beta();
        pool.parallel_range(m, 1024, [&](size_t b, size_t e) {
          for (size_t j = b; j < e; j++) phix_[j] = points[idx_[j]].x * beta;
        });
      }
    }
    for (size_t b0 = 0; b0 < m; b0 += per) {
      block_t bl;
      bl.first = b0;
      size_t cnt = std::min(per, m - b0);
      bl.m = glv_ ? 2 * cnt : cnt;
      bl.pl = choose_plan(bl.m, block_bits, plan_threads);
      bl.digits.resize((size_t)bl.pl.nwin * bl.m);  // window-major: digits[w·m + k]
      const plan_t pl = bl.pl;
      int16_t* dg = bl.digits.data();
      size_t bm = bl.m;
      pool.parallel_range(cnt, 1024, [&](size_t b, size_t e) {
        uint64_t k[5] = {0, 0, 0, 0, 0}, k1[5] = {0, 0, 0, 0, 0}, k2[5] = {0, 0, 0, 0, 0};
        for (size_t j = b; j < e; j++) {
          scalars.load(idx_[b0 + j], k);
          if constexpr (glv_t<G>::enabled) {
            if (glv_) {
              bool neg2;
              glv_t<G>::split(k, k1, k2, neg2);
              int16_t* o = dg + 2 * j;
              recode(k1, pl.c, pl.nwin, o, bm);
              recode(k2, pl.c, pl.nwin, o + 1, bm);
              if (neg2)
                for (unsigned w = 0; w < pl.nwin; w++) o[1 + w * bm] = int16_t(-o[1 + w * bm]);
              continue;
            }
          }
          recode(k, pl.c, pl.nwin, dg + j, bm);
        }
      });
      bl.partial.assign((size_t)pl.nwin * pl.nsub, xyzz::infinity());
      bl.task0 = ntasks_;
      ntasks_ += bl.partial.size();
      blocks_.push_back(std::move(bl));
    }
  }

  size_t ntasks() const override { return ntasks_; }

  double cost(size_t t) const override {
    const block_t& bl = blocks_[block_of(t)];
    double unit = sizeof(F) / 32.0 * sizeof(F) / 32.0;  // Fq2 products cost ~3x, more adds: ~4x
    return unit * (0.7 * double(bl.m) / bl.pl.nsub + 3.0 * double(size_t(1) << (bl.pl.c - 1)));
  }

  void run(size_t t) override {
    block_t& bl = blocks_[block_of(t)];
    size_t i = t - bl.task0, w = i / bl.pl.nsub, j = i % bl.pl.nsub;
    size_t b = bl.m * j / bl.pl.nsub, e = bl.m * (j + 1) / bl.pl.nsub;
    const int16_t* dg = bl.digits.data() + w * bl.m;
    const uint32_t* idx = idx_.data() + bl.first;
    if (glv_) bl.partial[i] = window_sum<G>(glv_src<G>{points_, idx, phix_.data() + bl.first}, dg, b, e, bl.pl.c);
    else bl.partial[i] = window_sum<G>(direct_src<G>{points_, idx}, dg, b, e, bl.pl.c);
  }

  void finish() override {
    for (block_t& bl : blocks_) {
      xyzz acc = xyzz::infinity();
      for (size_t w = bl.pl.nwin; w-- > 0;) {
        for (unsigned i = 0; i < bl.pl.c && !acc.is_inf(); i++) acc = acc.dbl();
        for (size_t j = 0; j < bl.pl.nsub; j++) acc.add(bl.partial[w * bl.pl.nsub + j]);
      }
      total_.add(acc);
      std::vector<int16_t>().swap(bl.digits);
    }
    *out_ = total_.to_jacobian();
  }

 private:
  struct block_t {
    size_t first = 0, m = 0, task0 = 0;  // first scalar (in idx_), points (2x with GLV), first task
    plan_t pl{};
    std::vector<int16_t> digits;
    std::vector<xyzz> partial;
  };
  size_t block_of(size_t t) const {
    size_t k = 0;
    while (k + 1 < blocks_.size() && blocks_[k + 1].task0 <= t) k++;
    return k;
  }

  const affine_t<G>* points_;
  jacobian_t<G>* out_;
  xyzz total_ = xyzz::infinity();
  std::vector<uint32_t> idx_;
  std::vector<F> phix_;
  bool glv_ = false;
  std::vector<block_t> blocks_;
  size_t ntasks_ = 0;
};

// Runs the tasks of all |jobs| in one parallel region, largest first, then finishes each.
inline void msm_run_jobs(msm_job* const* jobs, size_t njobs) {
  struct item { msm_job* job; size_t t; double cost; };
  std::vector<item> items;
  for (size_t i = 0; i < njobs; i++)
    for (size_t t = 0; t < jobs[i]->ntasks(); t++) items.push_back({jobs[i], t, jobs[i]->cost(t)});
  std::stable_sort(items.begin(), items.end(), [](const item& a, const item& b) { return a.cost > b.cost; });
  thread_pool::global().parallel_for(items.size(), [&](size_t i) { items[i].job->run(items[i].t); });
  for (size_t i = 0; i < njobs; i++) jobs[i]->finish();
}

template <class G, class S>
jacobian_t<G> msm_run(const affine_t<G>* points, const S& scalars, size_t n) {
  jacobian_t<G> r = jacobian_t<G>::infinity();
  if (n == 0) return r;
  job_t<G, S> job(points, scalars, n, &r, thread_pool::global().size());
  msm_job* j = &job;
  msm_run_jobs(&j, 1);
  return r;
}

}  // namespace msm_detail

template <class G>
jacobian_t<G> msm_pippenger(const affine_t<G>* points, const uint8_t* scalars, size_t n,
                            size_t scalar_stride = 32) {
  return msm_detail::msm_run<G>(points, msm_detail::strided_scalars{scalars, scalar_stride}, n);
}

template <class G>
jacobian_t<G> msm_pippenger(const affine_t<G>* points, const uint8_t* const* scalar_ptrs, size_t n) {
  return msm_detail::msm_run<G>(points, msm_detail::indirect_scalars{scalar_ptrs}, n);
}

// An MSM to run beside others through msm_detail::msm_run_jobs (same scalars as the first
// msm_pippenger); its window plans assume |plan_threads| threads (its share of the pool).
template <class G>
std::unique_ptr<msm_detail::msm_job> msm_prepare(const affine_t<G>* points, const uint8_t* scalars, size_t n,
                                                 jacobian_t<G>* out, size_t plan_threads) {
  *out = jacobian_t<G>::infinity();
  return std::make_unique<msm_detail::job_t<G, msm_detail::strided_scalars>>(
      points, msm_detail::strided_scalars{scalars, 32}, n, out, plan_threads);
}

// Instantiated once per group in msm/msm_<curve>.cpp (MSM templates cost ~10-40 s of compile time
// per group); every other translation unit links to those.
#define CUZK_MSM_INSTANCES(EXTERN, G)                                                              \
  EXTERN template jacobian_t<G> msm_pippenger<G>(const affine_t<G>*, const uint8_t*, size_t, size_t); \
  EXTERN template jacobian_t<G> msm_pippenger<G>(const affine_t<G>*, const uint8_t* const*, size_t); \
  EXTERN template std::unique_ptr<msm_detail::msm_job> msm_prepare<G>(const affine_t<G>*, const uint8_t*, size_t, \
                                                                       jacobian_t<G>*, size_t);
#ifndef CUZK_MSM_INSTANTIATE
CUZK_MSM_INSTANCES(extern, bn254::g1)
CUZK_MSM_INSTANCES(extern, bn254::g2)
CUZK_MSM_INSTANCES(extern, bls12_381::g1)
CUZK_MSM_INSTANCES(extern, bls12_381::g2)
#endif

}  // namespace cuzk
