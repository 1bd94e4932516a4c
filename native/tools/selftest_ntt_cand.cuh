// NTT candidates section of tools/gpu_selftest.cu (`gpu_selftest nttcand`, included there): every pass
// kernel of gpu_tuning_t's ntt_variants side by side in one process, each checked against the CPU
// core's cuzk_ntt and timed device-resident (CUDA events, median of 10 after 2 warm-ups) at 2^20,
// 2^22 and 2^24: the forward transform, and the proof's iNTT -> coset NTT pair (three of them are a
// proof's six transforms). Then the cuzk_ntt road at 2^24 taken apart: PCIe each way, kernels, and
// the host range check the entry ran before the upload until the device did it.
#pragma once

template <class F>
bool same_ntt(const std::vector<F>& a, const std::vector<F>& b) {
  return std::memcmp(a.data(), b.data(), a.size() * sizeof(F)) == 0;
}

template <class F>
void ntt_candidates(const char* name, std::vector<double>& fwd24) {
  const unsigned lgs[3] = {20, 22, 24};
  std::mt19937_64 g(seed() ^ 0x6e7474636e64ull ^ std::hash<std::string>()(name));
  for (unsigned lg : lgs) {
    const size_t n = size_t(1) << lg, bytes = n * sizeof(F);
    std::vector<F> a(n), fwd(n), pair(n), got(n);
    for (auto& v : a) rand_field(v, g);  // canonical limbs: standard-form values
    fwd = a;
    cpu_ntt(fwd.data(), lg, 0);
    pair = a;
    cpu_ntt(pair.data(), lg, CUZK_NTT_INVERSE);
    cpu_ntt(pair.data(), lg, CUZK_NTT_COSET);
    std::vector<std::vector<F>> other;  // flags 1..3 at the smallest size
    if (lg == lgs[0])
      for (uint32_t flags = 1; flags < 4; flags++) {
        other.push_back(a);
        cpu_ntt(other.back().data(), lg, flags);
      }
    F *d_keep, *d_in, *d_out;
    CUZK_CUDA_OK(cudaMalloc(&d_keep, bytes));
    CUZK_CUDA_OK(cudaMalloc(&d_in, bytes));
    CUZK_CUDA_OK(cudaMalloc(&d_out, bytes));
    CUZK_CUDA_OK(cudaMemcpy(d_keep, a.data(), bytes, cudaMemcpyHostToDevice));
    for (const auto& nv : ntt_variants) {
      gpu_tuning_t tune = gpu_tuning();
      tune.ntt = nv.v;
      auto run = [&](uint32_t flags, bool as_pair) {
        CUZK_CUDA_OK(cudaMemcpy(d_in, d_keep, bytes, cudaMemcpyDeviceToDevice));
        CUZK_CUDA_OK(cudaMemset(d_out, 0xa5, bytes));  // poison
        if (as_pair) intt_coset_ntt_device<F>(d_in, d_out, lg, nullptr, tune);
        else ntt_device<F>(d_in, d_out, lg, flags & CUZK_NTT_INVERSE, flags & CUZK_NTT_COSET, nullptr, tune);
        CUZK_CUDA_OK(cudaMemcpy(got.data(), as_pair ? d_in : d_out, bytes, cudaMemcpyDeviceToHost));
      };
      run(0, false);
      bool ok = same_ntt(got, fwd);
      run(0, true);
      ok = same_ntt(got, pair) && ok;
      for (uint32_t flags = 1; flags <= other.size(); flags++) {
        run(flags, false);
        ok = same_ntt(got, other[flags - 1]) && ok;
      }
      double t_fwd = event_median_ms(2, 10, [&] { ntt_device<F>(d_in, d_out, lg, false, false, nullptr, tune); });
      double t_pair = event_median_ms(2, 10, [&] { intt_coset_ntt_device<F>(d_in, d_out, lg, nullptr, tune); });
      if (lg == 24) fwd24.push_back(t_fwd);
      char buf[220];
      std::snprintf(buf, sizeof buf,
                    "NTT cand %-8s %-12s 2^%u: forward %7.3f ms  iNTT+coset NTT %7.3f ms  (x3 %7.2f)  = CPU: %s", nv.name,
                    name, lg, t_fwd, t_pair, 3 * t_pair, ok ? "yes" : "NO");
      report(ok, buf);
      g_table.push_back(buf);
    }
    CUZK_CUDA_OK(cudaFree(d_keep));
    CUZK_CUDA_OK(cudaFree(d_in));
    CUZK_CUDA_OK(cudaFree(d_out));
  }
}

// cuzk_ntt's GPU road (ntt_gpu_host, the process's variant) at 2^24 from pinned memory, against its
// parts: each direction's copy alone, the kernels (|kernel_ms|), and the host pass over the vector
// that checked each element below r before the upload (now the first pass checks on the device).
template <class F>
void ntt_entry_parts(const char* name, double kernel_ms) {
  const unsigned lg = 24;
  const size_t n = size_t(1) << lg, bytes = n * sizeof(F);
  F* h;
  void* d;
  CUZK_CUDA_OK(cudaHostAlloc(reinterpret_cast<void**>(&h), bytes, cudaHostAllocPortable));
  CUZK_CUDA_OK(cudaMalloc(&d, bytes));
  std::mt19937_64 g(seed() + 24);
  for (size_t i = 0; i < n; i++) rand_field(h[i], g);
  std::vector<double> up, down, check, entry;
  for (int rep = 0; rep < 6; rep++) {
    double t0 = now_ms();
    CUZK_CUDA_OK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    double t1 = now_ms();
    CUZK_CUDA_OK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
    double t2 = now_ms();
    std::atomic<bool> below{true};
    thread_pool::global().parallel_range(n, 1 << 12, [&](size_t b, size_t e) {
      for (size_t i = b; i < e && below; i++)
        if (!F::lt_p(h[i].l)) below = false;
    });
    double t3 = now_ms();
    ntt_gpu_host<F>(h, lg, false, false);  // in place: the next call transforms canonical elements again
    double t4 = now_ms();
    if (rep == 0 || !below) continue;      // warm-up (and a vector that was not canonical)
    up.push_back(t1 - t0);
    down.push_back(t2 - t1);
    check.push_back(t3 - t2);
    entry.push_back(t4 - t3);
  }
  char buf[260];
  double e = median(entry), u = median(up), dn = median(down);
  std::snprintf(buf, sizeof buf,
                "cuzk_ntt road %s 2^24 (pinned): %.2f ms = H2D %.2f + D2H %.2f + kernels %.2f + rest %.2f; "
                "the host range check it no longer runs: %.2f ms",
                name, e, u, dn, kernel_ms, e - u - dn - kernel_ms, median(check));
  report(!entry.empty(), buf);
  g_table.push_back(buf);
  CUZK_CUDA_OK(cudaFreeHost(h));
  CUZK_CUDA_OK(cudaFree(d));
}

void test_ntt_candidates() {
  std::vector<double> fwd24;
  ntt_candidates<bn254_fr_t>("bn254 Fr", fwd24);
  // the process's variant's forward time (CUZK_GPU_NTT), for the road's "kernels" column
  const ntt_variant_t& own = gpu_tuning().ntt;
  double kernel_ms = 0;
  for (size_t i = 0; i < std::size(ntt_variants) && i < fwd24.size(); i++) {
    const ntt_variant_t& v = ntt_variants[i].v;
    if (v.wide == own.wide && v.uniform == own.uniform) kernel_ms = fwd24[i];
  }
  ntt_entry_parts<bn254_fr_t>("bn254 Fr", kernel_ms);
  ntt_candidates<bls12_381_fr_t>("bls12_381 Fr", fwd24);
}
