// MSM section of tools/gpu_selftest.cu (included there, after its helpers). Every case is checked
// against the discrete-log oracle of selftest_util.cuh and, up to a size per group, against the CPU
// core's cuzk_msm. Bench: device-resident inputs, whole msm_device call (host
// syncs and the host-side window combination included), median of 5 after a warm-up.
#pragma once

enum scalar_kind { k_random, k_mixed, k_equal, k_small, k_full256, k_nkinds };
static const char* const kind_names[] = {"random", "mixed0/1/r-1/inf/dup/neg", "all-equal", "16-bit", "256-bit"};

template <class C, class G>
void make_case(const point_set_t<C, G>& ps, size_t n, int kind, std::mt19937_64& g, std::vector<affine_t<G>>& pts,
               std::vector<typename C::fr_t>& logs, std::vector<uint8_t>& sc) {
  using Fr = typename C::fr_t;
  pts.assign(ps.pts.begin(), ps.pts.begin() + n);
  logs.assign(ps.dlog.begin(), ps.dlog.begin() + n);
  sc.assign(32 * n, 0);
  uint8_t eq[32];
  rand_scalar_bytes<Fr>(eq, g);
  for (size_t i = 0; i < n; i++) {
    uint8_t* s = &sc[32 * i];
    if (kind == k_random) rand_scalar_bytes<Fr>(s, g);
    else if (kind == k_equal) std::memcpy(s, eq, 32);
    else if (kind == k_small) { uint64_t v = g() & 0xffff; std::memcpy(s, &v, 8); }
    else if (kind == k_full256) for (int k = 0; k < 4; k++) { uint64_t v = g(); std::memcpy(s + 8 * k, &v, 8); }
    else {
      uint32_t r = g() % 100, q = g() % 100;
      if (r >= 40 && r < 70) s[0] = 1;
      else if (r >= 70 && r < 75) (-Fr::one()).store_std(s);  // r - 1
      else if (r >= 75) rand_scalar_bytes<Fr>(s, g);
      if (q < 3) { pts[i] = affine_t<G>::infinity(); logs[i] = Fr::zero(); }
      else if (q < 6 && i > 0) { pts[i] = -pts[i - 1]; logs[i] = -logs[i - 1]; }
      else if (q < 9 && i > 0) { pts[i] = pts[i - 1]; logs[i] = logs[i - 1]; }
    }
  }
}

template <class C, class G>
void check_msm_group(const char* name, int32_t group, const point_set_t<C, G>& ps, unsigned lg_max, unsigned lg_cpu) {
  std::mt19937_64 g(seed() ^ std::hash<std::string>()(name));
  std::vector<affine_t<G>> pts;
  std::vector<typename C::fr_t> logs;
  std::vector<uint8_t> sc;
  std::vector<size_t> sizes = {1, 2, 3, 7, 64, 1000, 4101};
  for (unsigned lg = 14; lg <= lg_max; lg += 2) sizes.push_back(size_t(1) << lg);
  for (size_t n : sizes) {
    for (int kind = 0; kind < k_nkinds; kind++) {
      if (n > (1u << 16) && kind != k_random && kind != k_mixed && !(kind == k_equal && n == (1u << 20))) continue;
      make_case(ps, n, kind, g, pts, logs, sc);
      double t0 = now_ms();
      affine_t<G> gpu = msm_gpu_host<G>(pts.data(), sc.data(), n).to_affine();
      double t_gpu = now_ms() - t0;
      bool ok = gpu == ps.expected(sc.data(), logs, n);
      // each accumulation kernel forced on the same case (the default picks by field and size)
      for (accumulation_t acc : {acc_xyzz, acc_affine}) {
        gpu_tuning_t forced = gpu_tuning();
        forced.accumulation = acc;
        bool same = msm_gpu_host<G>(pts.data(), sc.data(), n, forced).to_affine() == gpu;
        ok = ok && same;
        if (!same)
          std::printf("     msm %s n=%zu %s: the %s accumulation differs\n", name, n, kind_names[kind],
                      acc == acc_affine ? "batch-affine" : "XYZZ");
      }
      std::string extra = ok ? "oracle" : "ORACLE";
      if (n <= (size_t(1) << lg_cpu)) {
        t0 = now_ms();
        affine_t<G> cpu = cpu_msm<C, G>(pts.data(), sc.data(), n, group);
        extra += std::string(cpu == gpu ? " + cpu" : " + CPU") + " (" + std::to_string(int(now_ms() - t0)) + " ms)";
        ok = ok && cpu == gpu;
      }
      char buf[160];
      std::snprintf(buf, sizeof buf, "msm %s n=%zu %s: gpu %.1f ms, vs %s", name, n, kind_names[kind], t_gpu,
                    extra.c_str());
      report(ok, buf);
    }
  }
  // the ABI hook (the policy may keep small sizes on the CPU: then it must say so by returning false)
  size_t n = size_t(1) << 12;
  make_case(ps, n, k_mixed, g, pts, logs, sc);
  jacobian_t<G> hook;
  bool used = gpu_msm_try<G>(pts.data(), sc.data(), n, hook);
  report(!used || hook.to_affine() == ps.expected(sc.data(), logs, n),
         std::string("msm ") + name + " gpu_msm_try n=4096: " + (used ? "ran on the GPU" : "declined (policy)"));
}

// floors: shared/perf/h200.md (XYZZ, lower end; 2^22 = geometric mean of 2^20 and 2^24)
template <class C, class G>
void bench_msm_group(const char* name, const point_set_t<C, G>& ps, const double (&floor)[4], const double (&peer)[4],
                     bool sweep) {
  const unsigned lgs[4] = {16, 20, 22, 24};
  size_t nmax = ps.pts.size();
  std::mt19937_64 g(seed() + 1);
  std::vector<uint8_t> sc(32 * nmax);
  for (size_t i = 0; i < nmax; i++) rand_scalar_bytes<typename C::fr_t>(&sc[32 * i], g);
  uint32_t nbits = 0;  // the scalars' largest bit length, as msm_device finds it (the window it chooses)
  for (size_t i = 0; i < nmax; i++)
    for (int b = 31; b >= 0; b--)
      if (sc[32 * i + b]) { nbits = std::max<uint32_t>(nbits, 8 * b + 32 - __builtin_clz(sc[32 * i + b])); break; }
  gpu_stream_t st;
  affine_t<G>* d_pts;
  uint8_t* d_sc;
  CUZK_CUDA_OK(cudaMalloc(&d_pts, nmax * sizeof(affine_t<G>)));
  CUZK_CUDA_OK(cudaMalloc(&d_sc, 32 * nmax));
  CUZK_CUDA_OK(cudaMemcpy(d_pts, ps.pts.data(), nmax * sizeof(affine_t<G>), cudaMemcpyHostToDevice));
  CUZK_CUDA_OK(cudaMemcpy(d_sc, sc.data(), 32 * nmax, cudaMemcpyHostToDevice));
  // median wall ms of |reps| msm_device calls of size n with |tuning| (after the caller's warm-up)
  auto median_ms = [&](size_t n, int reps, const gpu_tuning_t& tuning = gpu_tuning()) {
    std::vector<double> t;
    for (int rep = 0; rep < reps; rep++) {
      double t0 = now_ms();
      msm_device<G>(d_pts, d_sc, n, st, nullptr, tuning);
      t.push_back(now_ms() - t0);
    }
    return median(t);
  };
  for (int k = 0; k < 4; k++) {
    size_t n = size_t(1) << lgs[k];
    if (n > nmax) break;
    affine_t<G> r = msm_device<G>(d_pts, d_sc, n, st).to_affine();
    report(r == ps.expected(sc.data(), ps.dlog, n), std::string("msm bench ") + name + " 2^" +
                                                        std::to_string(lgs[k]) + " result matches the oracle");
    const double med = median_ms(n, 5);
    char buf[200];
    std::snprintf(buf, sizeof buf, "MSM %-13s 2^%u: %9.2f ms  floor %7.1f ms  eff %.2f  (sppark %s ms) c=%u", name,
                  lgs[k], med, floor[k], floor[k] / med, peer[k] > 0 ? std::to_string(peer[k]).substr(0, 5).c_str() : "-",
                  msm_gpu::choose_window(n, nbits));
    g_table.push_back(buf);
    std::printf("%s\n", buf);
    using DF = gpu_t<G>;
    const std::string at = std::string(name) + " 2^" + std::to_string(lgs[k]);  // the case, in names
    // one accumulation kernel, forced, at each blocks/SM count it is compiled for (|blocks| of a copy
    // of |base|); each result checked
    auto by_blocks = [&](const char* kernel, accumulation_t choice, const auto& counts, int gpu_tuning_t::*blocks,
                         const gpu_tuning_t& base) {
      std::string line = "     " + at + " by " + kernel + " blocks/SM:";
      gpu_tuning_t t = base;
      t.accumulation = choice;
      for (int b : counts) {
        t.*blocks = b;
        report(msm_device<G>(d_pts, d_sc, n, st, nullptr, t).to_affine() == r,
               "msm bench " + at + " " + kernel + " at " + std::to_string(b) + " blocks/SM matches");
        line += " b" + std::to_string(b) + "=" + std::to_string(median_ms(n, 3, t)).substr(0, 6);
      }
      g_table.push_back(line);
      std::printf("%s\n", line.c_str());
    };
    constexpr auto& xyzz_blocks = msm_gpu::accumulate_blocks_of<DF>::xyzz;
    if (std::size(xyzz_blocks) > 1 && (lgs[k] == 20 || lgs[k] == 24))
      by_blocks("xyzz", acc_xyzz, xyzz_blocks, &gpu_tuning_t::xyzz_blocks, gpu_tuning());
    if (lgs[k] >= 20) {  // the accumulation kernels: XYZZ, batch-affine by lanes; each result checked
      std::string line = "     " + at + " by accumulation kernel:";
      for (uint32_t lanes : {0u, 8u, 16u, 24u, 32u, 48u, 64u}) {
        if (lanes > uint32_t(msm_gpu::affine_lanes_cap<gpu_t<G>>::value)) continue;
        gpu_tuning_t t = gpu_tuning();
        t.accumulation = lanes ? acc_affine : acc_xyzz;
        t.affine_lanes = lanes;
        bool same = msm_device<G>(d_pts, d_sc, n, st, nullptr, t).to_affine() == r;
        std::string what = lanes ? "affine" + std::to_string(lanes) : std::string("xyzz");
        report(same, "msm bench " + at + " " + what + " matches");
        line += " " + what + "=" + std::to_string(median_ms(n, 3, t)).substr(0, 6);
      }
      g_table.push_back(line);
      std::printf("%s\n", line.c_str());
      gpu_tuning_t by_rule = gpu_tuning();  // the batch-affine kernel with its lanes by the rule
      by_rule.affine_lanes = 0;
      by_blocks("affine", acc_affine, msm_gpu::accumulate_blocks_of<DF>::affine, &gpu_tuning_t::affine_blocks, by_rule);
    }
    if (lgs[k] >= 20) {  // accumulation waves (chunk lengths), each result checked
      std::string line = "     " + at + " by accumulation waves:";
      for (uint32_t w : {0u, 1u, 2u, 4u, 8u, 16u}) {
        gpu_tuning_t t = gpu_tuning();
        t.accumulate_waves = w;
        report(msm_device<G>(d_pts, d_sc, n, st, nullptr, t).to_affine() == r,
               std::string("msm bench ") + name + " 2^" + std::to_string(lgs[k]) + " with " + std::to_string(w) +
                   " accumulation waves matches");
        line += " w" + std::to_string(w) + "=" + std::to_string(median_ms(n, 3, t)).substr(0, 6);
      }
      g_table.push_back(line);
      std::printf("%s\n", line.c_str());
    }
    if (sweep && (lgs[k] == 20 || lgs[k] == 24)) {  // window widths around the model's choice
      uint32_t c0 = msm_gpu::choose_window(n, nbits);
      std::string line = "     " + at + " by window:";
      for (uint32_t c = c0 - 2; c <= c0 + 2; c++) {
        gpu_tuning_t t = gpu_tuning();
        t.window = c;
        line += " c" + std::to_string(c) + "=" + std::to_string(median_ms(n, 3, t)).substr(0, 6);
      }
      g_table.push_back(line);
      std::printf("%s\n", line.c_str());
    }
  }
  CUZK_CUDA_OK(cudaFree(d_pts));
  CUZK_CUDA_OK(cudaFree(d_sc));
}

template <class C, class G>
void msm_group(const char* name, int32_t group, unsigned lg_check, unsigned lg_cpu, bool check, bool bench,
               const double (&floor)[4], const double (&peer)[4]) {
  // env SELFTEST_MSM="bn254 G1,bls12_381 G2": only the groups named (a measuring knob)
  if (const char* only = std::getenv("SELFTEST_MSM"); only && !std::strstr(only, name)) return;
  unsigned lg_pts = std::max(check ? lg_check : 0u, bench ? 24u : 0u);
  double t0 = now_ms();
  point_set_t<C, G> ps(size_t(1) << lg_pts, group);
  std::printf("     %s: 2^%u points with known logs in %.0f ms\n", name, lg_pts, now_ms() - t0);
  if (check) check_msm_group<C, G>(name, group, ps, lg_check, lg_cpu);
  if (bench) bench_msm_group<C, G>(name, ps, floor, peer, group == CUZK_G1);
}

void test_msms(bool bench, bool bench_only = false) {
  bool check = !bench_only;
  msm_group<bn254, bn254::g1>("bn254 G1", CUZK_G1, 22, 22, check, bench, {0.4, 4.3, 15.5, 56}, {4.32, 12.6, 26.9, 79.2});
  msm_group<bls12_381, bls12_381::g1>("bls12_381 G1", CUZK_G1, 22, 20, check, bench, {0.9, 9.6, 34.5, 124},
                                      {6.61, 20.3, 53.2, 155});
  msm_group<bn254, bn254::g2>("bn254 G2", CUZK_G2, 18, 18, check, bench, {1.1, 12, 43.3, 156}, {5.76, 24.6, 64.2, 208});
  msm_group<bls12_381, bls12_381::g2>("bls12_381 G2", CUZK_G2, 18, 16, check, bench, {2.4, 27, 96.9, 348}, {0, 0, 0, 0});
}
