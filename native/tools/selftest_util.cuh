// Helpers of tools/gpu_selftest.cu: a seeded RNG, random canonical field elements, the CPU core as
// reference through its C ABI, random points with known discrete logs (P_i = d_i·G) and medians.
// Known logs give an MSM oracle independent of any MSM code: sum s_i·P_i = (sum s_i·d_i mod r)·G.
#pragma once
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "../api/guard.hpp"
#include "../curve/dev.cuh"
#include "../util/gpu.hpp"
#include "../util/thread_pool.hpp"

namespace cuzk {
namespace selftest {

inline uint64_t& seed() {
  static uint64_t s = 0x5eed2026;
  return s;
}

template <class P>
void rand_field(mont_t<P>& r, std::mt19937_64& g) {
  uint64_t top = P::p[P::n - 1];
  unsigned bits = 64 - unsigned(__builtin_clzll(top));
  uint64_t mask = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  do {
    for (size_t i = 0; i < P::n; i++) r.l[i] = g();
    r.l[P::n - 1] &= mask;
  } while (!mont_t<P>::lt_p(r.l));
}
template <class F>
void rand_field(fp2_t<F>& r, std::mt19937_64& g) {
  rand_field(r.c0, g);
  rand_field(r.c1, g);
}

// kind 0: zero, 1: one, 2: the raw limbs p - 1
template <class P>
void edge_field(mont_t<P>& r, int kind) {
  r = kind == 0 ? mont_t<P>::zero() : mont_t<P>::one();
  if (kind == 2) {
    for (size_t i = 0; i < P::n; i++) r.l[i] = P::p[i];
    r.l[0] -= 1;
  }
}
template <class F>
void edge_field(fp2_t<F>& r, int kind) {
  edge_field(r.c0, kind);
  edge_field(r.c1, kind == 1 ? 0 : kind);
}

template <class Fr>
void rand_scalar_bytes(uint8_t* out, std::mt19937_64& g) {
  Fr v;
  rand_field(v, g);
  std::memcpy(out, v.l, 32);  // a uniform canonical value, read as a standard-form integer
}

// The CPU core as the reference, through its C ABI: libcuzk_cpu.so opened at run time (env
// CUZK_CPU_LIB, default found on LD_LIBRARY_PATH), so this program compiles none of the CPU templates.
struct cpu_ref_t {
  cuzk_status (*msm)(int32_t, int32_t, const uint8_t*, const uint8_t*, uint64_t, uint8_t*, cuzk_error*);
  cuzk_status (*batch_mul)(int32_t, int32_t, const uint8_t*, const uint8_t*, uint64_t, uint8_t*, cuzk_error*);
  cuzk_status (*ntt)(int32_t, uint8_t*, uint32_t, uint32_t, cuzk_error*);
  cuzk_status (*key_create)(const cuzk_key_desc*, cuzk_key**, cuzk_error*);
  cuzk_status (*key_destroy)(cuzk_key*, cuzk_error*);
  cuzk_status (*synthesize)(const cuzk_key*, const uint8_t*, uint8_t*, const volatile int32_t*, cuzk_prove_stats*,
                            cuzk_error*);
  cuzk_status (*prove_ab)(const cuzk_key*, const uint8_t*, uint8_t*, int32_t, const uint8_t*, const uint8_t*,
                          uint8_t*, const volatile int32_t*, cuzk_prove_stats*, cuzk_error*);
  const char* (*backend)();

  static const cpu_ref_t& get() {
    static const cpu_ref_t r = [] {
      const char* path = std::getenv("CUZK_CPU_LIB");
      void* h = dlopen(path ? path : "libcuzk_cpu.so", RTLD_NOW | RTLD_LOCAL);
      if (!h) fail(CUZK_E_INTERNAL, std::string("cannot open the CPU reference library: ") + dlerror());
      auto sym = [&](const char* name) {
        void* f = dlsym(h, name);
        if (!f) fail(CUZK_E_INTERNAL, std::string("CPU reference library lacks ") + name);
        return f;
      };
      cpu_ref_t c;
      c.msm = reinterpret_cast<decltype(c.msm)>(sym("cuzk_msm"));
      c.batch_mul = reinterpret_cast<decltype(c.batch_mul)>(sym("cuzk_batch_mul"));
      c.ntt = reinterpret_cast<decltype(c.ntt)>(sym("cuzk_ntt"));
      c.key_create = reinterpret_cast<decltype(c.key_create)>(sym("cuzk_key_create"));
      c.key_destroy = reinterpret_cast<decltype(c.key_destroy)>(sym("cuzk_key_destroy"));
      c.synthesize = reinterpret_cast<decltype(c.synthesize)>(sym("cuzk_groth16_synthesize"));
      c.prove_ab = reinterpret_cast<decltype(c.prove_ab)>(sym("cuzk_groth16_prove_ab"));
      c.backend = reinterpret_cast<decltype(c.backend)>(sym("cuzk_backend_name"));
      return c;
    }();
    return r;
  }
};

inline void ok_or_throw(cuzk_status st, const cuzk_error& e, const char* what) {
  if (st != CUZK_OK) fail(st, std::string(what) + ": " + e.message);
}

// B[i & mask] + Q[i >> k], the sum left in XYZZ (converted on the host with one batch inversion)
template <class DF>
__global__ void combine_points_kernel(const dev::daffine_t<DF>* b, const dev::daffine_t<DF>* q, size_t n, unsigned k,
                                      dev::dxyzz_t<DF>* out) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  dev::daffine_t<DF> p = b[i & ((size_t(1) << k) - 1)], r = q[i >> k];
  dev::dxyzz_t<DF> acc = dev::dxyzz_t<DF>::infinity();
  acc.add_affine(p.x, p.y, false);
  if (!r.is_inf()) acc.add_affine(r.x, r.y, false);
  out[i] = acc;
}

// n points P_i = d_i·G with random logs: 2^k base points B_j = b_j·G and multiples Q_h = (h·q)·G by
// the CPU core's cuzk_batch_mul, P_i = B_(i mod 2^k) + Q_(i >> k) on the GPU (d_i = b_j + h·q), so
// 2^24 points cost 2^16 fixed-base multiplications instead of 2^24.
template <class C, class G>
struct point_set_t {
  using Fr = typename C::fr_t;
  using F = typename G::field_t;
  std::vector<affine_t<G>> pts;
  std::vector<Fr> dlog;

  point_set_t(size_t n, int32_t group) : pts(n), dlog(n), group_(group) {
    std::mt19937_64 g(seed() ^ (0x9e3779b97f4a7c15ull * (n + group)));
    unsigned k = 0;
    while (k < 16 && (size_t(1) << k) < n) k++;
    size_t nlo = size_t(1) << k, nhi = (n + nlo - 1) >> k;
    std::vector<Fr> lo(nlo), hi(nhi);
    std::vector<uint8_t> ks(32 * std::max(nlo, nhi));
    for (size_t j = 0; j < nlo; j++) {
      rand_field(lo[j], g);
      lo[j].store_std(&ks[32 * j]);
    }
    std::vector<affine_t<G>> b(nlo), q(nhi);
    mul_base(ks.data(), nlo, b.data());
    Fr step;
    rand_field(step, g);
    hi[0] = Fr::zero();
    for (size_t h = 1; h < nhi; h++) hi[h] = hi[h - 1] + step;
    for (size_t h = 0; h < nhi; h++) hi[h].store_std(&ks[32 * h]);
    mul_base(ks.data(), nhi, q.data());
    for (size_t i = 0; i < n; i++) dlog[i] = lo[i & (nlo - 1)] + hi[i >> k];
    combine(b, q, n, k);
  }

  void combine(const std::vector<affine_t<G>>& b, const std::vector<affine_t<G>>& q, size_t n, unsigned k) {
    using DF = gpu_t<G>;
    std::vector<xyzz_t<G>> xs(n);
    void *db, *dq, *dx;
    CUZK_CUDA_OK(cudaMalloc(&db, b.size() * sizeof(b[0])));
    CUZK_CUDA_OK(cudaMalloc(&dq, q.size() * sizeof(q[0])));
    CUZK_CUDA_OK(cudaMalloc(&dx, n * sizeof(xs[0])));
    CUZK_CUDA_OK(cudaMemcpy(db, b.data(), b.size() * sizeof(b[0]), cudaMemcpyHostToDevice));
    CUZK_CUDA_OK(cudaMemcpy(dq, q.data(), q.size() * sizeof(q[0]), cudaMemcpyHostToDevice));
    combine_points_kernel<DF><<<ceil_div(n, 128), 128>>>(static_cast<const dev::daffine_t<DF>*>(db),
                                                         static_cast<const dev::daffine_t<DF>*>(dq), n, k,
                                                         static_cast<dev::dxyzz_t<DF>*>(dx));
    CUZK_CUDA_LAUNCHED();
    CUZK_CUDA_OK(cudaMemcpy(xs.data(), dx, n * sizeof(xs[0]), cudaMemcpyDeviceToHost));
    for (void* p : {db, dq, dx}) CUZK_CUDA_OK(cudaFree(p));
    const size_t chunk = 1 << 12;
    thread_pool::global().parallel_for((n + chunk - 1) / chunk, [&](size_t ch) {
      size_t b0 = ch * chunk, len = std::min(chunk, n - b0);
      std::vector<F> inv(len), scratch(len);
      for (size_t i = 0; i < len; i++) inv[i] = xs[b0 + i].ZZ * xs[b0 + i].ZZZ;
      batch_inverse(inv.data(), scratch.data(), len);  // zeros (infinity) stay zero
      for (size_t i = 0; i < len; i++) {
        const xyzz_t<G>& p = xs[b0 + i];
        pts[b0 + i] = p.is_inf() ? affine_t<G>::infinity() : affine_t<G>{p.X * p.ZZZ * inv[i], p.Y * p.ZZ * inv[i]};
      }
    });
  }

  void mul_base(const uint8_t* ks, size_t n, affine_t<G>* out) const {
    uint8_t gen[sizeof(affine_t<G>)];
    G::generator().store(gen);
    cuzk_error e;
    ok_or_throw(cpu_ref_t::get().batch_mul(C::id, group_, gen, ks, n, reinterpret_cast<uint8_t*>(out), &e), e,
                "cuzk_batch_mul");
  }

  // (sum s_i·d_i)·G for 32-byte standard scalars, any 256-bit value: each is reduced mod r limb by
  // limb (Fr::load_std assumes a canonical input; for 2^256 > 2r it is not exact).
  affine_t<G> expected(const uint8_t* scalars, const std::vector<Fr>& logs, size_t n) const {
    const size_t chunk = 1 << 14, nch = (n + chunk - 1) / chunk;
    std::vector<Fr> part(nch, Fr::zero());
    Fr two32 = Fr::from_u64(uint64_t(1) << 32), two64 = two32 * two32;
    thread_pool::global().parallel_for(nch, [&](size_t ch) {
      for (size_t i = ch * chunk; i < std::min(n, (ch + 1) * chunk); i++) {
        uint64_t k[4];
        std::memcpy(k, scalars + 32 * i, 32);
        Fr v = Fr::from_u64(k[3]);
        for (int j = 2; j >= 0; j--) v = v * two64 + Fr::from_u64(k[j]);
        part[ch] += v * logs[i];
      }
    });
    Fr e = Fr::zero();
    for (auto& v : part) e += v;
    uint8_t es[32];
    e.store_std(es);
    affine_t<G> r;
    mul_base(es, 1, &r);
    return r;
  }

 private:
  int32_t group_;
};

// The CPU MSM through the ABI.
template <class C, class G>
affine_t<G> cpu_msm(const affine_t<G>* pts, const uint8_t* scalars, size_t n, int32_t group) {
  affine_t<G> r;
  cuzk_error e;
  ok_or_throw(cpu_ref_t::get().msm(C::id, group, reinterpret_cast<const uint8_t*>(pts), scalars, n,
                                   reinterpret_cast<uint8_t*>(&r), &e), e, "cuzk_msm");
  return r;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Median device time of |reps| runs of |launch| (kernels on the default stream) after |warmup|
// untimed ones, by CUDA events.
template <class F>
double event_median_ms(int warmup, int reps, F&& launch) {
  cudaEvent_t e0, e1;
  CUZK_CUDA_OK(cudaEventCreate(&e0));
  CUZK_CUDA_OK(cudaEventCreate(&e1));
  std::vector<double> t;
  for (int rep = 0; rep < warmup + reps; rep++) {
    CUZK_CUDA_OK(cudaEventRecord(e0));
    launch();
    CUZK_CUDA_OK(cudaEventRecord(e1));
    CUZK_CUDA_OK(cudaEventSynchronize(e1));
    float f;
    CUZK_CUDA_OK(cudaEventElapsedTime(&f, e0, e1));
    if (rep >= warmup) t.push_back(f);
  }
  CUZK_CUDA_OK(cudaEventDestroy(e0));
  CUZK_CUDA_OK(cudaEventDestroy(e1));
  return median(t);
}

inline double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace selftest
}  // namespace cuzk
