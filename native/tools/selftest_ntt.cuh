// NTT section of tools/gpu_selftest.cu (included there): the GPU transform against the CPU core's
// cuzk_ntt for all four flag combinations and its argument check, and forward-transform timings
// (device-resident, CUDA events, median of 10 after 2 warm-ups). selftest_ntt_cand.cuh: every
// candidate pass kernel side by side.
#pragma once

template <class F>
void cpu_ntt(F* a, uint32_t lg, uint32_t flags) {
  cuzk_error e;
  ok_or_throw(cpu_ref_t::get().ntt(std::is_same_v<F, bn254_fr_t> ? CUZK_CURVE_BN254 : CUZK_CURVE_BLS12_381,
                                   reinterpret_cast<uint8_t*>(a), lg, flags, &e), e, "cuzk_ntt");
}

// cuzk_ntt's argument check, now on the device: an element equal to r (and one of all ones) is
// E_INVALID_ARG with the vector as it was, at the first and the last index.
template <class F>
void check_ntt_rejects(const char* name, std::mt19937_64& g) {
  const uint32_t lg = 12;
  const size_t n = size_t(1) << lg;
  std::vector<F> a(n), keep;
  for (auto& v : a) rand_field(v, g);
  for (size_t at : {size_t(0), n - 1})
    for (int kind = 0; kind < 2; kind++) {
      keep = a;
      F bad;
      std::memcpy(bad.l, F::params::p, sizeof bad.l);
      if (kind == 1) std::memset(bad.l, 0xff, sizeof bad.l);
      keep[at] = bad;
      std::vector<F> sent = keep;
      int code = 0;
      try {
        ntt_gpu_host<F>(sent.data(), lg, false, true);
      } catch (const error& e) {
        code = e.code;
      }
      bool ok = code == CUZK_E_INVALID_ARG && std::memcmp(sent.data(), keep.data(), n * sizeof(F)) == 0;
      report(ok, std::string("ntt ") + name + " rejects " + (kind ? "all-ones" : "r") + " at index " +
                     std::to_string(at) + " (E_INVALID_ARG, vector unchanged)");
    }
}

template <class F>
void check_ntt_field(const char* name) {
  std::mt19937_64 g(seed() ^ std::hash<std::string>()(name));
  const unsigned lgs[] = {0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 16, 18, 20, 21, 22};
  for (unsigned lg : lgs) {
    size_t n = size_t(1) << lg;
    std::vector<F> a(n), cpu(n), gpu(n);
    for (auto& v : a) rand_field(v, g);  // canonical limbs, used as standard-form values
    for (uint32_t flags = 0; flags < 4; flags++) {
      bool inv = flags & CUZK_NTT_INVERSE, coset = flags & CUZK_NTT_COSET;
      cpu = a;
      cpu_ntt(cpu.data(), lg, flags);
      gpu = a;
      double t0 = now_ms();
      ntt_gpu_host<F>(gpu.data(), lg, inv, coset);
      double ms = now_ms() - t0;
      size_t bad = 0;
      for (size_t i = 0; i < n; i++) bad += std::memcmp(&cpu[i], &gpu[i], sizeof(F)) != 0;
      char buf[160];
      std::snprintf(buf, sizeof buf, "ntt %s 2^%u%s%s: %zu/%zu match (gpu incl. transfers %.2f ms)", name, lg,
                    inv ? " inverse" : "", coset ? " coset" : "", n - bad, n, ms);
      report(bad == 0, buf);
    }
  }
  check_ntt_rejects<F>(name, g);
  size_t n = size_t(1) << 14;
  std::vector<F> a(n), cpu(n);
  for (auto& v : a) rand_field(v, g);
  cpu = a;
  cpu_ntt(cpu.data(), 14, CUZK_NTT_COSET);
  bool used = gpu_ntt_try<F>(a.data(), 14, CUZK_NTT_COSET);
  report(!used || std::memcmp(a.data(), cpu.data(), n * sizeof(F)) == 0,
         std::string("ntt ") + name + " gpu_ntt_try 2^14 coset: " + (used ? "ran on the GPU" : "declined (policy)"));
}

template <class F>
void bench_ntt_field(const char* name) {
  const unsigned lgs[4] = {16, 20, 22, 24};
  const double floor[4] = {0.25 / 16, 0.25, 0.25 * 4.4, 4.7}, peer[4] = {0.032, 0.276, 1.10, 4.66};
  size_t nmax = size_t(1) << 24;
  std::mt19937_64 g(seed() + 2);
  std::vector<F> a(nmax);
  for (auto& v : a) rand_field(v, g);
  gpu_stream_t st;
  F *d_in, *d_out;
  CUZK_CUDA_OK(cudaMalloc(&d_in, nmax * sizeof(F)));
  CUZK_CUDA_OK(cudaMalloc(&d_out, nmax * sizeof(F)));
  CUZK_CUDA_OK(cudaMemcpy(d_in, a.data(), nmax * sizeof(F), cudaMemcpyHostToDevice));
  cudaEvent_t e0, e1;
  CUZK_CUDA_OK(cudaEventCreate(&e0));
  CUZK_CUDA_OK(cudaEventCreate(&e1));
  for (int k = 0; k < 4; k++) {
    std::vector<double> ms;
    for (int rep = 0; rep < 12; rep++) {
      CUZK_CUDA_OK(cudaEventRecord(e0, st));
      ntt_device<F>(d_in, d_out, lgs[k], false, false, st);
      CUZK_CUDA_OK(cudaEventRecord(e1, st));
      CUZK_CUDA_OK(cudaEventSynchronize(e1));
      float t;
      CUZK_CUDA_OK(cudaEventElapsedTime(&t, e0, e1));
      if (rep >= 2) ms.push_back(t);
    }
    double med = median(ms);
    char buf[200];
    std::snprintf(buf, sizeof buf, "NTT %-13s 2^%u: %9.3f ms  floor %7.3f ms  eff %.2f  (sppark bn254 %.3f ms)", name,
                  lgs[k], med, floor[k], floor[k] / med, peer[k]);
    g_table.push_back(buf);
    std::printf("%s\n", buf);
  }
  CUZK_CUDA_OK(cudaEventDestroy(e0));
  CUZK_CUDA_OK(cudaEventDestroy(e1));
  CUZK_CUDA_OK(cudaFree(d_in));
  CUZK_CUDA_OK(cudaFree(d_out));
}

void test_ntts(bool check, bool bench) {
  if (check) {
    check_ntt_field<bn254_fr_t>("bn254");
    check_ntt_field<bls12_381_fr_t>("bls12_381");
  }
  if (bench) {
    bench_ntt_field<bn254_fr_t>("bn254 Fr");
    bench_ntt_field<bls12_381_fr_t>("bls12_381 Fr");
  }
}
