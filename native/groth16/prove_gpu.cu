// One Groth16 proof on the GPU, synthesis included: the algorithm of groth16/prove.hpp (snarkjs
// groth16_prove.js) step for step, so the proof is byte-identical to the CPU core's for the same r, s.
// Only the witness is uploaded. Two sides run at once once it has arrived: the main chain on the
// main stream (prove_chain_gpu.cuh: synthesis, transforms, H, the H MSM) and the witness MSMs on a
// second stream and host thread (prove_witness_gpu.cuh); prove_timeline.cuh holds what they share.
// The key stays on the device between proofs (key_gpu.cu), its streamed sets in page-locked host memory.
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "../util/gpu_tuning.hpp"
#include "key_gpu.cuh"
#include "prove.hpp"
#include "prove_chain_gpu.cuh"
#include "prove_gpu.hpp"
#include "prove_timeline.cuh"
#include "prove_witness_gpu.cuh"

namespace cuzk {

// The witness MSMs start (gpu_tuning_t::overlap, CUZK_GPU_OVERLAP; a measuring knob): "streams"
// (default) on their own stream as soon as the witness is in, beside synthesis and the transforms;
// "sort-beside" the same, but their first accumulation waits for the transforms (an accumulation's
// blocks hold an SM's registers for milliseconds, so transform kernels queued beside them wait);
// "serial" after everything else, which shows each side's own time. (Starting them wholly after the
// transforms measured 48.1 against 44.7 ms per 2^20 proof; sort-beside keeps their scalar side
// overlapped. A stream of the device's highest priority for synthesis, the transforms and H did not
// help, H200 2026-12-01: transforms 8.56 against 8.76 ms at 2^20, the 2^22 proof 90.3 against 86.0;
// removed.) Both sides' failures are kept until both have stopped, so neither frees what the other reads.
template <class C>
void gpu_groth16_prove_ab(const cuzk_key& key, int device, const uint8_t* witness, const uint8_t* r, const uint8_t* s,
                          uint8_t* proof_out, const volatile int32_t* cancel, prove_timings_t& tm) {
  using namespace groth16_detail;
  using namespace prove_gpu_detail;
  const cuzk_key_desc& d = key.desc;
  const size_t n = d.domain_size, w_bytes = size_t(d.n_vars) * 32;
  const uint32_t lg_n = uint32_t(__builtin_ctzll(n));
  auto t_start = clock_t_::now(), t0 = t_start;
  gpu_use_device(device);
  tm.device = device;
  check_cancel(cancel, "h2d");
  std::shared_ptr<key_dev_t> kd = resident_key<C>(key, device);

  const overlap_t mode = gpu_tuning().overlap;
  gpu_stream_t st, st_w;
  dev_arena_t ar(st);
  const proof_buffers_t<typename C::fr_t> buf(ar, n, w_bytes);
  proof_events_t ev;
  ev.start.record(st);
  CUZK_CUDA_OK(cudaMemcpyAsync(buf.w, witness, w_bytes, cudaMemcpyHostToDevice, st));
  ev.w.record(st);
  tm.h2d_bytes = w_bytes;
  st.sync();  // uploaded before the compute region is taken
  auto t_wait = clock_t_::now();
  std::unique_lock<std::mutex> region = compute_region_t::enter(device);
  tm.wait = ms_since(t_wait);
  check_cancel(cancel, "synthesis");
  ev.k0.record(st);

  proof_points_t<C> pts;
  proof_errors_t err;
  {
    // a streamed key's staging rings, one per stream, made before either side starts so the first
    // chunks of each upload at once (the witness side's during synthesis); freed before the region opens
    dev_arena_t ar_ring_w(st_w), ar_ring(st);
    chunk_ring_t ring_w(ar_ring_w, witness_chunks<C>(*kd, d)), ring(ar_ring, main_chunks<C>(*kd, d));
    gate_t ntt_recorded;  // sort-beside: ev.ntt is recorded (or the main stream failed before it)
    CUZK_CUDA_OK(cudaStreamWaitEvent(st_w, ev.w, 0));
    auto witness_side = [&] {
      try {
        witness_msms<C>(*kd, d, buf.w, device, st_w, mode, ntt_recorded, ev, cancel, pts, ring_w);
      } catch (...) {
        err.witness = std::current_exception();
      }
    };
    std::thread w_thread;
    if (mode != overlap_t::serial) w_thread = std::thread(witness_side);
    try {
      pts.g1[3] = main_chain<C>(*kd, buf, n, lg_n, st, ev, ntt_recorded, cancel, d.points_h, ring);
    } catch (...) {
      err.main = std::current_exception();
      ntt_recorded.release();
    }
    if (w_thread.joinable()) w_thread.join();
    else if (!err.main) witness_side();
    (void)cudaStreamSynchronize(st_w);  // after a failure, before the arena frees what it may still read
  }
  (void)cudaStreamSynchronize(st_w);  // the rings' slots freed before another proof takes the region
  (void)cudaStreamSynchronize(st);
  region.unlock();
  err.rethrow();

  ev.timings(tm);
  t0 = clock_t_::now();
  finish_proof<C>(d, pts.g1, pts.b2, r, s, proof_out);
  tm.finish = ms_since(t0);
  tm.total = ms_since(t_start);
}

template void gpu_groth16_prove_ab<bn254>(const cuzk_key&, int, const uint8_t*, const uint8_t*, const uint8_t*,
                                          uint8_t*, const volatile int32_t*, prove_timings_t&);
template void gpu_groth16_prove_ab<bls12_381>(const cuzk_key&, int, const uint8_t*, const uint8_t*, const uint8_t*,
                                              uint8_t*, const volatile int32_t*, prove_timings_t&);

}  // namespace cuzk
