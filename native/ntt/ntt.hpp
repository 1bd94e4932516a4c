// In-place radix-2 NTT over Fr (Montgomery form), the transform of ffjavascript's Fr.fft/Fr.ifft.
// Kernels: dif (natural in, bit-reversed out, Gentleman-Sande) and dit (bit-reversed in, natural out,
// Cooley-Tukey), both unscaled. Stages run in cache-sized groups: the low 8-12 stages block by
// block, the high stages four at a time over tiles of 16 rows x 64 columns, so each pass over
// memory does up to 4 stages (Bailey-style blocking). The Groth16 prover chains dif -> coset scale
// in bit-reversed order -> dit, which skips both bit-reversal permutations (rapidsnark PR #49).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
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
// With |neg| the twiddle is -w: folded into the add/sub order, so no negation is computed.
template <class F, bool dit, bool neg>
inline void butterflies(F* x, F* y, size_t cnt, const F* tw, ptrdiff_t step) {
  for (size_t k = 0; k < cnt; k++) {
    const F& w = tw[ptrdiff_t(k) * step];
    F u = x[k], v = y[k];
    if (!dit) {
      x[k] = u + v;
      y[k] = neg ? (v - u) * w : (u - v) * w;
    } else {
      F t = v * w;
      x[k] = neg ? u - t : u + t;
      y[k] = neg ? u + t : u - t;
    }
  }
}

// One work item of a stage group: stages lg_lo .. lg_lo+g-1 over the superblock at |a| (2^(lg_lo+g)
// elements seen as 2^g rows of 2^lg_lo), restricted to columns [b0, b1). Butterfly (i, i+m) with
// i = row*m_lo + col uses twiddle j = i mod m = (row*m_lo mod m) + col.
template <class F, bool dit>
void group_item(F* a, const stage_tw_t<F>* st, uint32_t lg_lo, uint32_t g, size_t b0, size_t b1) {
  size_t rows = size_t(1) << g;
  for (uint32_t q = 0; q < g; q++) {
    uint32_t lg_m = dit ? lg_lo + q : lg_lo + g - 1 - q;
    size_t m = size_t(1) << lg_m;
    const stage_tw_t<F>& t = st[lg_m];
    for (size_t r = 0; r < rows; r++) {
      size_t off = r << lg_lo;
      if (off & m) continue;
      size_t j0 = (off & (m - 1)) + b0;
      F* x = a + off + b0;
      if (lg_m == 0) {  // twiddle 1: skipping the product saves 1/lg_n of all multiplications
        F u = x[0], v = x[1];
        x[0] = u + v;
        x[1] = u - v;
        continue;
      }
      const F* tw = t.base + ptrdiff_t(j0) * t.step;
      if (t.neg) butterflies<F, dit, true>(x, x + m, b1 - b0, tw, t.step);
      else butterflies<F, dit, false>(x, x + m, b1 - b0, tw, t.step);
    }
  }
}

// Stage groups as (lg_lo, g), low to high. The lowest group is kept large enough to stay in cache
// but small enough to give every thread a few blocks.
inline std::vector<std::pair<uint32_t, uint32_t>> stage_groups(uint32_t lg_n) {
  uint32_t g0 = std::min(lg_n, ntt_lg_small);
  size_t want = 4 * thread_pool::global().size();
  while (g0 > 8 && (size_t(1) << (lg_n - g0)) < want) g0--;
  std::vector<std::pair<uint32_t, uint32_t>> groups;
  if (lg_n == 0) return groups;
  groups.push_back({0, g0});
  for (uint32_t lo = g0; lo < lg_n; lo += 4) groups.push_back({lo, std::min<uint32_t>(4, lg_n - lo)});
  return groups;
}

template <class F, bool dit>
void run_stages(F* a, uint32_t lg_n, bool inverse) {
  using roots = ntt_roots<F>;
  size_t n = size_t(1) << lg_n;
  std::vector<stage_tw_t<F>> st(lg_n);
  std::shared_ptr<const std::vector<F>> big;
  if (lg_n > ntt_lg_small) big = roots::big(lg_n);
  for (uint32_t lg_m = 0; lg_m < lg_n; lg_m++) {
    size_t m = size_t(1) << lg_m;
    if (lg_m < ntt_lg_small) {
      st[lg_m] = {roots::small(inverse) + m, 1, false};
    } else {
      ptrdiff_t stride = ptrdiff_t(n / (2 * m));
      // inverse: w_2m^-j = -w_2m^(m-j) = -big[n/2 - j*stride]
      st[lg_m] = inverse ? stage_tw_t<F>{big->data() + n / 2, -stride, true} : stage_tw_t<F>{big->data(), stride, false};
    }
  }
  auto groups = stage_groups(lg_n);
  if (!dit) std::reverse(groups.begin(), groups.end());
  for (auto [lg_lo, g] : groups) {
    size_t span = size_t(1) << (lg_lo + g), m_lo = size_t(1) << lg_lo;
    size_t cols = std::min<size_t>(m_lo, 64);  // 16 rows x 64 columns x 32 B = 32 KiB tile
    size_t nruns = m_lo / cols, nitems = (n / span) * nruns;
    thread_pool::global().parallel_for(nitems, [&](size_t i) {
      size_t sb = i / nruns, c0 = (i % nruns) * cols;
      group_item<F, dit>(a + sb * span, st.data(), lg_lo, g, c0, c0 + cols);
    });
  }
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

// Natural order in, bit-reversed out; unscaled (the inverse one uses ω^-1 and omits 1/n).
template <class F>
void ntt_dif(F* a, uint32_t lg_n, bool inverse) { ntt_detail::run_stages<F, false>(a, lg_n, inverse); }

// Bit-reversed order in, natural out; unscaled.
template <class F>
void ntt_dit(F* a, uint32_t lg_n, bool inverse) { ntt_detail::run_stages<F, true>(a, lg_n, inverse); }

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

// a[p] *= c·g^rev(p) for p in bit-reversed layout. Splitting p = hi·2^lo_bits + lo gives
// rev(p) = rev(lo)·2^hi_bits + rev(hi), so two tables of ~sqrt(n) powers cover it (2M per element).
template <class F>
void scale_powers_bitrev(F* a, uint32_t lg_n, const F& c, const F& g) {
  uint32_t lo_bits = lg_n / 2, hi_bits = lg_n - lo_bits;
  size_t nlo = size_t(1) << lo_bits, nhi = size_t(1) << hi_bits;
  std::vector<F> tlo(nlo), thi(nhi);
  F glo = g;
  for (uint32_t i = 0; i < hi_bits; i++) glo = glo.sqr();
  F x = F::one();
  for (size_t k = 0; k < nlo; k++, x = x * glo) tlo[ntt_detail::reverse_bits(uint32_t(k), lo_bits)] = x;
  x = c;
  for (size_t k = 0; k < nhi; k++, x = x * g) thi[ntt_detail::reverse_bits(uint32_t(k), hi_bits)] = x;
  thread_pool::global().parallel_range(nhi, std::max<size_t>(1, 4096 / nlo), [&](size_t b, size_t e) {
    for (size_t hi = b; hi < e; hi++) {
      F* row = a + (hi << lo_bits);
      for (size_t lo = 0; lo < nlo; lo++) row[lo] = row[lo] * (tlo[lo] * thi[hi]);
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

// Evaluations on the n-th roots -> evaluations on the odd coset g·ω^j (g = ω_2n): the snarkjs
// ifft / batchApplyKey(g) / fft chain of groth16_prove.js, with no bit-reversal pass.
template <class F>
void ntt_to_coset(F* a, uint32_t lg_n) {
  ntt_dif(a, lg_n, true);
  scale_powers_bitrev(a, lg_n, inv_size<F>(lg_n), ntt_roots<F>::coset_gen(lg_n));
  ntt_dit(a, lg_n, false);
}

}  // namespace cuzk
