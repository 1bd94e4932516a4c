// cuzk_file_read_checked: a zkey's big sections from the file into the caller's buffers in chunks
// on the thread pool, each chunk checked while it is still in cache (points on their curve,
// coefficient records in range). One pass replaces a read per section on libuv's threads followed
// by a check per section: the copy out of the page cache, the page faults of the fresh buffers and
// the checks all spread over every core (the faults of one thread's pread overlap another's checks).
// cuzk_scalars_read_checked is the same pass for a witness's values, from a file or from memory.
#include <sys/mman.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "api/dispatch.hpp"
#include "api/point_defect.hpp"
#include "curve/on_curve_ifma.hpp"
#include "util/thread_pool.hpp"

namespace {
using namespace cuzk;

constexpr uint64_t max_chunk_bytes = uint64_t(4) << 20;
constexpr uint64_t min_chunk_bytes = uint64_t(256) << 10;
constexpr uint64_t coef_bytes = 12 + 32;  // u32 matrix, u32 constraint, u32 signal, Fr (32 bytes on both curves)

struct chunk_t {
  uint64_t part, begin, len;  // bytes [begin, begin + len) of the part
  uint64_t file_pos;
};

// The lowest-positioned defect of each part, and of all parts (chunks at or past it are skipped).
class defects_t {
 public:
  explicit defects_t(cuzk_read_part* parts, uint64_t n) : parts_(parts), pos_(n, UINT64_MAX) {}

  void record(uint64_t part, uint64_t file_pos, int32_t defect, int64_t first_bad, int32_t os_error = 0) {
    std::lock_guard<std::mutex> lk(mu_);
    if (file_pos >= pos_[part]) return;
    pos_[part] = file_pos;
    parts_[part].defect = defect;
    parts_[part].first_bad = first_bad;
    parts_[part].os_error = os_error;
    uint64_t cur = stop_.load();
    while (file_pos < cur && !stop_.compare_exchange_weak(cur, file_pos)) {}
  }

  bool past_first(uint64_t file_pos) const { return file_pos >= stop_.load(std::memory_order_relaxed); }

 private:
  cuzk_read_part* parts_;
  std::vector<uint64_t> pos_;
  std::atomic<uint64_t> stop_{UINT64_MAX};
  std::mutex mu_;
};

// Faults the chunk's pages in with one call before the read copies into them: ~25% less CPU than
// the read's own page faults on the 2-core VM (560 MB: 265 vs 345 ms). Advice only: a kernel
// without MADV_POPULATE_WRITE (Linux < 5.14) says EINVAL and the read faults them as before.
void populate(uint8_t* dest, uint64_t len) {
#ifdef MADV_POPULATE_WRITE
  constexpr uintptr_t page = 4096;
  // whole pages inside the chunk only: the pages it shares with its neighbours (or with memory
  // around a caller's buffer) are left to the read
  uintptr_t lo = (reinterpret_cast<uintptr_t>(dest) + page - 1) & ~(page - 1);
  uintptr_t hi = (reinterpret_cast<uintptr_t>(dest) + len) & ~(page - 1);
  if (hi > lo) (void)madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE);
#else
  (void)dest;
  (void)len;
#endif
}

// Whether bytes [pos, pos + len) of the file are one hole (they read as zeros). SEEK_DATA finds the
// next data at or after pos; a file system without hole support says pos itself (no hole), and
// ENXIO means no data after pos, a hole only if the file does reach pos + len (else the read must
// run and find where it ended). |probe| is a descriptor of its own (probe_fd): lseek moves the
// offset, and the caller's must stay untouched. probe < 0: no hole is ever found.
bool is_hole(int probe, uint64_t pos, uint64_t len) {
#ifdef SEEK_DATA
  if (probe < 0) return false;
  off_t data = lseek(probe, off_t(pos), SEEK_DATA);
  if (data >= 0) return uint64_t(data) >= pos + len;
  struct stat st;
  return errno == ENXIO && fstat(probe, &st) == 0 && uint64_t(st.st_size) >= pos + len;
#else
  (void)probe;
  (void)pos;
  (void)len;
  return false;
#endif
}

// The same file opened again (its own file description, so its own offset) for is_hole's lseeks;
// -1 (holes never skipped) where /proc is not there. Closed when it goes out of scope.
struct probe_fd {
  int fd = -1;
  explicit probe_fd(int of) {
    if (of >= 0) fd = open(("/proc/self/fd/" + std::to_string(of)).c_str(), O_RDONLY | O_CLOEXEC);
  }
  ~probe_fd() {
    if (fd >= 0) close(fd);
  }
  probe_fd(const probe_fd&) = delete;
  probe_fd& operator=(const probe_fd&) = delete;
};

// Where the bytes come from: the open file |fd| (pread), or with fd < 0 the caller's memory |mem|,
// positions then being offsets into it (bounds checked by the caller).
struct source_t {
  int fd = -1;
  const uint8_t* mem = nullptr;
};

// false when the read failed or the file ended (recorded)
bool read_chunk(const source_t& src, const cuzk_read_part& p, const chunk_t& c, defects_t& defects) {
  auto* dest = static_cast<uint8_t*>(p.dest) + c.begin;
  if (src.fd < 0) {
    std::memcpy(dest, src.mem + c.file_pos, c.len);
    return true;
  }
  const int fd = src.fd;
  populate(dest, c.len);
  for (uint64_t done = 0; done < c.len;) {
    ssize_t got = pread(fd, dest + done, c.len - done, off_t(c.file_pos + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      uint64_t at = c.file_pos + done;
      defects.record(c.part, at, got == 0 ? CUZK_READ_ENDED : CUZK_READ_IO, int64_t(at), got == 0 ? 0 : errno);
      return false;
    }
    done += uint64_t(got);
  }
  return true;
}

template <class C>
int32_t item_defect(int32_t check, const uint8_t* b, uint32_t domain_size, uint64_t n_vars) {
  switch (check) {
    case CUZK_READ_G1: return point_defect<C, typename C::g1>(b, false);
    case CUZK_READ_G2: return point_defect<C, typename C::g2>(b, false);
    case CUZK_READ_COEFS: {
      uint32_t f[3];
      std::memcpy(f, b, sizeof f);
      using F = typename C::fr_t;
      bool ok = f[0] < 2 && f[1] < domain_size && f[2] < n_vars && is_canonical(F::load(b + 12));
      return ok ? 0 : CUZK_READ_BAD_RECORD;
    }
    case CUZK_READ_FR: return is_canonical(C::fr_t::load(b)) ? 0 : CUZK_READ_BAD_SCALAR;
    default: return 0;
  }
}

template <class C>
uint64_t item_bytes(int32_t check) {
  switch (check) {
    case CUZK_READ_RAW: return 1;
    case CUZK_READ_G1: return affine_t<typename C::g1>::nbytes;
    case CUZK_READ_G2: return affine_t<typename C::g2>::nbytes;
    case CUZK_READ_COEFS: return coef_bytes;
    case CUZK_READ_FR: return C::fr_t::nbytes;
    default: fail(CUZK_E_INVALID_ARG, "cuzk_file_read_checked: unknown check " + std::to_string(check));
  }
}

template <class C>
void read_checked(const source_t& src, uint32_t domain_size, uint64_t n_vars, cuzk_read_part* parts, uint64_t n) {
  uint64_t total = 0;
  for (uint64_t i = 0; i < n; i++) {
    cuzk_read_part& p = parts[i];
    uint64_t item = item_bytes<C>(p.check);
    require(p.bytes % item == 0, "cuzk_file_read_checked: part " + std::to_string(i) + " is not a whole number of items");
    require(p.bytes == 0 || p.dest != nullptr, "cuzk_file_read_checked: part " + std::to_string(i) + " has no destination");
    require(p.file_offset + p.bytes >= p.file_offset && p.file_offset + p.bytes <= uint64_t(INT64_MAX),
            "cuzk_file_read_checked: part " + std::to_string(i) + " lies past any file");
    p.defect = CUZK_READ_OK;
    p.first_bad = -1;
    p.os_error = 0;
    total += p.bytes;
  }
  // chunks small enough for every thread to get several (balance), large enough that a syscall is noise
  const uint64_t threads = thread_pool::global().size();
  const uint64_t target = std::clamp(total / (threads * 8), min_chunk_bytes, max_chunk_bytes);
  std::vector<chunk_t> chunks;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t item = item_bytes<C>(parts[i].check);
    uint64_t step = std::max<uint64_t>(1, target / item) * item;
    for (uint64_t b = 0; b < parts[i].bytes; b += step)
      chunks.push_back({i, b, std::min(step, parts[i].bytes - b), parts[i].file_offset + b});
  }
  std::sort(chunks.begin(), chunks.end(), [](const chunk_t& a, const chunk_t& b) { return a.file_pos < b.file_pos; });
  defects_t defects(parts, n);
  bool any_zeroed = false;
  for (uint64_t i = 0; i < n; i++) any_zeroed |= (parts[i].flags & CUZK_READ_DEST_ZEROED) != 0;
  const probe_fd probe(any_zeroed ? src.fd : -1);
  // the verdict on an item of zeros, per part: what a hole's items are (the point at infinity is good)
  std::vector<int32_t> zero_defect(n, 0);
  const std::vector<uint8_t> zeros(affine_t<typename C::g2>::nbytes + coef_bytes, 0);
  for (uint64_t i = 0; i < n; i++) zero_defect[i] = item_defect<C>(parts[i].check, zeros.data(), domain_size, n_vars);
  thread_pool::global().parallel_for(chunks.size(), [&](size_t k) {
    const chunk_t& c = chunks[k];
    if (defects.past_first(c.file_pos)) return;
    const cuzk_read_part& p = parts[c.part];
    const uint64_t item = item_bytes<C>(p.check);
    if ((p.flags & CUZK_READ_DEST_ZEROED) && is_hole(probe.fd, c.file_pos, c.len)) {
      // every item here is zeros, as the destination is: one verdict stands for them all
      int32_t d = zero_defect[c.part];
      if (d != 0) defects.record(c.part, c.file_pos, d, int64_t(c.begin / item));
      return;
    }
    if (!read_chunk(src, p, c, defects) || p.check == CUZK_READ_RAW) return;
    const auto* base = static_cast<const uint8_t*>(p.dest);
    uint64_t off = c.begin;
    // BN254 points eight at a time where the CPU has IFMA (about half the checks' CPU): the
    // lanes they prove good are; the scalar check gives the verdict on every other one, in order
    if constexpr (std::is_same_v<C, bn254>) {
      const bool g1 = p.check == CUZK_READ_G1, g2 = p.check == CUZK_READ_G2;
      if ((g1 || g2) && bn254_points_x8_enabled()) {
        for (; off + 8 * item <= c.begin + c.len; off += 8 * item) {
          const uint8_t good = g1 ? bn254_g1_good_x8(base + off) : bn254_g2_good_x8(base + off);
          if (good == 0xff) continue;
          for (uint64_t k = 0; k < 8; k++) {
            if (good >> k & 1) continue;
            const uint64_t at = off + k * item;
            int32_t d = item_defect<C>(p.check, base + at, domain_size, n_vars);
            if (d == 0) continue;
            defects.record(c.part, p.file_offset + at, d, int64_t(at / item));
            return;
          }
        }
      }
    }
    for (; off < c.begin + c.len; off += item) {
      int32_t d = item_defect<C>(p.check, base + off, domain_size, n_vars);
      if (d == 0) continue;
      defects.record(c.part, p.file_offset + off, d, int64_t(off / item));
      return;
    }
  });
}

}  // namespace

extern "C" {

CUZK_API cuzk_status cuzk_file_read_checked(int32_t fd, int32_t curve, uint32_t domain_size, uint64_t n_vars,
                                            cuzk_read_part* parts, uint64_t n, cuzk_error* err) {
  return guard([&] {
    static_assert(sizeof(cuzk_read_part) == 48, "cuzk_read_part is 48 bytes (src/ffi/key-read.ts encodes it)");
    require(fd >= 0, "cuzk_file_read_checked: bad file descriptor");
    require(n == 0 || parts != nullptr, "cuzk_file_read_checked: parts is NULL");
    with_curve(curve, [&](auto c) { read_checked<decltype(c)>(source_t{fd, nullptr}, domain_size, n_vars, parts, n); });
  }, err);
}

CUZK_API cuzk_status cuzk_scalars_read_checked(int32_t fd, const uint8_t* src, uint64_t offset, int32_t curve,
                                               uint64_t n, uint8_t* dest, int32_t* defect, int64_t* first_bad,
                                               int32_t* os_error, cuzk_error* err) {
  return guard([&] {
    const char* fn = "cuzk_scalars_read_checked: ";
    require(defect && first_bad && os_error, std::string(fn) + "defect, first_bad or os_error is NULL");
    require(fd >= 0 ? src == nullptr : src != nullptr, std::string(fn) + "give a file descriptor or a source buffer, one of them");
    require(n == 0 || dest != nullptr, std::string(fn) + "dest is NULL");
    require(n < (uint64_t(1) << 40) && offset <= uint64_t(INT64_MAX) - 32 * n, std::string(fn) + "the range lies past any file");
    cuzk_read_part part{offset, 32 * n, dest, CUZK_READ_FR, CUZK_READ_OK, -1, 0, 0};
    with_curve(curve, [&](auto c) { read_checked<decltype(c)>(source_t{fd, src}, 0, 0, &part, 1); });
    *defect = part.defect;
    *first_bad = part.first_bad;
    *os_error = part.os_error;
  }, err);
}

}  // extern "C"
