// host_map / host_unmap: see host_mem.hpp.
#include "host_mem.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "error.hpp"

namespace cuzk {

namespace {

constexpr uint64_t page_bytes = 4096;
constexpr uint64_t huge_bytes = uint64_t(2) << 20;

std::mutex mu;
std::unordered_map<const void*, uint64_t>& mappings() {
  static std::unordered_map<const void*, uint64_t> m;
  return m;
}

// Off unless CUZK_HUGEPAGES=1: on the 2-core VM the first touch of fresh huge pages cost ~2 µs/KiB of
// system time (a 560 MB key: ~1.2 s against ~0.4 s with 4 KiB pages), though recycled ones were 3x
// cheaper than small pages (bench/RESULTS.md); `npm run bench -- key-load --fresh` measures both.
bool huge_pages_wanted() {
  static const bool on = [] {
    const char* v = std::getenv("CUZK_HUGEPAGES");
    return v && std::strcmp(v, "1") == 0;
  }();
  return on;
}

}  // namespace

void* host_map(uint64_t bytes) {
  const uint64_t len = (bytes + page_bytes - 1) & ~(page_bytes - 1);
  // big mappings start on a 2 MiB boundary (THP needs it), whether or not huge pages are advised:
  // over-map by one huge page and trim
  const bool big = len >= huge_bytes;
  const uint64_t span = big ? len + huge_bytes : len;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) fail(CUZK_E_HOST_OOM, "could not map " + std::to_string(bytes) + " bytes of host memory");
  auto* base = static_cast<uint8_t*>(raw);
  if (big) {
    auto* start = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(base) + huge_bytes - 1) & ~(huge_bytes - 1));
    if (start > base) munmap(base, start - base);
    uint8_t* end = start + len;
    if (base + span > end) munmap(end, base + span - end);
    base = start;
    if (huge_pages_wanted()) (void)madvise(base, len, MADV_HUGEPAGE);  // advice only: without THP the mapping still works
  }
  std::lock_guard<std::mutex> lk(mu);
  mappings()[base] = len;
  return base;
}

uint64_t host_mapping_bytes(const void* p) {
  std::lock_guard<std::mutex> lk(mu);
  auto it = mappings().find(p);
  return it == mappings().end() ? 0 : it->second;
}

bool host_unmap(void* p) {
  uint64_t len;
  {
    std::lock_guard<std::mutex> lk(mu);
    auto it = mappings().find(p);
    if (it == mappings().end()) return false;
    len = it->second;
    mappings().erase(it);
  }
  munmap(p, len);
  return true;
}

}  // namespace cuzk
