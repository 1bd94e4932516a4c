// The QAP of an R1CS at a known τ, for cuzk dev-setup (src/dev/dev-setup.ts; INSECURE keys, tests and
// benchmarks only): Lagrange basis values, the per-wire sums A_j(τ), B_j(τ), C_j(τ) with the zkey's
// coefficient records, and their combination into the IC / C scalars. Each was BigInt TypeScript
// (2^18 constraints: ~2.4 s of 9.3; ~150 s extrapolated to 2^24); here each is threaded.
//
// API (the shims in api/dev_setup.cpp; Fr elements standard form on the boundary unless noted):
//   lagrange_eval<F>(tau, scale, lg_n, first, stride, count, out)
//     out[j] = scale·L_{first + j·stride}(τ) over the 2^lg_n domain of ω = ntt_roots<F>::root(lg_n):
//     L_m(τ) = c/(τ·ω^-m − 1) with c = (τ^N − 1)/N; fails if τ^N = 1.
//   r1cs_accumulate<F>(data, len, first_row, max_rows, n_wires, l, acc, coefs, res)
//     the terms of whole constraints of .r1cs section 2 bytes: acc[m][wire] += coef·l[i]
//     (acc in Montgomery form), and for A and B terms a 44-byte record {m, row, wire, coef·R² mod r}
//     in |coefs| (room for len/36 records always suffices: a term takes >= 36 bytes of data).
//   qap_combine<F>(acc, n_wires, n_public, alpha, beta, gamma_inv, delta_inv)
//     in place: acc's A and B to standard form, and C_j ← (β·A_j + α·B_j + C_j)·(γ⁻¹ for j <= n_public,
//     else δ⁻¹), standard form.
#pragma once
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "../field/mont.hpp"
#include "../ntt/roots.hpp"
#include "../util/error.hpp"
#include "../util/thread_pool.hpp"

namespace cuzk {
namespace dev_setup_detail {

constexpr size_t lagrange_chunk = 4096;  // one inversion per 4096 values
constexpr size_t record_bytes = 44;
constexpr size_t term_bytes = 36;

inline uint32_t rd32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// A 256-bit little-endian value reduced mod p (r1cs coefficients should be < r; snarkjs reduces them).
template <class F>
F load_reduced(const uint8_t* b) {
  using P = typename field_params<F>::type;
  uint64_t v[F::n];
  std::memcpy(v, b, sizeof v);
  while (!F::lt_p(v)) {
    unsigned __int128 borrow = 0;
    for (size_t i = 0; i < F::n; i++) {
      unsigned __int128 d = (unsigned __int128)v[i] - P::p[i] - borrow;
      v[i] = uint64_t(d);
      borrow = (d >> 64) & 1;
    }
  }
  return F::from_std(v);
}

}  // namespace dev_setup_detail

template <class F>
void lagrange_eval(const F& tau, const F& scale, uint32_t lg_n, uint64_t first, uint64_t stride, uint64_t count,
                   uint8_t* out) {
  using namespace dev_setup_detail;
  require(lg_n <= ntt_roots<F>::s, "cuzk_lagrange_eval: no 2^" + std::to_string(lg_n) + " domain in Fr");
  uint64_t big_n = uint64_t(1) << lg_n;
  F z = tau.pow(&big_n, 1) - F::one();
  require(!z.is_zero(), "cuzk_lagrange_eval: tau lies in the evaluation domain");
  F c = z * F::from_u64(big_n).inv() * scale;
  const F& w_inv = ntt_roots<F>::root_inv(lg_n);
  F step = w_inv.pow(&stride, 1);
  size_t nchunks = (count + lagrange_chunk - 1) / lagrange_chunk;
  thread_pool::global().parallel_for(nchunks, [&](size_t ch) {
    uint64_t j0 = ch * lagrange_chunk, m = std::min<uint64_t>(lagrange_chunk, count - j0);
    uint64_t e = first + j0 * stride;  // index of the chunk's first value (wraps harmlessly mod 2^64 > N)
    e &= big_n - 1;
    F u = tau * w_inv.pow(&e, 1);  // τ·ω^-m
    std::vector<F> den(m), scratch(m);
    for (uint64_t j = 0; j < m; j++) {
      den[j] = u - F::one();
      u = u * step;
    }
    batch_inverse(den.data(), scratch.data(), m);
    for (uint64_t j = 0; j < m; j++) (den[j] * c).store_std(out + 32 * (j0 + j));
  });
}

struct r1cs_pass_t {
  uint64_t bytes = 0, rows = 0, coefs = 0;
};

template <class F>
void r1cs_accumulate(const uint8_t* data, uint64_t len, uint32_t first_row, uint64_t max_rows, uint32_t n_wires,
                     const uint8_t* l, F* const* acc, uint8_t* coefs, r1cs_pass_t& res) {
  using namespace dev_setup_detail;
  static const char* const matrix[3] = {"A", "B", "C"};
  // 1. boundaries (sequential, counts only): constraint k spans data[off[k], off[k+1]); rec[k] = its first record
  std::vector<uint64_t> off{0}, rec{0};
  uint64_t pos = 0, nrec = 0;
  while (off.size() - 1 < max_rows) {
    uint64_t p = pos, ab = 0;
    bool whole = true;
    for (int m = 0; m < 3 && whole; m++) {
      if (p + 4 > len) { whole = false; break; }
      uint64_t nt = rd32(data + p);
      p += 4;
      if (nt > (len - p) / term_bytes) { whole = false; break; }
      p += nt * term_bytes;
      if (m < 2) ab += nt;
    }
    if (!whole) break;
    pos = p;
    nrec += ab;
    off.push_back(pos);
    rec.push_back(nrec);
  }
  size_t rows = off.size() - 1;
  // 2. per constraint, in parallel: records, term values (Montgomery) into a scratch in file order
  std::vector<uint64_t> tstart(rows + 1, 0);
  for (size_t k = 0; k < rows; k++) tstart[k + 1] = tstart[k] + (off[k + 1] - off[k] - 12) / term_bytes;
  std::vector<F> vals(tstart[rows]);
  std::atomic<size_t> first_bad{rows};
  thread_pool::global().parallel_range(rows, 1024, [&](size_t lo, size_t hi) {
    for (size_t k = lo; k < hi; k++) {
      F lk = F::load_std(l + 32 * k);
      const uint8_t* p = data + off[k];
      uint8_t* r = coefs + record_bytes * rec[k];
      F* v = vals.data() + tstart[k];
      uint32_t row = first_row + uint32_t(k);
      for (uint32_t m = 0; m < 3; m++) {
        uint32_t nt = rd32(p);
        p += 4;
        for (uint32_t t = 0; t < nt; t++, p += term_bytes) {
          uint32_t wire = rd32(p);
          if (wire >= n_wires) {
            size_t cur = first_bad.load();
            while (k < cur && !first_bad.compare_exchange_weak(cur, k)) {}
            return;
          }
          F coef = load_reduced<F>(p + 4);  // coef·R (Montgomery)
          *v++ = coef * lk;
          if (m == 2) continue;
          std::memcpy(r, &m, 4);
          std::memcpy(r + 4, &row, 4);
          std::memcpy(r + 8, &wire, 4);
          F twice = F::from_std(coef.l);  // raw limbs coef·R², the zkey's coefficient encoding
          std::memcpy(r + 12, twice.l, 32);
          r += record_bytes;
        }
      }
    }
  });
  if (first_bad.load() < rows) {
    size_t k = first_bad.load();
    const uint8_t* p = data + off[k];
    for (uint32_t m = 0; m < 3; m++) {
      uint32_t nt = rd32(p);
      p += 4;
      for (uint32_t t = 0; t < nt; t++, p += term_bytes)
        if (rd32(p) >= n_wires)
          fail(CUZK_E_FORMAT, "constraint " + std::to_string(first_row + k) + " " + matrix[m] + " term " +
                                  std::to_string(t) + " has wire " + std::to_string(rd32(p)) +
                                  ", expected < nWires " + std::to_string(n_wires));
    }
  }
  // 3. the sums, sequential (wires repeat across constraints; an addition is ~2 ns)
  const F* v = vals.data();
  for (size_t k = 0; k < rows; k++) {
    const uint8_t* p = data + off[k];
    for (uint32_t m = 0; m < 3; m++) {
      uint32_t nt = rd32(p);
      p += 4;
      F* am = acc[m];
      for (uint32_t t = 0; t < nt; t++, p += term_bytes) am[rd32(p)] += *v++;
    }
  }
  res.bytes = pos;
  res.rows = rows;
  res.coefs = nrec;
}

template <class F>
void qap_combine(F* const* acc, uint32_t n_wires, uint32_t n_public, const F& alpha, const F& beta,
                 const F& gamma_inv, const F& delta_inv) {
  F *a = acc[0], *b = acc[1], *c = acc[2];
  thread_pool::global().parallel_range(n_wires, 4096, [&](size_t lo, size_t hi) {
    for (size_t j = lo; j < hi; j++) {
      F k = (beta * a[j] + alpha * b[j] + c[j]) * (j <= n_public ? gamma_inv : delta_inv);
      a[j].to_std(a[j].l);
      b[j].to_std(b[j].l);
      k.to_std(c[j].l);
    }
  });
}

}  // namespace cuzk
