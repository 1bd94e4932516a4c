// The timeline of one GPU proof (prove_gpu.cu): what its two sides, the main stream (synthesis,
// transforms, H) and the witness MSMs' stream and host thread, share. The compute region that
// serialises proofs on a device, the gate by which the witness side waits for the transforms
// (CUZK_GPU_OVERLAP=sort-beside, gpu_tuning_t::overlap), each side's error slot, and the CUDA events
// whose stream times become prove_timings_t.
#pragma once
#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>

#include "../util/gpu.hpp"
#include "key.hpp"

namespace cuzk {
namespace prove_gpu_detail {

// Opened once by one thread, waited for by another.
struct gate_t {
  std::mutex m;
  std::condition_variable cv;
  bool open = false;
  void release() {
    {
      std::lock_guard<std::mutex> lk(m);
      open = true;
    }
    cv.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lk(m);
    cv.wait(lk, [&] { return open; });
  }
};

// One compute region per device at a time: a proof uploads its inputs before taking it, so the next
// proof's upload (copy engine) and the previous proof's randomisation (host) overlap this proof's
// kernels, and kernel time is not shared between proofs. Devices past max_devices share a region
// (device mod max_devices; gpu_use_device has checked |device| exists).
class compute_region_t {
 public:
  static constexpr int max_devices = 64;
  static std::unique_lock<std::mutex> enter(int device) {
    static std::mutex regions[max_devices];
    return std::unique_lock<std::mutex>(regions[device & (max_devices - 1)]);
  }
};

// The first failure of each side of a proof, kept until both sides have stopped; the main stream's
// is the one rethrown when both failed.
struct proof_errors_t {
  std::exception_ptr main, witness;
  void rethrow() const {
    if (main) std::rethrow_exception(main);
    if (witness) std::rethrow_exception(witness);
  }
};

// The events both streams record, in stream order: start, witness uploaded (w), compute region
// taken (k0), synthesis done (syn), transforms and H scalars done (ntt), H MSM done (h); the witness
// MSMs from w0 to w1, B2 and B1 done at wb, A at wa (C then ends at w1).
struct proof_events_t {
  gpu_event_t start, w, k0, syn, ntt, h, w0, wb, wa, w1;

  // Stream times into |tm|, relative to |start| (ms).
  void timings(prove_timings_t& tm) const {
    double h2d = w.since(start), k0_ = k0.since(start), syn_ = syn.since(start), ntt_ = ntt.since(start);
    double h_end = h.since(start), w0_ = w0.since(start), w1_ = w1.since(start);
    double wb_ = wb.since(start), wa_ = wa.since(start);
    tm.h2d = h2d;
    tm.abc = syn_ - k0_;  // synthesis on the device
    tm.ntt = ntt_ - syn_;
    tm.msm_h = h_end - ntt_;
    // the four witness MSMs together in msm_a (their stream's span: the stats' msm_ms adds msm_h to it),
    // and for the trace line (CUZK_TRACE_PROVE) where it went: B2 and B1 in msm_b2, A in msm_b1, C in msm_c
    tm.msm_a = w1_ - w0_;
    tm.msm_b2 = wb_ - w0_;
    tm.msm_b1 = wa_ - wb_;
    tm.msm_c = w1_ - wa_;
    tm.kernel = union_ms(k0_, h_end, w0_, w1_);
    tm.d2h = 0;  // only the MSM window sums come back, inside msm_device (a few KiB)
  }

  // Length of [a0, a1] ∪ [b0, b1]
  static double union_ms(double a0, double a1, double b0, double b1) {
    if (b0 > a1 || a0 > b1) return (a1 - a0) + (b1 - b0);
    return std::max(a1, b1) - std::min(a0, b0);
  }
};

}  // namespace prove_gpu_detail
}  // namespace cuzk
