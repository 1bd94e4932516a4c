// cuzk_key: a Groth16 proving key that borrows the caller's zkey section buffers (snarkjs §2.2, used
// in place: LEM points are the Montgomery limbs) plus the one thing precomputed per key, the plan
// that splits the section-4 coefficient scatter into constraint-disjoint chunks for the threads.
#pragma once
#include <cstdint>
#include <mutex>
#include <vector>

#include "../include/cuzk.h"

namespace cuzk {

// Wall time of each phase of the last proof, in milliseconds (steady_clock).
struct prove_timings_t {
  double abc = 0, ntt = 0, join = 0, msm_a = 0, msm_b1 = 0, msm_b2 = 0, msm_c = 0, msm_h = 0;
  double finish = 0, total = 0;
  double h2d = 0, d2h = 0, kernel = 0;  // GPU only (CUDA events)
  double wait = 0;                      // GPU only: waiting for the device's compute region
  uint64_t h2d_bytes = 0;
  int32_t device = -1;
};

constexpr size_t coef_record_bytes = 12 + 32;  // u32 m, u32 c, u32 s, Fr value (v·R^2, standard LE)

// The scatter plan: records [chunk_begin[t], chunk_begin[t+1]) of the (possibly permuted) record
// sequence touch constraints no other chunk touches, so threads accumulate without locks. snarkjs
// writes records sorted by constraint, so |order| is empty (identity) in practice; for unsorted
// input it is a counting sort by constraint (4 bytes per record).
struct coef_plan_t {
  std::vector<uint64_t> chunk_begin;
  std::vector<uint32_t> order;

  size_t nchunks() const { return chunk_begin.empty() ? 0 : chunk_begin.size() - 1; }
  uint64_t record(uint64_t i) const { return order.empty() ? i : order[i]; }
};

// Validates the record fields (m < 2, c < domain_size, s < n_vars; CUZK_E_INVALID_ARG otherwise)
// and builds the plan.
coef_plan_t plan_coefs(const cuzk_key_desc& desc);

}  // namespace cuzk

struct cuzk_key {
  cuzk_key_desc desc;          // pointers borrowed from the caller until cuzk_key_destroy
  cuzk::coef_plan_t plan;      // ~8 bytes per 16k records, plus 4 B/record if unsorted
  // phases of the most recent proof; bookkeeping, not key state, so writable through a const key
  mutable std::mutex timings_mu;
  mutable cuzk::prove_timings_t last;
};
