// One Groth16 proof on the GPU, synthesis included: the algorithm of groth16/prove.hpp (snarkjs
// groth16_prove.js) step for step, so the proof is byte-identical to the CPU core's for the same r, s.
// Only the witness is uploaded; A·w and B·w are computed on the device from the key's coefficients
// (groth16/synth_gpu.cuh) straight into the buffers the transforms read. Two streams run at once:
// the witness MSMs (A, B1, B2, C) need only the witness, so they start as soon as it has arrived,
// while the main stream synthesizes A and B, computes C = A∘B, the six transforms and H = A·B − C,
// then the H MSM. A key's points and coefficients are uploaded on its first proof on a device and
// stay resident until evicted.
#include "../field/mont.cuh"
#include "../msm/msm_gpu.cuh"
#include "../msm/msm_gpu_present.cuh"
#include "../ntt/ntt.cuh"
#include "synth_gpu.cuh"

#include <condition_variable>
#include <exception>
#include <string>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "../util/gpu_tuning.hpp"
#include "prove.hpp"
#include "prove_gpu.hpp"

namespace cuzk {
namespace {

struct key_dev_t {
  int device = 0;
  void *a = nullptr, *b1 = nullptr, *b2 = nullptr, *c = nullptr, *h = nullptr;
  // a byte per wire: 1 where its A point (a_present) or its B1 or B2 point (b_present) is not infinity
  uint8_t *a_present = nullptr, *b_present = nullptr;
  synth_dev_t coefs;
  ~key_dev_t() {
    int prev = 0;
    (void)cudaGetDevice(&prev);
    (void)cudaSetDevice(device);
    for (void* p : {a, b1, b2, c, h, static_cast<void*>(a_present), static_cast<void*>(b_present)})
      if (p) (void)cudaFree(p);
    coefs.free_all();
    (void)cudaSetDevice(prev);
  }
};

using key_slot_t = std::pair<const cuzk_key*, int>;
std::mutex keys_mu;
std::map<key_slot_t, std::shared_ptr<key_dev_t>>& key_table() {
  static std::map<key_slot_t, std::shared_ptr<key_dev_t>> t;
  return t;
}

void* upload(const uint8_t* src, size_t bytes) {
  if (bytes == 0) return nullptr;
  void* d = nullptr;
  CUZK_CUDA_OK(cudaMalloc(&d, bytes));
  cudaError_t e = cudaMemcpy(d, src, bytes, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) (void)cudaFree(d);
  CUZK_CUDA_OK(e);
  return d;
}

// The wires whose point in |p1| or (when given) |p2| (n device points each) is not infinity.
template <class D1, class D2 = D1>
uint8_t* presence_mask(uint32_t n, const void* p1, const void* p2 = nullptr) {
  uint8_t* m = nullptr;
  CUZK_CUDA_OK(cudaMalloc(&m, std::max<size_t>(n, 1)));
  cudaError_t e = cudaMemset(m, 0, n);
  if (e == cudaSuccess && n) {
    unsigned blocks = unsigned(ceil_div(n, 256u));
    msm_gpu::mark_present_kernel<D1><<<blocks, 256>>>(static_cast<const dev::daffine_t<D1>*>(p1), n, m);
    if (p2) msm_gpu::mark_present_kernel<D2><<<blocks, 256>>>(static_cast<const dev::daffine_t<D2>*>(p2), n, m);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
  }
  if (e != cudaSuccess) (void)cudaFree(m);
  CUZK_CUDA_OK(e);
  return m;
}

// The key's points and coefficient layout on the current device, uploaded on first use (under the
// lock, so concurrent first proofs upload once). A key that does not fit fails here with
// CUZK_E_DEVICE_OOM, and what it had uploaded is freed.
template <class C>
std::shared_ptr<key_dev_t> resident_key(const cuzk_key& key, int device) {
  std::lock_guard<std::mutex> lk(keys_mu);
  auto& slot = key_table()[{&key, device}];
  if (slot) return slot;
  const cuzk_key_desc& d = key.desc;
  const size_t g1 = sizeof(typename C::g1_affine_t), g2 = sizeof(typename C::g2_affine_t);
  auto kd = std::make_shared<key_dev_t>();
  kd->device = device;
  try {
    kd->a = upload(d.points_a, size_t(d.n_vars) * g1);
    kd->b1 = upload(d.points_b1, size_t(d.n_vars) * g1);
    kd->b2 = upload(d.points_b2, size_t(d.n_vars) * g2);
    kd->c = upload(d.points_c, (size_t(d.n_vars) - d.n_public - 1) * g1);
    kd->h = upload(d.points_h, size_t(d.domain_size) * g1);
    using D1 = gpu_t<typename C::g1>;
    using D2 = gpu_t<typename C::g2>;
    kd->a_present = presence_mask<D1>(d.n_vars, kd->a);
    kd->b_present = presence_mask<D1, D2>(d.n_vars, kd->b1, kd->b2);
    synth_upload(key, kd->coefs);
  } catch (...) {
    key_table().erase({&key, device});
    throw;
  }
  slot = kd;
  return kd;
}

template <class DF>
__global__ void mul_kernel(DF* c, const DF* a, const DF* b, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] * b[i];
}

// H scalars: A·B − C on the coset, Montgomery -> standard form
template <class DF>
__global__ void h_kernel(DF* h, const DF* a, const DF* b, const DF* c, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) h[i] = (a[i] * b[i] - c[i]).from_mont();
}

// One compute region per device at a time: a proof uploads its inputs before taking it, so the next
// proof's upload (copy engine) and the previous proof's randomisation (host) overlap this proof's
// kernels, and kernel time is not shared between proofs.
std::mutex& compute_region(int device) {
  static std::mutex regions[64];
  return regions[device & 63];
}

// Length of [a0, a1] ∪ [b0, b1]
double union_ms(double a0, double a1, double b0, double b1) {
  if (b0 > a1 || a0 > b1) return (a1 - a0) + (b1 - b0);
  return std::max(a1, b1) - std::min(a0, b0);
}

}  // namespace

template <class C>
uint64_t gpu_key_bytes(const cuzk_key& key) {
  const cuzk_key_desc& d = key.desc;
  const uint64_t g1 = sizeof(typename C::g1_affine_t), g2 = sizeof(typename C::g2_affine_t);
  return uint64_t(d.n_vars) * (2 * g1 + g2 + 2) + (uint64_t(d.n_vars) - d.n_public - 1) * g1 +
         uint64_t(d.domain_size) * g1 + synth_layout_bytes(d.domain_size, d.n_coefs);
}

template <class C>
void gpu_key_upload(const cuzk_key& key, int device) {
  gpu_use_device(device);
  (void)resident_key<C>(key, device);
}

void gpu_key_evict(const cuzk_key* key, int device) {
  std::lock_guard<std::mutex> lk(keys_mu);
  key_table().erase({key, device});  // a proof in flight keeps its shared_ptr until it returns
}

void gpu_key_release(const cuzk_key* key) {
  std::lock_guard<std::mutex> lk(keys_mu);
  auto& t = key_table();
  for (auto it = t.begin(); it != t.end();) it = it->first.first == key ? t.erase(it) : std::next(it);
}

// When the witness MSMs start (gpu_tuning_t::overlap, CUZK_GPU_OVERLAP; a measuring knob): "streams" (default) on
// their own stream as soon as the witness is in, beside synthesis and the transforms; "sort-beside"
// the same, but their first accumulation waits for the transforms (an accumulation's blocks hold an
// SM's registers for milliseconds, so transform kernels queued beside them wait); "serial" after
// everything else, which shows each side's own time. (Starting them wholly after the transforms
// measured 48.1 against 44.7 ms per 2^20 proof; sort-beside keeps their scalar side overlapped. A
// stream of the device's highest priority for synthesis, the transforms and H did not help, H200
// 2026-12-01: transforms 8.56 against 8.76 ms at 2^20, the 2^22 proof 90.3 against 86.0; removed.)
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

template <class C>
void gpu_groth16_prove_ab(const cuzk_key& key, int device, const uint8_t* witness, const uint8_t* r, const uint8_t* s,
                          uint8_t* proof_out, const volatile int32_t* cancel, prove_timings_t& tm) {
  using namespace groth16_detail;
  using F = typename C::fr_t;
  using DF = gpu_t<F>;
  using G1 = typename C::g1;
  using G2 = typename C::g2;
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
  F *d_a = ar.alloc<F>(2 * n), *d_b = d_a + n, *d_c = ar.alloc<F>(n), *d_t = ar.alloc<F>(n);
  uint8_t* d_w = ar.alloc<uint8_t>(w_bytes);
  gpu_event_t ev_start, ev_w, ev_k0, ev_syn, ev_ntt, ev_h, ev_w0, ev_w1;
  ev_start.record(st);
  CUZK_CUDA_OK(cudaMemcpyAsync(d_w, witness, w_bytes, cudaMemcpyHostToDevice, st));
  ev_w.record(st);
  tm.h2d_bytes = w_bytes;
  st.sync();  // uploaded before the compute region is taken
  auto t_wait = clock_t_::now();
  std::unique_lock<std::mutex> region(compute_region(device));
  tm.wait = ms_since(t_wait);
  check_cancel(cancel, "synthesis");
  ev_k0.record(st);

  // The witness MSMs on their own stream and host thread (msm_device synchronises its stream).
  auto pts1 = [](void* p) { return static_cast<const affine_t<G1>*>(p); };
  jacobian_t<G1> g1[4];
  jacobian_t<G2> b2;
  std::exception_ptr w_err;
  gate_t ntt_recorded;  // sort-beside: ev_ntt is recorded (or the main stream failed before it)
  CUZK_CUDA_OK(cudaStreamWaitEvent(st_w, ev_w, 0));
  auto witness_msms = [&] {
    try {
      CUZK_CUDA_OK(cudaSetDevice(device));
      ev_w0.record(st_w);
      check_cancel(cancel, "msm_b2");
      // B2, B1 and A weigh the same scalars (the whole witness); the scalars of wires whose points
      // are infinity are dropped before the sort (a key's mask per point set), so B2 and B1 share one
      // 0/1 split and sorted digits, A has its own
      const uint32_t* w32 = reinterpret_cast<const uint32_t*>(d_w);
      {
        dev_arena_t ar_b(st_w);
        const msm_gpu::msm_scalars_t wit_b = msm_gpu::msm_scalars(ar_b, w32, d.n_vars, kd->b_present);
        cudaEvent_t accumulate_after = nullptr;
        if (mode == overlap_t::sort_beside) {
          ntt_recorded.wait();
          accumulate_after = ev_ntt;
        }
        b2 = msm_planned<G2>(ar_b, static_cast<const affine_t<G2>*>(kd->b2), wit_b, accumulate_after);
        check_cancel(cancel, "msm_b1");
        g1[1] = msm_planned<G1>(ar_b, pts1(kd->b1), wit_b);
      }
      check_cancel(cancel, "msm_a");
      {
        dev_arena_t ar_a(st_w);
        g1[0] = msm_planned<G1>(ar_a, pts1(kd->a), msm_gpu::msm_scalars(ar_a, w32, d.n_vars, kd->a_present));
      }
      check_cancel(cancel, "msm_c");
      size_t n_priv = size_t(d.n_vars) - d.n_public - 1;
      g1[2] = msm_device<G1>(pts1(kd->c), d_w + size_t(d.n_public + 1) * 32, n_priv, st_w);
      ev_w1.record(st_w);
      st_w.sync();
    } catch (...) {
      w_err = std::current_exception();
    }
  };
  std::thread w_thread;
  if (mode != overlap_t::serial) w_thread = std::thread(witness_msms);
  std::exception_ptr main_err;
  try {
    auto dv = [](F* p) { return reinterpret_cast<DF*>(p); };
    synth_device<F>(kd->coefs, d_w, d_a, st);  // writes d_a ‖ d_b whole
    ev_syn.record(st);
    mul_kernel<DF><<<ceil_div(n, 256), 256, 0, st>>>(dv(d_c), dv(d_a), dv(d_b), n);
    CUZK_CUDA_LAUNCHED();
    for (F* v : {d_a, d_b, d_c}) {
      check_cancel(cancel, "ntt");
      ntt_device<F>(v, d_t, lg_n, true, false, false, st);   // evaluations -> coefficients
      ntt_device<F>(d_t, v, lg_n, false, true, false, st);   // -> evaluations on the odd coset
    }
    h_kernel<DF><<<ceil_div(n, 256), 256, 0, st>>>(dv(d_t), dv(d_a), dv(d_b), dv(d_c), n);
    CUZK_CUDA_LAUNCHED();
    ev_ntt.record(st);
    ntt_recorded.release();
    check_cancel(cancel, "msm_h");
    g1[3] = msm_device<G1>(pts1(kd->h), reinterpret_cast<const uint8_t*>(d_t), n, st);
    ev_h.record(st);
    st.sync();
  } catch (...) {
    main_err = std::current_exception();
    ntt_recorded.release();
  }
  if (w_thread.joinable()) w_thread.join();
  else if (!main_err) witness_msms();
  (void)cudaStreamSynchronize(st_w);  // after a failure, before the arena frees what it may still read
  region.unlock();
  if (main_err) std::rethrow_exception(main_err);
  if (w_err) std::rethrow_exception(w_err);

  // stream times from the events, relative to the first one
  double h2d = ev_w.since(ev_start), k0 = ev_k0.since(ev_start), syn = ev_syn.since(ev_start), ntt = ev_ntt.since(ev_start);
  double h_end = ev_h.since(ev_start), w0 = ev_w0.since(ev_start), w1 = ev_w1.since(ev_start);
  tm.h2d = h2d;
  tm.abc = syn - k0;  // synthesis on the device
  tm.ntt = ntt - syn;
  tm.msm_h = h_end - ntt;
  tm.msm_a = w1 - w0;  // the four witness MSMs together
  tm.msm_b1 = tm.msm_b2 = tm.msm_c = 0;
  tm.kernel = union_ms(k0, h_end, w0, w1);
  tm.d2h = 0;  // only the MSM window sums come back, inside msm_device (a few KiB)
  t0 = clock_t_::now();
  finish_proof<C>(d, g1, b2, r, s, proof_out);
  tm.finish = ms_since(t0);
  tm.total = ms_since(t_start);
}

#define CUZK_PROVE_GPU_INSTANTIATE(C)                                                                             \
  template void gpu_groth16_prove_ab<C>(const cuzk_key&, int, const uint8_t*, const uint8_t*, const uint8_t*,    \
                                        uint8_t*, const volatile int32_t*, prove_timings_t&);                   \
  template uint64_t gpu_key_bytes<C>(const cuzk_key&);                                                           \
  template void gpu_key_upload<C>(const cuzk_key&, int);

CUZK_PROVE_GPU_INSTANTIATE(bn254)
CUZK_PROVE_GPU_INSTANTIATE(bls12_381)

}  // namespace cuzk
