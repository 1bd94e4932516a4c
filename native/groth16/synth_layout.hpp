// The key's section-4 records rearranged for synthesis on the GPU (groth16/synth_gpu.cuh): one CSR
// per matrix, rows [0, n) the A matrix's constraints and rows [n, 2n) the B matrix's, each row's
// records as a u32 wire index and its 32-byte value (v·R^2, as in the zkey) in two arrays. Rows of at
// most synth_short_row records are summed by one GPU thread each; the longer ones (packing LCs of a
// few hundred terms) are listed apart and summed by a warp each, so no thread waits on a long row.
// Built on the host threads once per key upload for a streamed placement (and where the section has no
// device address; a resident one is built on the device: synth_gpu.cuh), and staged to the device in
// windows of about 2^20 records, so the host never holds a second copy of the section.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "key.hpp"

namespace cuzk {

constexpr uint32_t synth_short_row = 8;
constexpr size_t synth_value_bytes = 32;

// Device bytes of the layout from the key's sizes alone: row offsets, wire indices, values and the
// long-row list at its largest (every long row has more than synth_short_row records), so the
// count never falls short of what synth_upload allocates.
inline uint64_t synth_layout_bytes(uint32_t domain_size, uint64_t n_coefs) {
  return (2 * uint64_t(domain_size) + 1) * 4 + n_coefs * (4 + synth_value_bytes) + n_coefs / (synth_short_row + 1) * 4;
}

struct synth_layout_t {
  std::vector<uint32_t> row_ptr;    // 2n + 1 offsets into the record arrays (A's records, then B's)
  std::vector<uint32_t> long_rows;  // rows with more than synth_short_row records, ascending

  // Hands the records to |emit| in CSR order, in consecutive ranges [first, first + count) of at
  // most about 2^20 records (one range may be longer when a single constraint is), staged in host
  // buffers valid only during the call: |wires| count u32, |values| count × 32 bytes.
  using emit_fn = std::function<void(uint64_t first, uint64_t count, const uint32_t* wires, const uint8_t* values)>;
  void stream(const cuzk_key& key, const emit_fn& emit) const;
};

// One counting pass over the records on the host threads (the key's plan keeps chunks
// constraint-disjoint, so the counts need no atomics). CUZK_E_DEVICE_OOM for 2^32 or more records
// (u32 offsets; such a section is over 180 GB and fits no GPU).
synth_layout_t synth_layout(const cuzk_key& key);

}  // namespace cuzk
