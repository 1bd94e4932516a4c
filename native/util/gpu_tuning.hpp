// The GPU's tuning knobs, read once: every CUZK_GPU* variable the CUDA build obeys is parsed here, in
// one place, the first time any is needed (gpu_tuning()), and read-only after. Code that a
// benchmark re-tunes takes a gpu_tuning_t by const reference (the MSM: msm/msm_gpu.cuh), so a
// benchmark passes a modified copy instead of writing a global. Plain C++: no CUDA headers.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace cuzk {

// Which bucket accumulation the GPU MSM runs (msm/msm_gpu_affine.cuh): the XYZZ kernel, the
// batch-affine one for every MSM, the batch-affine one where there are lanes enough (auto), or by
// field and size (default: auto from affine_min_pairs sorted pairs, else XYZZ).
enum accumulation_t : int { acc_auto = 0, acc_xyzz = 1, acc_affine = 2, acc_default = 3 };

// When a GPU proof's witness MSMs start (groth16/prove_timeline.hpp).
enum class overlap_t { streams, sort_beside, serial };

// How a host thread waits for its GPU work (gpu.hpp sets it on each device's context): the runtime's
// own rule (auto: it spins while contexts are fewer than cores, each waiting thread then holding a
// core the intake and the witness reads share), or spin, yield, block.
enum class gpu_sync_t { automatic, spin, yield, block };

// The NTT's pass kernel (ntt/ntt_pass.cuh), a measuring knob: the butterfly's multiply (mont.cuh's
// PTX carry chains, or ntt/mul_wide.hpp's 64-bit products), and whether the last pass's small stages
// give a warp one twiddle (so warps whose twiddle is 1 skip the multiply). Named by CUZK_GPU_NTT:
struct ntt_variant_t {
  bool wide = false;
  bool uniform = false;
};
struct ntt_variant_name_t {
  const char* name;
  ntt_variant_t v;
};
inline constexpr ntt_variant_name_t ntt_variants[] = {
    {"base", {false, false}}, {"base-u", {false, true}}, {"wide", {true, false}}, {"wide-u", {true, true}},
};
// The default, "base" until the H200 has timed the others (scripts/device-ntt.sh).
inline constexpr const char* ntt_variant_default = "base";

// The most lanes a batch-affine thread can be given (msm/affine_lanes.hpp's lanes_max).
constexpr int gpu_affine_lanes_max = 64;

// An on/off measuring knob: |name| set, non-empty and not "0" (read once by each caller's static).
inline bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && *v != '0';
}

struct gpu_tuning_t {
  // The automatic entry points (api/gpu_dispatch.cu). CUZK_GPU: 0 or off → 0 (keep them on the CPU),
  // force → 2 (every size on the GPU), else 1 (by size). CUZK_GPU_MIN_LG=k: one size threshold (2^k)
  // for MSM, NTT and batch_mul instead of each one's own.
  int dispatch_mode = 1;
  bool min_lg_set = false;
  uint32_t min_lg = 0;
  // CUZK_GPU_OVERLAP=streams (default) | sort-beside | serial (measuring knobs; see overlap_t's use).
  overlap_t overlap = overlap_t::streams;
  // CUZK_GPU_SYNC=auto (default) | spin | yield | block (a measuring knob; gpu_sync_t).
  gpu_sync_t sync = gpu_sync_t::automatic;
  // The MSM's accumulation (measuring knobs). CUZK_GPU_ACC=xyzz|affine|auto (unset: acc_default);
  // CUZK_GPU_ACC_LANES=N lanes per batch-affine thread, clamped to 1..64 (0: by the rule);
  // CUZK_GPU_ACC_BLOCKS=N starts the XYZZ kernel at N blocks/SM in every field compiled for N
  // (0: each field's own, accumulate_blocks_of::xyzz_initial).
  accumulation_t accumulation = acc_default;
  uint32_t affine_lanes = 0;
  int xyzz_blocks = 0;
  // Set by benchmarks only (gpu_selftest bench), no variable: the batch-affine kernel's blocks/SM
  // (0: each field's affine_initial) and the accumulation's waves of resident threads (see
  // plan_chunks_kernel). A forced window width 4..22 (0: the cost model, choose_window): benchmarks,
  // and CUZK_GPU_WINDOW=c (a measuring knob: every MSM whose cap allows c).
  int affine_blocks = 0;
  uint32_t accumulate_waves = 2;
  uint32_t window = 0;
  // CUZK_GPU_CHUNK_SQRT=1 (a measuring knob): the accumulation's chunks at least sqrt(largest bucket)
  // pairs long, as before the join ran in log depth (see plan_chunks_kernel).
  bool chunk_sqrt = false;
  // CUZK_GPU_CHUNK_WINDOW=c, 12..22 (a measuring knob): the widest window of a chunked MSM
  // (msm_stream_gpu.cuh chunk_max_window: 16 where unset). key-placement.ts models 16 only: a wider
  // window keeps more buckets than the placement reserved room for.
  uint32_t chunk_window = 0;
  // CUZK_GPU_NTT=name of ntt_variants (unset or unknown: ntt_variant_default).
  ntt_variant_t ntt = ntt_variant(ntt_variant_default);

  static ntt_variant_t ntt_variant(const std::string& name) {
    for (const auto& nv : ntt_variants)
      if (name == nv.name) return nv.v;
    return ntt_variant(ntt_variant_default);
  }

  static gpu_tuning_t from_env() {
    gpu_tuning_t t;
    const char* mode = std::getenv("CUZK_GPU");
    bool off = mode && (!std::strcmp(mode, "0") || !std::strcmp(mode, "off"));
    t.dispatch_mode = off ? 0 : mode && !std::strcmp(mode, "force") ? 2 : 1;
    if (const char* lg = std::getenv("CUZK_GPU_MIN_LG")) {
      t.min_lg_set = true;
      t.min_lg = uint32_t(std::atoi(lg));
    }
    const std::string overlap = env_or_empty("CUZK_GPU_OVERLAP");
    t.overlap = overlap == "serial" ? overlap_t::serial : overlap == "sort-beside" ? overlap_t::sort_beside
                                                                                   : overlap_t::streams;
    const std::string sync = env_or_empty("CUZK_GPU_SYNC");
    t.sync = sync == "spin" ? gpu_sync_t::spin : sync == "yield" ? gpu_sync_t::yield : sync == "block" ? gpu_sync_t::block : gpu_sync_t::automatic;
    const std::string acc = env_or_empty("CUZK_GPU_ACC");
    t.accumulation = acc == "affine" ? acc_affine : acc == "auto" ? acc_auto : acc == "xyzz" ? acc_xyzz : acc_default;
    if (const char* v = std::getenv("CUZK_GPU_ACC_LANES"))
      t.affine_lanes = uint32_t(std::clamp(std::atoi(v), 1, gpu_affine_lanes_max));
    if (const char* v = std::getenv("CUZK_GPU_ACC_BLOCKS")) t.xyzz_blocks = std::atoi(v);
    if (const char* v = std::getenv("CUZK_GPU_WINDOW")) t.window = uint32_t(std::clamp(std::atoi(v), 0, 22));
    t.chunk_sqrt = env_flag("CUZK_GPU_CHUNK_SQRT");
    if (const char* v = std::getenv("CUZK_GPU_CHUNK_WINDOW")) t.chunk_window = uint32_t(std::clamp(std::atoi(v), 12, 22));
    t.ntt = ntt_variant(env_or_empty("CUZK_GPU_NTT"));
    return t;
  }

 private:
  static std::string env_or_empty(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
  }
};

// The process's tuning: from_env() on first use (thread-safe), then read-only.
inline const gpu_tuning_t& gpu_tuning() {
  static const gpu_tuning_t t = gpu_tuning_t::from_env();
  return t;
}

}  // namespace cuzk
