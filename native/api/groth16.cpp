// Groth16 proving entry points: cuzk_key_create / cuzk_key_destroy, and a proof: on the CPU core in
// two phases, cuzk_groth16_synthesize (CPU threads) then cuzk_groth16_prove_ab(device -1) over
// groth16/prove.hpp; on GPU N one call, cuzk_groth16_prove_ab(N) over groth16/prove_gpu.hpp, which
// synthesizes on the device from the key's resident coefficients (CUDA build). The engine and the
// one-shot prover (src/engine/prover.ts) make the same calls.
// Argument checks only; the math lives below. CUZK_TRACE_PROVE=1 in the
// environment prints each proof's phase timings (ms) to stderr, one line per proof.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "api/dispatch.hpp"
#include "groth16/prove.hpp"
#include "groth16/prove_gpu.hpp"

using namespace cuzk;

// The state of the test hook cuzk_debug_fail_next (api/debug_hooks.cpp, test libraries only): in a
// release library nothing can arm it, so the prove path's check is one relaxed load of a zero.
// |debug_fail_code| is written before |debug_fail_calls| is released, and read after a call is taken.
namespace cuzk {
std::atomic<int32_t> debug_fail_calls{0};
std::atomic<int32_t> debug_fail_code{CUZK_OK};

// Takes one armed call, if one is left (several koffi threads may race for the last one), and fails
// with the armed code in the name of |fn|.
static void debug_fail_take(const char* fn) {
  int32_t n = debug_fail_calls.load(std::memory_order_relaxed);
  while (n > 0 && !debug_fail_calls.compare_exchange_weak(n, n - 1, std::memory_order_acquire)) {
  }
  if (n <= 0) return;
  const auto code = static_cast<cuzk_status>(debug_fail_code.load(std::memory_order_relaxed));
  fail(code, std::string(fn) + ": " + cuzk_status_name(code) + " injected by cuzk_debug_fail_next (test hook)");
}
}  // namespace cuzk

namespace {

bool aligned8(const uint8_t* p) { return (reinterpret_cast<uintptr_t>(p) & 7) == 0; }

// Points are read in place as 64-bit limbs, so they must be 8-byte aligned (cuzk_mem_alloc buffers are).
void require_points(const uint8_t* p, uint64_t count, const char* name) {
  if (count == 0) return;
  if (!p) fail(CUZK_E_INVALID_ARG, std::string("cuzk_key_create: ") + name + " is NULL");
  if (!aligned8(p)) fail(CUZK_E_INVALID_ARG, std::string("cuzk_key_create: ") + name + " is not 8-byte aligned");
}

void validate_desc(const cuzk_key_desc& d) {
  uint32_t max_lg = 0;
  with_curve(d.curve, [&](auto c) { max_lg = ntt_roots<typename decltype(c)::fr_t>::s; });
  if (max_lg > 28) max_lg = 28;
  uint32_t n = d.domain_size;
  if (n == 0 || (n & (n - 1)) != 0 || n > (uint32_t(1) << max_lg))
    fail(CUZK_E_INVALID_ARG, "cuzk_key_create: domain_size " + std::to_string(n) + " is not a power of two <= 2^" +
                                 std::to_string(max_lg));
  if (d.n_vars < uint64_t(d.n_public) + 1)
    fail(CUZK_E_INVALID_ARG, "cuzk_key_create: n_vars " + std::to_string(d.n_vars) + " < n_public + 1 = " +
                                 std::to_string(uint64_t(d.n_public) + 1));
  for (auto [p, name] : {std::pair{d.alpha1, "alpha1"}, {d.beta1, "beta1"}, {d.beta2, "beta2"},
                         {d.delta1, "delta1"}, {d.delta2, "delta2"}})
    require_points(p, 1, name);
  require_points(d.points_a, d.n_vars, "points_a");
  require_points(d.points_b1, d.n_vars, "points_b1");
  require_points(d.points_b2, d.n_vars, "points_b2");
  require_points(d.points_c, uint64_t(d.n_vars) - d.n_public - 1, "points_c");
  require_points(d.points_h, n, "points_h");
  if (d.n_coefs > 0 && !d.coefs) fail(CUZK_E_INVALID_ARG, "cuzk_key_create: coefs is NULL");
}

void trace(const prove_timings_t& t, uint32_t domain_size) {
  static const bool on = [] { const char* v = std::getenv("CUZK_TRACE_PROVE"); return v && *v && *v != '0'; }();
  if (!on) return;
  if (t.device >= 0) {  // the witness MSMs' span on their stream, beside synthesis, the transforms and H
    std::fprintf(stderr,
                 "cuzk prove n=%u device=%d: h2d %.1f wait %.1f abc %.1f ntt %.1f msm_h %.1f | witness msms %.1f "
                 "(B2+B1 %.1f, A %.1f, C %.1f) | finish %.1f kernel %.1f total %.1f ms\n",
                 domain_size, t.device, t.h2d, t.wait, t.abc, t.ntt, t.msm_h, t.msm_a, t.msm_b2, t.msm_b1, t.msm_c,
                 t.finish, t.kernel, t.total);
    return;
  }
  std::fprintf(stderr,
               "cuzk prove n=%u device=%d: abc %.1f h2d %.1f ntt %.1f msm_a %.1f msm_b1 %.1f msm_b2 %.1f "
               "msm_c %.1f msm_h %.1f finish %.1f kernel %.1f total %.1f ms\n",
               domain_size, t.device, t.abc, t.h2d, t.ntt, t.msm_a, t.msm_b1, t.msm_b2, t.msm_c, t.msm_h, t.finish,
               t.kernel, t.total);
}

void record(const cuzk_key& key, const prove_timings_t& tm) {
  std::lock_guard<std::mutex> lk(key.timings_mu);
  key.last = tm;
}

void require_ab(const cuzk_key* key, const uint8_t* witness, const uint8_t* ab, const char* fn) {
  require(key != nullptr, std::string(fn) + ": key is NULL");
  require(witness && ab, std::string(fn) + ": NULL buffer");
  require((reinterpret_cast<uintptr_t>(ab) & 7) == 0, std::string(fn) + ": ab is not 8-byte aligned");
}

// A GPU synthesizes on the device, so |ab| is NULL there; the CPU core proves from phase 1's |ab|.
void require_prove_args(const cuzk_key* key, const uint8_t* witness, const uint8_t* ab, int32_t device) {
  const char* fn = "cuzk_groth16_prove_ab";
  require(device >= -1, std::string(fn) + ": device must be -1 (CPU) or a GPU ordinal");
  if (device < 0) return require_ab(key, witness, ab, fn);
  require(key != nullptr, std::string(fn) + ": key is NULL");
  require(witness != nullptr, std::string(fn) + ": NULL buffer");
  require(ab == nullptr, std::string(fn) + ": ab must be NULL on a GPU (it synthesizes A and B on the device)");
}

}  // namespace

extern "C" {

CUZK_API cuzk_status cuzk_key_create(const cuzk_key_desc* desc, cuzk_key** out, cuzk_error* err) {
  return guard([&] {
    require(desc != nullptr, "cuzk_key_create: desc is NULL");
    require(out != nullptr, "cuzk_key_create: out is NULL");
    validate_desc(*desc);
    auto key = std::make_unique<cuzk_key>();
    key->desc = *desc;
    key->plan = plan_coefs(*desc);
    *out = key.release();
  }, err);
}

CUZK_API cuzk_status cuzk_key_destroy(cuzk_key* key, cuzk_error* err) {
  return guard([&] {
    if (!key) return;
    gpu_key_release(key);  // device copies of the points (CUDA build), before the borrowed buffers go
    delete key;
  }, err);
}

CUZK_API cuzk_status cuzk_groth16_synthesize(const cuzk_key* key, const uint8_t* witness, uint8_t* ab,
                                             const volatile int32_t* cancel, cuzk_prove_stats* stats,
                                             cuzk_error* err) {
  return guard([&] {
    require_ab(key, witness, ab, "cuzk_groth16_synthesize");
    prove_timings_t tm;
    with_curve(key->desc.curve, [&](auto c) {
      using F = typename decltype(c)::fr_t;
      F* a = reinterpret_cast<F*>(ab);
      groth16_synthesize<decltype(c)>(*key, witness, a, a + key->desc.domain_size, cancel, tm);
    });
    if (stats) stats->synth_ms = tm.abc;
  }, err);
}

CUZK_API cuzk_status cuzk_groth16_prove_ab(const cuzk_key* key, const uint8_t* witness, uint8_t* ab,
                                           int32_t device, const uint8_t* r, const uint8_t* s,
                                           uint8_t* proof_out, const volatile int32_t* cancel,
                                           cuzk_prove_stats* stats, cuzk_error* err) {
  return guard([&] {
    require_prove_args(key, witness, ab, device);
    require(r && s && proof_out, "cuzk_groth16_prove_ab: NULL buffer");
    if (debug_fail_calls.load(std::memory_order_relaxed) > 0) debug_fail_take("cuzk_groth16_prove_ab");
    prove_timings_t tm;
    with_curve(key->desc.curve, [&](auto c) {
      using C = decltype(c);
      using F = typename C::fr_t;
      if (device >= 0) {
        gpu_groth16_prove_ab<C>(*key, device, witness, r, s, proof_out, cancel, tm);
      } else {
        F* a = reinterpret_cast<F*>(ab);
        groth16_prove_ab<C>(*key, witness, a, a + key->desc.domain_size, r, s, proof_out, cancel, tm);
      }
    });
    record(*key, tm);
    trace(tm, key->desc.domain_size);
    if (stats) {
      if (device >= 0) stats->synth_ms = tm.abc;  // on the device; the CPU core's came from phase 1
      stats->h2d_ms = tm.h2d;
      stats->ntt_ms = tm.ntt;
      // on the device msm_a is the witness MSMs' whole span, msm_b1, msm_b2 and msm_c its parts
      stats->msm_ms = device >= 0 ? tm.msm_a + tm.msm_h : tm.msm_a + tm.msm_b1 + tm.msm_b2 + tm.msm_c + tm.msm_h;
      stats->d2h_ms = tm.d2h;
      stats->finish_ms = tm.finish;
      stats->total_ms = tm.total;
      stats->kernel_ms = tm.kernel;
      stats->h2d_bytes = tm.h2d_bytes;
      stats->device = tm.device;
      stats->wait_ms = tm.wait;
    }
  }, err);
}

CUZK_API uint64_t cuzk_gpu_key_bytes(const cuzk_key* key) {
  uint64_t bytes = 0;
  if (!key) return 0;
  (void)guard([&] { with_curve(key->desc.curve, [&](auto c) { bytes = gpu_key_bytes<decltype(c)>(*key); }); }, nullptr);
  return bytes;
}

CUZK_API cuzk_status cuzk_gpu_key_upload(const cuzk_key* key, int32_t device, uint32_t streamed_sets,
                                         uint64_t chunk_points, uint64_t chunk_records, cuzk_error* err) {
  return guard([&] {
    require(key != nullptr, "cuzk_gpu_key_upload: key is NULL");
    with_curve(key->desc.curve, [&](auto c) {
      gpu_key_upload<decltype(c)>(*key, device, streamed_sets, chunk_points, chunk_records);
    });
  }, err);
}

CUZK_API cuzk_status cuzk_gpu_key_evict(const cuzk_key* key, int32_t device, cuzk_error* err) {
  return guard([&] {
    require(key != nullptr, "cuzk_gpu_key_evict: key is NULL");
    gpu_key_evict(key, device);
  }, err);
}

}  // extern "C"
