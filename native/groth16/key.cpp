// plan_coefs: one validating pass over the zkey coefficient records (section 4) and the chunking
// that lets the prover scatter them with one thread per chunk and no atomics.
#include "key.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>

#include "../util/error.hpp"
#include "../util/thread_pool.hpp"

namespace cuzk {

namespace {

struct record_fields_t {
  uint32_t m, c, s;
};

inline record_fields_t read_fields(const uint8_t* coefs, uint64_t i) {
  record_fields_t f;
  std::memcpy(&f, coefs + i * coef_record_bytes, sizeof f);
  return f;
}

// Checks every record's indices; returns whether constraints are non-decreasing in file order.
bool check_records(const cuzk_key_desc& d) {
  std::atomic<bool> sorted{true};
  std::atomic<uint64_t> bad{UINT64_MAX};
  thread_pool::global().parallel_range(d.n_coefs, 1 << 14, [&](size_t b, size_t e) {
    uint32_t prev = b == 0 ? 0 : read_fields(d.coefs, b - 1).c;
    for (size_t i = b; i < e; i++) {
      record_fields_t f = read_fields(d.coefs, i);
      if (f.m > 1 || f.c >= d.domain_size || f.s >= d.n_vars) {
        uint64_t cur = bad.load();
        while (i < cur && !bad.compare_exchange_weak(cur, i)) {}
        return;
      }
      if (f.c < prev) sorted = false;
      prev = f.c;
    }
  });
  if (bad != UINT64_MAX) {
    record_fields_t f = read_fields(d.coefs, bad);
    fail(CUZK_E_INVALID_ARG, "cuzk_key_create: coefficient " + std::to_string(bad.load()) + " has matrix " +
                                 std::to_string(f.m) + ", constraint " + std::to_string(f.c) + ", signal " +
                                 std::to_string(f.s) + " (need matrix < 2, constraint < " +
                                 std::to_string(d.domain_size) + ", signal < " + std::to_string(d.n_vars) + ")");
  }
  return sorted;
}

// Stable counting sort of record indices by constraint.
std::vector<uint32_t> sort_by_constraint(const cuzk_key_desc& d) {
  if (d.n_coefs >= (uint64_t(1) << 32)) fail(CUZK_E_INVALID_ARG, "cuzk_key_create: unsorted coefficients need n_coefs < 2^32");
  std::vector<uint32_t> start(size_t(d.domain_size) + 1, 0);
  for (uint64_t i = 0; i < d.n_coefs; i++) start[read_fields(d.coefs, i).c + 1]++;
  for (size_t c = 0; c < d.domain_size; c++) start[c + 1] += start[c];
  std::vector<uint32_t> order(d.n_coefs);
  for (uint64_t i = 0; i < d.n_coefs; i++) order[start[read_fields(d.coefs, i).c]++] = uint32_t(i);
  return order;
}

}  // namespace

coef_plan_t plan_coefs(const cuzk_key_desc& d) {
  coef_plan_t plan;
  if (d.n_coefs == 0) return plan;
  if (!check_records(d)) plan.order = sort_by_constraint(d);
  auto constraint_at = [&](uint64_t i) { return read_fields(d.coefs, plan.record(i)).c; };
  // ~16k records per chunk (one Montgomery product each, ~1 ms) makes scheduling overhead negligible
  // and still leaves hundreds of chunks to balance many threads on 2^22+ constraint circuits.
  uint64_t nchunks = std::clamp<uint64_t>(d.n_coefs / (1 << 14), 1, 4096);
  plan.chunk_begin.push_back(0);
  for (uint64_t t = 1; t < nchunks; t++) {
    uint64_t b = std::max(d.n_coefs * t / nchunks, plan.chunk_begin.back());
    while (b > 0 && b < d.n_coefs && constraint_at(b) == constraint_at(b - 1)) b++;
    if (b > plan.chunk_begin.back() && b < d.n_coefs) plan.chunk_begin.push_back(b);
  }
  plan.chunk_begin.push_back(d.n_coefs);
  return plan;
}

}  // namespace cuzk
