// Groth16 section of tools/gpu_selftest.cu (included there): a synthetic key (random section-4
// records sorted by constraint, random curve points, mixed 0/1/random witness): the CPU core's two
// phases (cuzk_groth16_synthesize, cuzk_groth16_prove_ab device -1, of libcuzk_cpu.so) against
// gpu_groth16_prove_ab on GPU 0 (synthesis on the device) with the same r, s: the proofs must be
// byte-identical. Then the resident-key GPU proof time against the CPU's phase 2.
#pragma once

template <class C>
void check_prove(const char* name, unsigned lg_n, bool bench) {
  using Fr = typename C::fr_t;
  using G1 = typename C::g1;
  using G2 = typename C::g2;
  const size_t n = size_t(1) << lg_n, n_vars = n / 2 + 3, n_public = 2, n_coefs = 3 * n;
  point_set_t<C, G1> p1(n + 8, CUZK_G1);
  point_set_t<C, G2> p2(n_vars + 2, CUZK_G2);
  std::mt19937_64 g(seed() ^ (0x67726f7468ull + lg_n));
  std::vector<uint8_t> coefs(n_coefs * coef_record_bytes);
  for (size_t i = 0; i < n_coefs; i++) {
    uint32_t f[3] = {uint32_t(i % 3 == 1), uint32_t(i / 3), uint32_t(g() % n_vars)};
    std::memcpy(&coefs[i * coef_record_bytes], f, 12);
    rand_scalar_bytes<Fr>(&coefs[i * coef_record_bytes + 12], g);
  }
  std::vector<uint8_t> w(32 * n_vars, 0), r(32), s(32);
  for (size_t i = 0; i < n_vars; i++) {
    uint32_t k = g() % 10;
    if (i == 0 || k < 3) w[32 * i] = 1;
    else if (k >= 6) rand_scalar_bytes<Fr>(&w[32 * i], g);
  }
  rand_scalar_bytes<Fr>(r.data(), g);
  rand_scalar_bytes<Fr>(s.data(), g);
  auto b1 = [&](size_t k) { return reinterpret_cast<const uint8_t*>(p1.pts.data() + k); };
  auto b2 = [&](size_t k) { return reinterpret_cast<const uint8_t*>(p2.pts.data() + k); };
  cuzk_key key;
  key.desc = cuzk_key_desc{C::id, uint32_t(n_vars), uint32_t(n_public), uint32_t(n), n_coefs,
                           b1(0), b1(1), b2(0), b1(2), b2(1), coefs.data(),
                           b1(3), b1(5), b2(2), b1(7), b1(8)};
  key.plan = plan_coefs(key.desc);
  size_t proof_bytes = 2 * sizeof(typename C::g1_affine_t) + sizeof(typename C::g2_affine_t);
  std::vector<uint8_t> cpu(proof_bytes), gpu(proof_bytes, 0xa5);
  prove_timings_t tg;
  const cpu_ref_t& ref = cpu_ref_t::get();
  cuzk_key* cpu_key = nullptr;
  cuzk_error e;
  cuzk_prove_stats st{};
  ok_or_throw(ref.key_create(&key.desc, &cpu_key, &e), e, "cuzk_key_create");
  std::vector<Fr> ab(2 * n);
  auto* ab_bytes = reinterpret_cast<uint8_t*>(ab.data());
  ok_or_throw(ref.synthesize(cpu_key, w.data(), ab_bytes, nullptr, &st, &e), e, "cuzk_groth16_synthesize");
  double t0 = now_ms();
  ok_or_throw(ref.prove_ab(cpu_key, w.data(), ab_bytes, -1, r.data(), s.data(),
                           cpu.data(), nullptr, &st, &e),
              e, "cuzk_groth16_prove_ab");
  double cpu_ms = now_ms() - t0;
  ref.key_destroy(cpu_key, &e);
  t0 = now_ms();
  gpu_groth16_prove_ab<C>(key, 0, w.data(), r.data(), s.data(), gpu.data(), nullptr, tg);
  double first_ms = now_ms() - t0;
  char buf[240];
  std::snprintf(buf, sizeof buf, "groth16 %s 2^%u: gpu proof %s the cpu proof (cpu phase 2 %.0f ms, gpu first %.1f ms)",
                name, lg_n, cpu == gpu ? "equals" : "DIFFERS from", cpu_ms, first_ms);
  report(cpu == gpu, buf);
  if (bench) {
    std::vector<double> ms;
    for (int rep = 0; rep < 5; rep++) {
      t0 = now_ms();
      gpu_groth16_prove_ab<C>(key, 0, w.data(), r.data(), s.data(), gpu.data(), nullptr, tg);
      ms.push_back(now_ms() - t0);
    }
    std::snprintf(buf, sizeof buf,
                  "PROVE %-9s 2^%u: %8.1f ms whole proof, resident key (synth %.2f on the GPU, %.1f on the CPU; ntt %.1f "
                  "msm a %.1f b1 %.1f b2 %.1f c %.1f h %.1f) cpu phase 2 %.0f ms, x%.1f",
                  name, lg_n, median(ms), tg.abc, st.synth_ms, tg.ntt, tg.msm_a, tg.msm_b1, tg.msm_b2, tg.msm_c, tg.msm_h,
                  cpu_ms, cpu_ms / median(ms));
    g_table.push_back(buf);
    std::printf("%s\n", buf);
  }
  gpu_key_release(&key);
}

void test_proves(bool bench) {
  check_prove<bn254>("bn254", 12, false);
  check_prove<bls12_381>("bls12_381", 12, false);
  check_prove<bn254>("bn254", bench ? 20 : 16, bench);
  if (bench) check_prove<bls12_381>("bls12_381", 18, bench);
}
