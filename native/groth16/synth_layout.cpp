// synth_layout: the section-4 records as two CSR matrices for the GPU's synthesis, built with the
// key's scatter plan (groth16/key.cpp): its chunks touch disjoint constraints, so the per-row counts
// and each chunk's place in the CSR arrays follow without atomics or a sort.
#include "synth_layout.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "../util/error.hpp"
#include "../util/thread_pool.hpp"

namespace cuzk {

namespace {

struct fields_t {
  uint32_t m, c, s;
};

inline fields_t fields_at(const cuzk_key& key, uint64_t i) {
  fields_t f;
  std::memcpy(&f, key.desc.coefs + key.plan.record(i) * coef_record_bytes, sizeof f);
  return f;
}

// Constraint of each plan chunk's first record, in plan order.
std::vector<uint32_t> first_constraints(const cuzk_key& key) {
  const coef_plan_t& plan = key.plan;
  std::vector<uint32_t> cf(plan.nchunks());
  for (size_t t = 0; t < cf.size(); t++) cf[t] = fields_at(key, plan.chunk_begin[t]).c;
  return cf;
}

constexpr uint64_t window_records = uint64_t(1) << 20;

}  // namespace

synth_layout_t synth_layout(const cuzk_key& key) {
  const cuzk_key_desc& d = key.desc;
  const coef_plan_t& plan = key.plan;
  const size_t n = d.domain_size, rows = 2 * n;
  if (d.n_coefs >= (uint64_t(1) << 32))
    fail(CUZK_E_DEVICE_OOM, "GPU synthesis: " + std::to_string(d.n_coefs) +
                                " coefficient records are more than its u32 offsets address (2^32 - 1)");
  synth_layout_t lay;
  lay.row_ptr.assign(rows + 1, 0);
  uint32_t* count = lay.row_ptr.data() + 1;  // count[row], turned into offsets below
  thread_pool::global().parallel_for(plan.nchunks(), [&](size_t t) {
    for (uint64_t i = plan.chunk_begin[t]; i < plan.chunk_begin[t + 1]; i++) {
      fields_t f = fields_at(key, i);
      count[size_t(f.m) * n + f.c]++;
    }
  });
  for (size_t r = 0; r < rows; r++) {
    if (count[r] > synth_short_row) lay.long_rows.push_back(uint32_t(r));
    lay.row_ptr[r + 1] += lay.row_ptr[r];
  }
  return lay;
}

void synth_layout_t::stream(const cuzk_key& key, const emit_fn& emit) const {
  const coef_plan_t& plan = key.plan;
  const size_t n = key.desc.domain_size, nch = plan.nchunks();
  const std::vector<uint32_t> cf = first_constraints(key);
  std::vector<uint32_t> wires;
  std::vector<uint8_t> values;
  // CSR offset in matrix m where chunk t's records of m start (the end of m after the last chunk)
  auto start_of = [&](size_t t, uint32_t m) { return t < nch ? row_ptr[m * n + cf[t]] : row_ptr[(m + 1) * n]; };
  for (size_t t0 = 0, t1; t0 < nch; t0 = t1) {
    t1 = t0 + 1;
    while (t1 < nch && plan.chunk_begin[t1] - plan.chunk_begin[t0] < window_records) t1++;
    const uint64_t a0 = start_of(t0, 0), a_len = start_of(t1, 0) - a0;
    const uint64_t b0 = start_of(t0, 1), b_len = start_of(t1, 1) - b0;
    const uint64_t total = plan.chunk_begin[t1] - plan.chunk_begin[t0];
    require(a_len + b_len == total, "synth_layout: a window's CSR ranges do not add up to its records");
    wires.resize(total);
    values.resize(total * synth_value_bytes);
    // staging: the window's A records first, then its B records, each chunk's at its CSR place
    thread_pool::global().parallel_for(t1 - t0, [&](size_t k) {
      const size_t t = t0 + k;
      uint64_t pos[2] = {start_of(t, 0) - a0, a_len + start_of(t, 1) - b0};
      for (uint64_t i = plan.chunk_begin[t]; i < plan.chunk_begin[t + 1]; i++) {
        const uint8_t* rec = key.desc.coefs + plan.record(i) * coef_record_bytes;
        fields_t f;
        std::memcpy(&f, rec, sizeof f);
        uint64_t p = pos[f.m]++;
        wires[p] = f.s;
        std::memcpy(&values[p * synth_value_bytes], rec + 12, synth_value_bytes);
      }
    });
    if (a_len) emit(a0, a_len, wires.data(), values.data());
    if (b_len) emit(b0, b_len, wires.data() + a_len, values.data() + a_len * synth_value_bytes);
  }
}

}  // namespace cuzk
