// Fixed-base scalar multiplication: out[i] = k_i·B for many k_i and one B (dev proving-key setup).
// A table T[w][j] = (j+1)·2^(c·w)·B (affine) turns each product into nwin mixed additions with
// signed c-bit digits (the recoding of pippenger_cpu.hpp); results go to affine with one batched
// inversion per chunk (Montgomery's trick).
//
// API:
//   template <class G> void fixed_base_mul(const affine_t<G>& base, const uint8_t* scalars, size_t n,
//                                          affine_t<G>* out, size_t scalar_stride = 32);
//     out[i] = k_i·base, k_i the 32-byte little-endian integer at scalars + i·scalar_stride (any
//     256-bit value). Runs on thread_pool::global().
#pragma once
#include <vector>

#include "pippenger_cpu.hpp"

namespace cuzk {
namespace fixed_base_detail {

constexpr size_t max_table_bytes = size_t(64) << 20;
constexpr size_t affine_chunk = 512;  // one inversion per 512 results: ~0.5M each at 256-bit p

// Minimises n·nwin mixed additions plus ~2 per table entry (a Jacobian addition and its share of
// the batched affine conversion), under the table memory cap.
inline unsigned choose_window(size_t n, unsigned nbits, size_t point_bytes) {
  unsigned best = 1;
  double best_cost = 1e300;
  for (unsigned c = 1; c <= msm_detail::max_window; c++) {
    unsigned nwin = (nbits + 1 + c - 1) / c;
    size_t entries = (size_t)nwin << (c - 1);
    if (c > 1 && entries * point_bytes > max_table_bytes) break;
    double cost = (double)n * nwin + 2.0 * (double)entries;
    if (cost < best_cost) { best_cost = cost; best = c; }
  }
  return best;
}

template <class G>
std::vector<affine_t<G>> build_table(const affine_t<G>& base, unsigned c, unsigned nwin) {
  using J = jacobian_t<G>;
  using F = typename G::field_t;
  size_t nb = size_t(1) << (c - 1);
  std::vector<J> heads(nwin);  // 2^(c·w)·base
  J h = J::from_affine(base);
  for (unsigned w = 0; w < nwin; w++) {
    heads[w] = h;
    for (unsigned i = 0; i < c; i++) h = h.dbl();
  }
  std::vector<affine_t<G>> table((size_t)nwin * nb);
  thread_pool::global().parallel_for(nwin, [&](size_t w) {
    std::vector<J> row(nb);
    std::vector<F> s1(nb), s2(nb);
    affine_t<G> hw = heads[w].to_affine();
    row[0] = heads[w];
    for (size_t j = 1; j < nb; j++) row[j] = row[j - 1].add(hw);
    batch_to_affine(row.data(), table.data() + w * nb, nb, s1.data(), s2.data());
  });
  return table;
}

}  // namespace fixed_base_detail

template <class G>
void fixed_base_mul(const affine_t<G>& base, const uint8_t* scalars, size_t n, affine_t<G>* out,
                    size_t scalar_stride = 32) {
  using namespace fixed_base_detail;
  using J = jacobian_t<G>;
  using F = typename G::field_t;
  if (n == 0) return;
  uint64_t all[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    uint64_t k[4];
    std::memcpy(k, scalars + i * scalar_stride, 32);
    for (int l = 0; l < 4; l++) all[l] |= k[l];
  }
  unsigned nbits = msm_detail::bit_length(all);
  if (base.is_inf() || nbits == 0) {
    for (size_t i = 0; i < n; i++) out[i] = affine_t<G>::infinity();
    return;
  }
  unsigned c = choose_window(n, nbits, sizeof(affine_t<G>));
  unsigned nwin = (nbits + 1 + c - 1) / c;
  size_t nb = size_t(1) << (c - 1);
  std::vector<affine_t<G>> table = build_table(base, c, nwin);
  size_t nchunks = (n + affine_chunk - 1) / affine_chunk;
  thread_pool::global().parallel_for(nchunks, [&](size_t ch) {
    size_t b = ch * affine_chunk, e = std::min(n, b + affine_chunk);
    std::vector<J> acc(e - b);
    std::vector<F> s1(e - b), s2(e - b);
    int16_t digits[256 + 1];
    uint64_t k[5] = {0, 0, 0, 0, 0};
    for (size_t i = b; i < e; i++) {
      std::memcpy(k, scalars + i * scalar_stride, 32);
      msm_detail::recode(k, c, nwin, digits, 1);
      xyzz_t<G> r = xyzz_t<G>::infinity();
      for (unsigned w = 0; w < nwin; w++) {
        int32_t d = digits[w];
        if (d > 0) r.add(table[w * nb + d - 1]);
        else if (d < 0) r.sub(table[w * nb - d - 1]);
      }
      acc[i - b] = r.to_jacobian();
    }
    batch_to_affine(acc.data(), out + b, e - b, s1.data(), s2.data());
  });
}

#define CUZK_FIXED_BASE_INSTANCES(EXTERN, G) \
  EXTERN template void fixed_base_mul<G>(const affine_t<G>&, const uint8_t*, size_t, affine_t<G>*, size_t);
#ifndef CUZK_MSM_INSTANTIATE
CUZK_FIXED_BASE_INSTANCES(extern, bn254::g1)
CUZK_FIXED_BASE_INSTANCES(extern, bn254::g2)
CUZK_FIXED_BASE_INSTANCES(extern, bls12_381::g1)
CUZK_FIXED_BASE_INSTANCES(extern, bls12_381::g2)
#endif

}  // namespace cuzk
