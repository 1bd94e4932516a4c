// In-place radix-2 NTT over Fr (Montgomery form), the transform of ffjavascript's Fr.fft/Fr.ifft.
// Kernels: dif (natural in, bit-reversed out, Gentleman-Sande) and dit (bit-reversed in, natural out,
// Cooley-Tukey), both unscaled. Stages run in cache-sized groups: the low 8-12 stages block by
// block, the high stages four at a time over tiles of 16 rows x 64 columns, so each pass over
// memory does up to 4 stages (Bailey-style blocking). The Groth16 prover chains dif -> coset scale
// in bit-reversed order -> dit, which skips both bit-reversal permutations (rapidsnark PR #49), for
// its three vectors at once (ntt_to_coset). The cost is the Fr products (~16 ns each on the 2-core
// dev machine, ~80% of the time), so the kernels avoid products rather than memory passes.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "roots.hpp"

namespace cuzk {

namespace ntt_detail {

// twiddle(j) = base[j * step], negated when |neg| (inverse stages that read the forward table).
template <class F>
struct stage_tw_t {
  const F* base;
  ptrdiff_t step;
  bool neg;
};

// |cnt| butterflies x[k] <-> y[k] with twiddles tw[k * step]. DIF: (u+v, (u-v)w); DIT: (u+vw, u-vw).
// With |neg| the twiddle is -w: folded into the add/sub order, so no negation is computed. Measured
// (2-core dev machine, in L1): the DIF one is ~5% faster with the next difference taken before this
// product, the DIT one ~5% faster two at a time, products first.
template <class F, bool dit, bool neg>
inline void butterflies(F* x, F* y, size_t cnt, const F* tw, ptrdiff_t step) {
  if (cnt == 0) return;
  if constexpr (!dit) {
    F d = neg ? y[0] - x[0] : x[0] - y[0];
    for (size_t k = 0; k + 1 < cnt; k++) {
      F next = neg ? y[k + 1] - x[k + 1] : x[k + 1] - y[k + 1];
      x[k] = x[k] + y[k];
      y[k] = d * tw[ptrdiff_t(k) * step];
      d = next;
    }
    x[cnt - 1] = x[cnt - 1] + y[cnt - 1];
    y[cnt - 1] = d * tw[ptrdiff_t(cnt - 1) * step];
  } else {
    size_t k = 0;
    for (; k + 2 <= cnt; k += 2) {
      F t0 = y[k] * tw[ptrdiff_t(k) * step], t1 = y[k + 1] * tw[ptrdiff_t(k + 1) * step];
      F u0 = x[k], u1 = x[k + 1];
      x[k] = neg ? u0 - t0 : u0 + t0;
      y[k] = neg ? u0 + t0 : u0 - t0;
      x[k + 1] = neg ? u1 - t1 : u1 + t1;
      y[k + 1] = neg ? u1 + t1 : u1 - t1;
    }
    if (k < cnt) {
      F t = y[k] * tw[ptrdiff_t(k) * step], u = x[k];
      x[k] = neg ? u - t : u + t;
      y[k] = neg ? u + t : u - t;
    }
  }
}

// Twiddle 1 (j = 0 of every stage): the same add and sub for DIF and DIT, no product.
template <class F>
inline void butterfly_1(F& x, F& y) {
  F u = x, v = y;
  x = u + v;
  y = u - v;
}

// The low stage group (stages 0..g-1, twiddles from the size-independent table |small|) over one
// contiguous block of 2^g elements, stage by stage: each 2m-span runs j = 0 without a product,
// then j = 1..m-1 with contiguous twiddles.
template <class F, bool dit>
void block_stages(F* a, uint32_t g, const F* small) {
  size_t len = size_t(1) << g;
  for (uint32_t q = 0; q < g; q++) {
    size_t m = size_t(1) << (dit ? q : g - 1 - q);
    for (size_t s = 0; s < len; s += 2 * m) {
      F* x = a + s;
      butterfly_1(x[0], x[m]);
      if (m > 1) butterflies<F, dit, false>(x + 1, x + m + 1, m - 1, small + m + 1, 1);
    }
  }
}

// One work item of a high stage group: stages lg_lo .. lg_lo+g-1 over the superblock at |a|
// (2^(lg_lo+g) elements seen as 2^g rows of 2^lg_lo), restricted to columns [b0, b1). Butterfly
// (i, i+m) with i = row*m_lo + col uses twiddle j = i mod m = (row*m_lo mod m) + col.
template <class F, bool dit>
void tile_stages(F* a, const stage_tw_t<F>* st, uint32_t lg_lo, uint32_t g, size_t b0, size_t b1) {
  size_t rows = size_t(1) << g;
  for (uint32_t q = 0; q < g; q++) {
    uint32_t lg_m = dit ? lg_lo + q : lg_lo + g - 1 - q;
    size_t m = size_t(1) << lg_m;
    const stage_tw_t<F>& t = st[lg_m];
    for (size_t r = 0; r < rows; r++) {
      size_t off = r << lg_lo;
      if (off & m) continue;
      size_t j0 = (off & (m - 1)) + b0, cnt = b1 - b0;
      F* x = a + off + b0;
      const F* tw = t.base + ptrdiff_t(j0) * t.step;
      if (j0 == 0) {
        butterfly_1(x[0], x[m]);
        x++, tw += t.step, cnt--;
      }
      if (t.neg) butterflies<F, dit, true>(x, x + m, cnt, tw, t.step);
      else butterflies<F, dit, false>(x, x + m, cnt, tw, t.step);
    }
  }
}

// The stages of one transform: the low group (0, g0) in blocks of 2^g0, then the high groups
// (lg_lo, g) of at most 4 stages, ascending. g0 keeps a block in cache but gives every thread a
// few blocks.
template <class F>
struct stage_plan_t {
  uint32_t lg_n, g0;
  std::vector<std::pair<uint32_t, uint32_t>> high;
  std::vector<stage_tw_t<F>> st;  // per lg_m; the high stages' entries read |big|
  const F* small;
  std::shared_ptr<const std::vector<F>> big;

  stage_plan_t(uint32_t lg, bool inverse) : lg_n(lg), st(lg), small(ntt_roots<F>::small(inverse)) {
    g0 = std::min(lg_n, ntt_lg_small);
    size_t want = 4 * thread_pool::global().size();
    while (g0 > 8 && (size_t(1) << (lg_n - g0)) < want) g0--;
    for (uint32_t lo = g0; lo < lg_n; lo += 4) high.push_back({lo, std::min<uint32_t>(4, lg_n - lo)});
    size_t n = size_t(1) << lg_n;
    if (lg_n > ntt_lg_small) big = ntt_roots<F>::big(lg_n);
    for (uint32_t lg_m = 0; lg_m < lg_n; lg_m++) {
      size_t m = size_t(1) << lg_m;
      if (lg_m < ntt_lg_small) {
        st[lg_m] = {small + m, 1, false};
      } else {
        ptrdiff_t stride = ptrdiff_t(n / (2 * m));
        // inverse: w_2m^-j = -w_2m^(m-j) = -big[n/2 - j*stride]
        st[lg_m] = inverse ? stage_tw_t<F>{big->data() + n / 2, -stride, true} : stage_tw_t<F>{big->data(), stride, false};
      }
    }
  }
  size_t nblocks() const { return size_t(1) << (lg_n - g0); }
};

// One high group over every vector of |vecs|, as one parallel region of 16-row x 64-column tiles
// (32 KiB each).
template <class F, bool dit>
void run_high_group(F* const* vecs, size_t nvec, const stage_plan_t<F>& p, uint32_t lg_lo, uint32_t g) {
  size_t span = size_t(1) << (lg_lo + g), m_lo = size_t(1) << lg_lo;
  size_t cols = std::min<size_t>(m_lo, 64);
  size_t nruns = m_lo / cols, per_vec = (size_t(1) << p.lg_n) / span * nruns;
  thread_pool::global().parallel_for(nvec * per_vec, [&](size_t i) {
    size_t k = i % per_vec, sb = k / nruns, c0 = (k % nruns) * cols;
    tile_stages<F, dit>(vecs[i / per_vec] + sb * span, p.st.data(), lg_lo, g, c0, c0 + cols);
  });
}

// One DIF transform: the high groups from the top, then the low stages block by block.
template <class F>
void run_dif(F* a, uint32_t lg_n, bool inverse) {
  if (lg_n == 0) return;
  stage_plan_t<F> p(lg_n, inverse);
  for (size_t k = p.high.size(); k-- > 0;) run_high_group<F, false>(&a, 1, p, p.high[k].first, p.high[k].second);
  thread_pool::global().parallel_for(p.nblocks(), [&](size_t b) { block_stages<F, false>(a + (b << p.g0), p.g0, p.small); });
}

inline uint32_t reverse_bits(uint32_t x, uint32_t lg) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  x = (x >> 16) | (x << 16);
  return lg == 0 ? 0 : x >> (32 - lg);
}

}  // namespace ntt_detail

// Natural order in, bit-reversed out; unscaled (the inverse one uses ω^-1 and omits 1/n). The DIT
// direction runs only inside ntt_to_coset.
template <class F>
void ntt_dif(F* a, uint32_t lg_n, bool inverse) { ntt_detail::run_dif<F>(a, lg_n, inverse); }

template <class F>
void bit_reverse(F* a, uint32_t lg_n) {
  size_t n = size_t(1) << lg_n;
  // each pair is swapped by the chunk holding its smaller index, so chunks never collide
  thread_pool::global().parallel_range(n, 1 << 14, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; i++) {
      size_t j = ntt_detail::reverse_bits(uint32_t(i), lg_n);
      if (i < j) std::swap(a[i], a[j]);
    }
  });
}

// a[j] *= c·g^j, natural order (running powers per chunk: one pow per chunk, 2M per element).
template <class F>
void scale_powers(F* a, size_t n, const F& c, const F& g) {
  bool plain = g == F::one();
  thread_pool::global().parallel_range(n, 1 << 12, [&](size_t b, size_t e) {
    F x = plain ? c : c * g.pow(uint64_t(b));
    for (size_t j = b; j < e; j++) {
      a[j] = a[j] * x;
      if (!plain) x = x * g;
    }
  });
}

// n^-1 in Fr.
template <class F>
F inv_size(uint32_t lg_n) { return F::from_u64(uint64_t(1) << lg_n).inv(); }

// The cuzk_ntt transform on Montgomery elements, natural order in and out. |coset|: the forward
// transform evaluates at g·ω^j (coefficients pre-multiplied by g^j); the inverse undoes it.
template <class F>
void ntt_natural(F* a, uint32_t lg_n, bool inverse, bool coset) {
  using roots = ntt_roots<F>;
  size_t n = size_t(1) << lg_n;
  F g = roots::coset_gen(lg_n);
  if (!inverse && coset) scale_powers(a, n, F::one(), g);
  ntt_dif(a, lg_n, inverse);
  bit_reverse(a, lg_n);
  if (inverse) scale_powers(a, n, inv_size<F>(lg_n), coset ? g.inv() : F::one());
}

// Evaluations on the n-th roots -> evaluations on the odd coset g·ω^j (g = ω_2n) for each of the
// |nvec| vectors: the snarkjs ifft / batchApplyKey(g) / fft chain of groth16_prove.js, with no
// bit-reversal pass. Each phase is one parallel region over all vectors: the inverse DIF's high
// groups, then per block of 2^g0 its low stages, the scale by n^-1·g^rev(p) (p in bit-reversed
// layout) and the forward DIT's low stages while the block is in cache, then the DIT's high groups.
// Splitting p = hi·2^lo_bits + lo gives rev(p) = rev(lo)·2^hi_bits + rev(hi), so two tables of
// ~sqrt(n) powers give each factor with one product, which the vectors share.
template <class F>
void ntt_to_coset(F* const* vecs, size_t nvec, uint32_t lg_n) {
  using namespace ntt_detail;
  if (nvec == 0) return;
  stage_plan_t<F> inv(lg_n, true), fwd(lg_n, false);
  for (size_t k = inv.high.size(); k-- > 0;)
    run_high_group<F, false>(vecs, nvec, inv, inv.high[k].first, inv.high[k].second);

  uint32_t lo_bits = lg_n / 2, hi_bits = lg_n - lo_bits;
  size_t nlo = size_t(1) << lo_bits, nhi = size_t(1) << hi_bits;
  std::vector<F> tlo(nlo), thi(nhi);
  F g = ntt_roots<F>::coset_gen(lg_n), glo = g;
  for (uint32_t i = 0; i < hi_bits; i++) glo = glo.sqr();
  F x = F::one();
  for (size_t k = 0; k < nlo; k++, x = x * glo) tlo[reverse_bits(uint32_t(k), lo_bits)] = x;
  x = inv_size<F>(lg_n);
  for (size_t k = 0; k < nhi; k++, x = x * g) thi[reverse_bits(uint32_t(k), hi_bits)] = x;

  uint32_t g0 = inv.g0;  // the same plan for both directions
  thread_pool::global().parallel_for(inv.nblocks(), [&](size_t b) {
    size_t base = b << g0, len = size_t(1) << g0;
    for (size_t v = 0; v < nvec; v++) block_stages<F, false>(vecs[v] + base, g0, inv.small);
    for (size_t p = base; p < base + len; p++) {
      F f = tlo[p & (nlo - 1)] * thi[p >> lo_bits];
      for (size_t v = 0; v < nvec; v++) vecs[v][p] = vecs[v][p] * f;
    }
    for (size_t v = 0; v < nvec; v++) block_stages<F, true>(vecs[v] + base, g0, fwd.small);
  });

  for (auto [lg_lo, g] : fwd.high) run_high_group<F, true>(vecs, nvec, fwd, lg_lo, g);
}

}  // namespace cuzk
