// Library-level entry points: status names, backend identity, threads, native-owned memory.
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "api/guard.hpp"
#include "field/mont.hpp"
#include "util/host_mem.hpp"
#include "util/thread_pool.hpp"

using namespace cuzk;

static const char* const status_names[] = {
    "CUZK_OK",       "CUZK_E_INVALID_ARG", "CUZK_E_FORMAT",   "CUZK_E_HOST_OOM",
    "CUZK_E_DEVICE_OOM", "CUZK_E_NO_DEVICE", "CUZK_E_CUDA",  "CUZK_E_DEVICE_LOST",
    "CUZK_E_CANCELLED", "CUZK_E_VERIFY",   "CUZK_E_INTERNAL"};

namespace {

// The teardown's holder (cuzk_exit_now's CUZK_EXIT_DEFER_TEARDOWN): a child made with CLONE_VM shares
// the process's memory, and without CLONE_FILES it holds its own references to every open file (the
// GPU driver's among them), so when the process ends neither its address space (the pinned key) nor
// the driver's context is released: the kernel frees both when this child ends, after the caller's
// wait for the process is over. The child runs beside the process's other threads as they are
// killed, so it calls nothing that takes a lock or touches memory they may hold (no malloc, no
// stdio): raw system calls on its own static stack only. It drops its copies of stdin, stdout and
// stderr at once (a caller reading the process's output to its end must not wait for it), asks to be
// killed when the process ends, and ends at once if that has already happened.
alignas(64) unsigned char teardown_stack[64 * 1024];

int hold_teardown(void* arg) {
  const long parent = reinterpret_cast<long>(arg);
  uint64_t all = ~uint64_t(0);  // every signal blocked (SIGKILL cannot be): no copied handler runs here
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, nullptr, sizeof all);
  for (long fd = 0; fd <= 2; fd++) syscall(SYS_close, fd);
  syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  while (syscall(SYS_getppid) == parent) syscall(SYS_ppoll, nullptr, 0, nullptr, nullptr, 0);  // until SIGKILL
  syscall(SYS_exit, 0);
  return 0;
}

void defer_teardown() {
  // no child (clone refused: a limit on processes): the process ends with its own teardown, as before
  (void)clone(hold_teardown, teardown_stack + sizeof teardown_stack, CLONE_VM | SIGCHLD, reinterpret_cast<void*>(long(getpid())));
}

}  // namespace

extern "C" {

CUZK_API const char* cuzk_status_name(int32_t code) {
  if (code < 0 || code >= (int32_t)(sizeof status_names / sizeof *status_names)) return "CUZK_E_UNKNOWN";
  return status_names[code];
}

#ifdef CUZK_BACKEND_CPU
CUZK_API const char* cuzk_backend_name(void) { return "cpu"; }
CUZK_API int32_t cuzk_cuda_available(void) { return 0; }
CUZK_API int32_t cuzk_gpu_count(void) { return 0; }
CUZK_API cuzk_status cuzk_gpu_describe(int32_t device, cuzk_gpu_desc*, cuzk_error* err) {
  return guard([&] { fail(CUZK_E_NO_DEVICE, "GPU " + std::to_string(device) + " does not exist: this is the CPU build"); }, err);
}
CUZK_API cuzk_status cuzk_set_gpu_mode(int32_t mode, cuzk_error* err) {
  return guard([&] { require(mode >= 0 && mode <= 2, "cuzk_set_gpu_mode: mode must be 0, 1 or 2"); }, err);
}
CUZK_API cuzk_status cuzk_gpu_warm(int32_t device, cuzk_error* err) {
  return guard([&] { fail(CUZK_E_NO_DEVICE, "GPU " + std::to_string(device) + " does not exist: this is the CPU build"); }, err);
}
#endif

CUZK_API const char* cuzk_field_impl(void) {
#ifdef CUZK_MONT_X86
  if (mont_x86::enabled) return "x86-64-adx";
#endif
  return "generic";
}

CUZK_API void cuzk_exit_now(int32_t status, uint32_t flags) {
  if (flags & CUZK_EXIT_DEFER_TEARDOWN) defer_teardown();
  // _exit, not exit: no atexit handlers, so not the CUDA runtime's teardown of its contexts and
  // registrations one by one; the kernel drops the process's GPU state with its files
  _exit(status & 0xff);
}

CUZK_API cuzk_status cuzk_set_threads(uint32_t nthreads, cuzk_error* err) {
  return guard([&] { thread_pool::global().resize(nthreads); }, err);
}

CUZK_API uint32_t cuzk_get_threads(void) { return (uint32_t)thread_pool::global().size(); }

#ifdef CUZK_BACKEND_CPU
// The CPU build has no page-locking to do: pinned buffers are plain aligned memory, and pinning a
// mapped one does nothing.
CUZK_API cuzk_status cuzk_mem_alloc(uint64_t bytes, int32_t kind, void** out, cuzk_error* err) {
  return guard([&] {
    require(out != nullptr, "cuzk_mem_alloc: out is NULL");
    require(bytes > 0, "cuzk_mem_alloc: zero bytes");
    require(kind >= CUZK_MEM_PLAIN && kind <= CUZK_MEM_MAPPED, "cuzk_mem_alloc: unknown kind " + std::to_string(kind));
    if (kind == CUZK_MEM_MAPPED) {
      *out = host_map(bytes);
      return;
    }
    void* p = nullptr;
    size_t rounded = (bytes + 63) & ~uint64_t(63);
    if (posix_memalign(&p, 64, rounded) != 0 || !p)
      fail(CUZK_E_HOST_OOM, "cuzk_mem_alloc: could not allocate " + std::to_string(bytes) + " bytes");
    *out = p;
  }, err);
}

CUZK_API cuzk_status cuzk_mem_free(void* ptr, cuzk_error* err) {
  return guard([&] {
    if (!host_unmap(ptr)) std::free(ptr);
  }, err);
}

CUZK_API cuzk_status cuzk_mem_pin(void* ptr, cuzk_error* err) {
  return guard([&] { require(host_mapping_bytes(ptr) > 0, "cuzk_mem_pin: not a mapped buffer from cuzk_mem_alloc"); }, err);
}
#endif

}  // extern "C"
