// Fixed-base section of tools/gpu_selftest.cu (`gpu_selftest fixedbase`; included there, after its
// helpers): fixed_base_gpu_host against the CPU core's cuzk_batch_mul (libcuzk_cpu.so), byte for byte,
// G1 and G2 of both curves, on the generator and a random base, with random scalars and edge scalars
// (0, 1, r-1, r, r+1, 2^256-1, repeated values); then the time of 2^20 and 2^24 batches (host buffers,
// upload and download included, as cuzk_batch_mul runs it), checked in full at 2^20 and on a sample
// of every 4093rd scalar at 2^24.
#pragma once
#include "../msm/fixed_base_gpu.cuh"

template <class C, class G>
bool fixed_base_same(const affine_t<G>& base, const uint8_t* sc, size_t n, int32_t group, const std::string& what,
                     double* gpu_ms = nullptr, size_t sample = 1) {
  std::vector<affine_t<G>> gpu(n), cpu;
  std::memset(static_cast<void*>(gpu.data()), 0xa5, n * sizeof(affine_t<G>));  // poison
  double t0 = now_ms();
  fixed_base_gpu_host<G>(base, sc, n, gpu.data());
  double ms = now_ms() - t0;
  if (gpu_ms) *gpu_ms = ms;
  std::vector<uint8_t> sub;
  const uint8_t* ref_sc = sc;
  size_t m = n;
  if (sample > 1) {  // the CPU core on every sample-th scalar
    m = (n + sample - 1) / sample;
    sub.resize(32 * m);
    for (size_t j = 0; j < m; j++) std::memcpy(&sub[32 * j], sc + 32 * j * sample, 32);
    ref_sc = sub.data();
  }
  cpu.resize(m);
  uint8_t b[sizeof(affine_t<G>)];
  base.store(b);
  cuzk_error e;
  t0 = now_ms();
  ok_or_throw(cpu_ref_t::get().batch_mul(C::id, group, b, ref_sc, m, reinterpret_cast<uint8_t*>(cpu.data()), &e), e,
              "cuzk_batch_mul");
  double cpu_ms = now_ms() - t0;
  size_t bad = 0, first = m;
  for (size_t j = 0; j < m; j++)
    if (std::memcmp(&gpu[j * sample], &cpu[j], sizeof(affine_t<G>))) { bad++; first = std::min(first, j * sample); }
  char buf[200];
  std::snprintf(buf, sizeof buf, "fixedbase %s n=%zu: gpu %.1f ms, cpu %.1f ms (%zu compared), %zu differ%s", what.c_str(), n,
                ms, cpu_ms, m, bad, bad ? (" (first " + std::to_string(first) + ")").c_str() : "");
  report(bad == 0, buf);
  return bad == 0;
}

template <class C, class G>
void fixed_base_group(const char* name, int32_t group, bool big) {
  using Fr = typename C::fr_t;
  std::mt19937_64 g(seed() ^ std::hash<std::string>()(std::string("fixedbase ") + name));
  affine_t<G> gen = G::generator();
  // a random base: k·G by the CPU core
  std::vector<uint8_t> k(32);
  rand_scalar_bytes<Fr>(k.data(), g);
  uint8_t gb[sizeof(affine_t<G>)];
  gen.store(gb);
  affine_t<G> rnd;
  cuzk_error e;
  ok_or_throw(cpu_ref_t::get().batch_mul(C::id, group, gb, k.data(), 1, reinterpret_cast<uint8_t*>(&rnd), &e), e,
              "cuzk_batch_mul");
  Fr one = Fr::one(), minus_one = -one;
  uint8_t r_minus_1[32], r_bytes[32], r_plus_1[32];
  minus_one.store_std(r_minus_1);
  std::memcpy(r_bytes, r_minus_1, 32);
  for (int i = 0; i < 32 && ++r_bytes[i] == 0; i++) {}  // r = (r-1) + 1 as an integer
  std::memcpy(r_plus_1, r_bytes, 32);
  for (int i = 0; i < 32 && ++r_plus_1[i] == 0; i++) {}
  for (size_t n : {size_t(1), size_t(3), size_t(4099), size_t(1) << 16}) {
    std::vector<uint8_t> sc(32 * n);
    for (size_t i = 0; i < n; i++) rand_scalar_bytes<Fr>(&sc[32 * i], g);
    fixed_base_same<C, G>(gen, sc.data(), n, group, std::string(name) + " generator, random");
    fixed_base_same<C, G>(rnd, sc.data(), n, group, std::string(name) + " random base, random");
    for (size_t i = 0; i < n; i++) {
      uint8_t* s = &sc[32 * i];
      switch (i % 8) {
        case 0: std::memset(s, 0, 32); break;
        case 1: std::memset(s, 0, 32); s[0] = 1; break;
        case 2: std::memcpy(s, r_minus_1, 32); break;
        case 3: std::memcpy(s, r_bytes, 32); break;
        case 4: std::memcpy(s, r_plus_1, 32); break;
        case 5: std::memset(s, 0xff, 32); break;  // 2^256 - 1
        case 6: if (i >= 8) std::memcpy(s, s - 32 * 8, 32); break;  // repeats of a random value
        default: break;
      }
    }
    fixed_base_same<C, G>(gen, sc.data(), n, group, std::string(name) + " generator, edge scalars");
  }
  {
    const size_t n = 4099;
    std::vector<uint8_t> sc(32 * n);
    for (size_t i = 0; i < n; i++) std::memcpy(&sc[32 * i], r_minus_1, 32);
    fixed_base_same<C, G>(gen, sc.data(), n, group, std::string(name) + " r-1 repeated");
    std::memset(sc.data(), 0, sc.size());
    fixed_base_same<C, G>(rnd, sc.data(), n, group, std::string(name) + " all zero");
  }
  for (unsigned lg : {20u, 24u}) {
    if (lg == 24 && !big) continue;
    size_t n = size_t(1) << lg;
    std::vector<uint8_t> sc(32 * n);
    for (size_t i = 0; i < n; i++) rand_scalar_bytes<Fr>(&sc[32 * i], g);
    std::vector<affine_t<G>> warm(size_t(1) << 16);
    fixed_base_gpu_host<G>(gen, sc.data(), warm.size(), warm.data());  // first launches, pool growth
    double ms = 0;
    fixed_base_same<C, G>(gen, sc.data(), n, group, std::string(name) + " 2^" + std::to_string(lg), &ms,
                          lg == 24 ? 4093 : 1);
    char buf[160];
    std::snprintf(buf, sizeof buf, "fixedbase %-13s 2^%u: %9.1f ms on the GPU (host buffers, c=%u)", name, lg, ms,
                  fixed_base_gpu::choose_window(std::min(n, fixed_base_gpu::block_points * 8), sizeof(affine_t<G>)));
    g_table.push_back(buf);
    std::printf("%s\n", buf);
  }
}

void test_fixed_base() {
  fixed_base_group<bn254, bn254::g1>("bn254 G1", CUZK_G1, true);
  fixed_base_group<bn254, bn254::g2>("bn254 G2", CUZK_G2, true);
  fixed_base_group<bls12_381, bls12_381::g1>("bls12_381 G1", CUZK_G1, true);
  fixed_base_group<bls12_381, bls12_381::g2>("bls12_381 G2", CUZK_G2, false);
}
