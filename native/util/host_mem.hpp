// Host mappings for proving-key sections: private anonymous memory, 2 MiB-aligned, transparent huge
// pages advised only with CUZK_HUGEPAGES=1 (host_mem.cpp says why), that the caller fills (the parallel
// reads of api/key_read.cpp fault it in) and the CUDA build may then page-lock in place with
// cudaHostRegister (~0.04 s/GiB on touched memory against ~0.5-0.8 s/GiB for cudaHostAlloc,
// shared/perf/h200.md). The registry remembers each mapping's length so free and register need only
// the address.
#pragma once
#include <cstdint>

namespace cuzk {

// A fresh mapping of at least |bytes| (rounded up to pages; never NULL). Throws CUZK_E_HOST_OOM.
void* host_map(uint64_t bytes);
// The mapping's length if |p| is the start of one of host_map's mappings, else 0.
uint64_t host_mapping_bytes(const void* p);
// Unmaps |p| if it is one of host_map's mappings; false (and nothing done) otherwise.
bool host_unmap(void* p);

}  // namespace cuzk
