// gpu_selftest: the CUDA kernels checked against the CPU core (libcuzk_cpu.so loaded at run time, env
// CUZK_CPU_LIB) and timed against shared/perf/h200.md's floors. Sections (argv, default all): field
// inv msm ntt synth prove bench provebench fixedbase nttbench (the NTT timings alone) invbench; and
// only when named, nttcand (every NTT pass kernel checked and timed: selftest_ntt_cand.cuh) and kprof. One line per check,
// a summary table last, exit 1 on any failure; env SEED.
// Built only by tools/CMakeLists.txt, which defines CUZK_SELFTEST_MAIN (the library's *.cu glob
// compiles this file to nothing).
#ifdef CUZK_SELFTEST_MAIN
#include "../field/mont.cuh"
#include "../msm/msm_gpu.cuh"
#include "../ntt/ntt.cuh"

#include <execinfo.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../groth16/prove_gpu.hpp"
#include "../groth16/synth_gpu.cuh"
#include "../api/gpu_dispatch.hpp"
#include "selftest_util.cuh"

using namespace cuzk;
using namespace cuzk::selftest;

static int g_failures = 0;
static std::vector<std::string> g_table;

static void report(bool ok, const std::string& what) {
  if (!ok) g_failures++;
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  std::fflush(stdout);
}

// ---- 1. field arithmetic, bit-for-bit against the host mont_t / fp2_t --------------------------

template <class DF>
__global__ void field_ops_kernel(const DF* a, const DF* b, DF* out, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  DF x = a[i], y = b[i];
  out[6 * i + 0] = x * y;
  out[6 * i + 1] = x + y;
  out[6 * i + 2] = x - y;
  out[6 * i + 3] = x.sqr();
  out[6 * i + 4] = -x;
  out[6 * i + 5] = x.dbl();
}

template <class DF>
__global__ void mont_conv_kernel(const DF* a, DF* out, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[2 * i] = a[i].to_mont();
  out[2 * i + 1] = a[i].from_mont();
}

template <class HF, bool base_field>
void test_field(const char* name) {
  using DF = gpu_t<HF>;
  const size_t n = 1 << 16;
  std::mt19937_64 g(seed() ^ std::hash<std::string>()(name));
  std::vector<HF> a(n), b(n), ref(6 * n), got(6 * n);
  for (size_t i = 0; i < n; i++) {
    rand_field(a[i], g);
    rand_field(b[i], g);
  }
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 3; j++) {  // every pair of edge values
      edge_field(a[3 * k + j], k);
      edge_field(b[3 * k + j], j);
    }
  for (size_t i = 0; i < n; i++) {
    ref[6 * i] = a[i] * b[i];
    ref[6 * i + 1] = a[i] + b[i];
    ref[6 * i + 2] = a[i] - b[i];
    ref[6 * i + 3] = a[i].sqr();
    ref[6 * i + 4] = -a[i];
    ref[6 * i + 5] = a[i].dbl();
  }
  DF *da, *db, *dout;
  CUZK_CUDA_OK(cudaMalloc(&da, n * sizeof(DF)));
  CUZK_CUDA_OK(cudaMalloc(&db, n * sizeof(DF)));
  CUZK_CUDA_OK(cudaMalloc(&dout, 6 * n * sizeof(DF)));
  CUZK_CUDA_OK(cudaMemcpy(da, a.data(), n * sizeof(DF), cudaMemcpyHostToDevice));
  CUZK_CUDA_OK(cudaMemcpy(db, b.data(), n * sizeof(DF), cudaMemcpyHostToDevice));
  CUZK_CUDA_OK(cudaMemset(dout, 0xa5, 6 * n * sizeof(DF)));  // poison
  field_ops_kernel<DF><<<ceil_div(n, 128), 128>>>(da, db, dout, n);
  CUZK_CUDA_LAUNCHED();
  CUZK_CUDA_OK(cudaMemcpy(got.data(), dout, 6 * n * sizeof(DF), cudaMemcpyDeviceToHost));
  const char* ops[6] = {"mul", "add", "sub", "sqr", "neg", "dbl"};
  for (int op = 0; op < 6; op++) {
    size_t bad = 0, first = n;
    for (size_t i = 0; i < n; i++)
      if (std::memcmp(&ref[6 * i + op], &got[6 * i + op], sizeof(HF))) { bad++; first = std::min(first, i); }
    report(bad == 0, std::string("field ") + name + " " + ops[op] + ": " + std::to_string(n - bad) + "/" +
                         std::to_string(n) + " match" + (bad ? " (first bad " + std::to_string(first) + ")" : ""));
  }
  if constexpr (base_field) {
    std::vector<HF> conv(2 * n);
    mont_conv_kernel<DF><<<ceil_div(n, 128), 128>>>(da, dout, n);
    CUZK_CUDA_LAUNCHED();
    CUZK_CUDA_OK(cudaMemcpy(conv.data(), dout, 2 * n * sizeof(DF), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
      HF to = HF::from_std(a[i].l), from;
      a[i].to_std(from.l);
      bad += std::memcmp(&to, &conv[2 * i], sizeof(HF)) != 0;
      bad += std::memcmp(&from, &conv[2 * i + 1], sizeof(HF)) != 0;
    }
    report(bad == 0, std::string("field ") + name + " to_mont/from_mont: " + std::to_string(bad) + " mismatches");
  }
  CUZK_CUDA_OK(cudaFree(da));
  CUZK_CUDA_OK(cudaFree(db));
  CUZK_CUDA_OK(cudaFree(dout));
}

// The base multiply's throughput: each thread a dependent chain x <- x·y (2^20 threads, every SM
// busy), checked against the host for the first threads. The MSM and NTT kernels are bound by it
// (bench/RESULTS.md: ~90% of the IMAD pipe's rate, IMAD.HI issuing at half rate).
template <class DF>
__global__ void mul_chain_kernel(const DF* a, const DF* b, DF* out, size_t n, int len) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  DF x = a[i], y = b[i];
#pragma unroll 1
  for (int k = 0; k < len; k++) x = DF::mul(x, y);
  out[i] = x;
}

// The same for the squaring of its own (dmont_t::sqr_sos): x <- x^2, checked against the host's x·x.
template <class DF>
__global__ void sqr_chain_kernel(const DF* a, DF* out, size_t n, int len) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  DF x = a[i];
#pragma unroll 1
  for (int k = 0; k < len; k++) x = DF::sqr_sos(x);
  out[i] = x;
}

template <class HF>
void bench_mul(const char* name) {
  using DF = gpu_t<HF>;
  const size_t n = size_t(1) << 20, checked = 64;
  const int len = 256;
  std::mt19937_64 g(seed() ^ 0x77a1);
  std::vector<HF> a(n), b(n), got(n);
  for (size_t i = 0; i < n; i++) rand_field(a[i], g), rand_field(b[i], g);
  DF *da, *db, *dout;
  CUZK_CUDA_OK(cudaMalloc(&da, n * sizeof(DF)));
  CUZK_CUDA_OK(cudaMalloc(&db, n * sizeof(DF)));
  CUZK_CUDA_OK(cudaMalloc(&dout, n * sizeof(DF)));
  CUZK_CUDA_OK(cudaMemcpy(da, a.data(), n * sizeof(DF), cudaMemcpyHostToDevice));
  CUZK_CUDA_OK(cudaMemcpy(db, b.data(), n * sizeof(DF), cudaMemcpyHostToDevice));
  double ms = event_median_ms(1, 3, [&] {
    mul_chain_kernel<DF><<<ceil_div(n, 128), 128>>>(da, db, dout, n, len);
    CUZK_CUDA_LAUNCHED();
  });
  CUZK_CUDA_OK(cudaMemcpy(got.data(), dout, n * sizeof(DF), cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (size_t i = 0; i < checked; i++) {
    HF x = a[i];
    for (int k = 0; k < len; k++) x = x * b[i];
    bad += std::memcmp(&x, &got[i], sizeof(HF)) != 0;
  }
  report(bad == 0, std::string("field ") + name + " mul chains == host on " + std::to_string(checked) + " threads: " +
                       std::to_string(bad) + " mismatches");
  char buf[160];
  std::snprintf(buf, sizeof buf, "mul %-13s 2^20 threads x %d dependent: %.2f ms = %.1f G mul/s", name, len, ms,
                double(n) * len / ms / 1e6);
  g_table.push_back(buf);
  std::printf("%s\n", buf);
  // the squaring of its own, from the same starts and 0, 1, p - 1
  for (int k = 0; k < 3; k++) edge_field(a[k], k);
  CUZK_CUDA_OK(cudaMemcpy(da, a.data(), n * sizeof(DF), cudaMemcpyHostToDevice));
  double ms_sqr = event_median_ms(1, 3, [&] {
    sqr_chain_kernel<DF><<<ceil_div(n, 128), 128>>>(da, dout, n, len);
    CUZK_CUDA_LAUNCHED();
  });
  CUZK_CUDA_OK(cudaMemcpy(got.data(), dout, n * sizeof(DF), cudaMemcpyDeviceToHost));
  bad = 0;
  for (size_t i = 0; i < checked; i++) {
    HF x = a[i];
    for (int k = 0; k < len; k++) x = x * x;
    bad += std::memcmp(&x, &got[i], sizeof(HF)) != 0;
  }
  report(bad == 0, std::string("field ") + name + " sqr_sos chains == host x·x on " + std::to_string(checked) +
                       " threads (with 0, 1, p - 1): " + std::to_string(bad) + " mismatches");
  std::snprintf(buf, sizeof buf, "sqr %-13s 2^20 threads x %d dependent: %.2f ms = %.1f G sqr/s (%.2f of mul's time)",
                name, len, ms_sqr, double(n) * len / ms_sqr / 1e6, ms_sqr / ms);
  g_table.push_back(buf);
  std::printf("%s\n", buf);
  CUZK_CUDA_OK(cudaFree(da));
  CUZK_CUDA_OK(cudaFree(db));
  CUZK_CUDA_OK(cudaFree(dout));
}

void bench_muls() {
  bench_mul<bn254_fr_t>("bn254 Fr");
  bench_mul<bn254_fq_t>("bn254 Fq");
  bench_mul<bls12_381_fq_t>("bls12_381 Fq");
}

void test_fields() {
  test_field<bn254_fq_t, true>("bn254 Fq");
  test_field<bn254_fr_t, true>("bn254 Fr");
  test_field<bls12_381_fq_t, true>("bls12_381 Fq");
  test_field<bls12_381_fr_t, true>("bls12_381 Fr");
  test_field<bn254_fq2_t, false>("bn254 Fq2");
  test_field<bls12_381_fq2_t, false>("bls12_381 Fq2");
}

// H2D bandwidth from pinned (cuzk_mem_alloc pinned=1 uses cudaHostAlloc) and pageable memory, 1 GiB.
void bench_h2d() {
  const size_t bytes = size_t(1) << 30;
  void *pinned, *dev;
  std::vector<uint8_t> pageable(bytes, 1);
  CUZK_CUDA_OK(cudaHostAlloc(&pinned, bytes, cudaHostAllocPortable));
  std::memset(pinned, 1, bytes);
  CUZK_CUDA_OK(cudaMalloc(&dev, bytes));
  for (int k = 0; k < 2; k++) {
    const void* src = k == 0 ? pinned : pageable.data();
    std::vector<double> ms;
    for (int rep = 0; rep < 4; rep++) {
      double t0 = now_ms();
      CUZK_CUDA_OK(cudaMemcpy(dev, src, bytes, cudaMemcpyHostToDevice));
      ms.push_back(now_ms() - t0);
    }
    char buf[120];
    std::snprintf(buf, sizeof buf, "H2D %-8s 1 GiB: %.1f GB/s (target >= 45 from pinned)", k == 0 ? "pinned" : "pageable",
                  double(bytes) / median(ms) / 1e6);
    g_table.push_back(buf);
    std::printf("%s\n", buf);
  }
  CUZK_CUDA_OK(cudaFreeHost(pinned));
  CUZK_CUDA_OK(cudaFree(dev));
}

#include "selftest_msm.cuh"
#include "selftest_ntt.cuh"
#include "selftest_ntt_cand.cuh"
#include "selftest_inv.cuh"
#include "selftest_synth.cuh"
#include "selftest_groth16.cuh"
#include "selftest_kprof.cuh"
#include "selftest_fixedbase.cuh"

// A crash prints its stack (offsets resolve with addr2line -f -e gpu_selftest) instead of dying silently.
static void on_fatal_signal(int sig) {
  void* frames[64];
  int n = backtrace(frames, 64);
  std::fprintf(stderr, "fatal signal %d; backtrace:\n", sig);
  backtrace_symbols_fd(frames, n, 2);
  _exit(128 + sig);
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  std::signal(SIGSEGV, on_fatal_signal);
  std::signal(SIGBUS, on_fatal_signal);  // lines reach a redirected log as they are printed
  if (const char* s = std::getenv("SEED")) seed() = std::strtoull(s, nullptr, 0);
  std::string want = " ";
  for (int i = 1; i < argc; i++) want += std::string(argv[i]) + " ";
  auto on = [&](const char* s) { return argc == 1 || want.find(std::string(" ") + s + " ") != std::string::npos; };
  const gpu_info_t& gi = gpu_info();
  if (!gi.present) {
    std::printf("gpu_selftest: no usable GPU\n");
    return 2;
  }
  cudaDeviceProp prop;
  CUZK_CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  std::printf("gpu_selftest: %s, %d SMs, %.1f GiB; seed 0x%llx; CPU threads %zu; reference backend %s\n",
              prop.name, prop.multiProcessorCount, double(prop.totalGlobalMem) / (1ull << 30),
              (unsigned long long)seed(), thread_pool::global().size(), cpu_ref_t::get().backend());
  try {
    if (on("field")) test_fields();
    if (on("inv") || on("invbench")) test_invs(on("bench") || on("invbench"));
    if (on("bench")) bench_h2d();
    if (on("bench")) bench_muls();
    if (on("msm")) test_msms(on("bench"));
    else if (on("bench")) test_msms(true, true);
    if (on("ntt") || on("bench") || on("nttbench")) test_ntts(on("ntt"), on("bench") || on("nttbench"));
    if (want.find(" nttcand ") != std::string::npos) test_ntt_candidates();  // only when asked: ~1 min
    if (on("synth")) test_synths();
    if (on("prove") || on("provebench")) test_proves(on("provebench"));
    if (on("fixedbase")) test_fixed_base();
    if (want.find(" kprof ") != std::string::npos) kprof_all();  // only when asked: for ncu
  } catch (const std::exception& e) {
    report(false, std::string("exception: ") + e.what());
  }
  std::printf("\n==== summary (%s) ====\n", prop.name);
  for (auto& l : g_table) std::printf("%s\n", l.c_str());
  std::printf("%s: %d failure(s)\n", g_failures ? "FAILED" : "PASSED", g_failures);
  return g_failures ? 1 : 0;
}
#endif  // CUZK_SELFTEST_MAIN
