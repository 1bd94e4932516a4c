// Synthesis section of tools/gpu_selftest.cu (included there): a = A·w, b = B·w on the GPU
// (groth16/synth_gpu.cuh: the key's layout built and uploaded by synth_upload, then synth_device)
// against the CPU core's scatter (cuzk_groth16_synthesize of libcuzk_cpu.so), byte for byte, on
// random keys and witnesses with the edge cases: empty rows, rows of exactly synth_short_row and one
// more, long rows (32, 33, 254, 1000 terms), the last constraint, wire indices 0 and n_vars - 1,
// values 0 and r - 1, witness values 0, 1 and r - 1, records in file order and shuffled (the plan's
// counting-sort path), a key without records. Then the GPU synthesis timed at 2^20 and at a 2^24
// circuit shaped like a real one (1-3 terms per A row, 1-2 per B row, a 254-term row every 256
// constraints) against the CPU scatter.
#pragma once

struct synth_shape_t {
  bool edges;     // the edge cases above, else the "real circuit" shape
  bool shuffled;  // records in random order
  bool empty;     // no records at all
};

// A 32-byte integer: kind 0: 0, 1: 1, 2: r - 1, else uniform below r.
template <class Fr>
void edge_scalar_bytes(uint8_t* out, int kind, std::mt19937_64& g) {
  Fr v;
  if (kind > 2) rand_field(v, g);
  else edge_field(v, kind == 2 ? 2 : 0);  // the raw limbs 0 or r - 1
  if (kind == 1) v.l[0] = 1;
  std::memcpy(out, v.l, 32);
}

// Row lengths (A then B of each constraint), then the records filled on the host threads, one RNG
// per block of constraints.
template <class Fr>
std::vector<uint8_t> synth_records(size_t n, size_t n_vars, const synth_shape_t& sh, uint64_t salt, uint64_t& n_coefs) {
  std::mt19937_64 g(seed() ^ salt);
  const uint32_t longs[] = {synth_short_row, synth_short_row + 1, 32, 33, 254, 1000};
  std::vector<uint32_t> len(2 * n, 0);
  for (size_t c = 0; c < n && !sh.empty; c++) {
    for (int m = 0; m < 2; m++) {
      uint32_t& l = len[2 * c + m];
      if (sh.edges) l = c % 7 == m ? 0 : c % 61 == 5 ? longs[(c / 61 + m) % 6] : 1 + g() % 3;
      else l = m == 0 ? (c % 256 == 17 ? 254 : 1 + g() % 3) : 1 + g() % 2;
    }
  }
  std::vector<uint64_t> start(2 * n + 1, 0);
  for (size_t i = 0; i < 2 * n; i++) start[i + 1] = start[i] + len[i];
  n_coefs = start[2 * n];
  std::vector<uint8_t> coefs(n_coefs * coef_record_bytes);
  const size_t block = 1 << 12;
  thread_pool::global().parallel_for((n + block - 1) / block, [&](size_t bi) {
    std::mt19937_64 gb(seed() ^ salt ^ (0x9e3779b97f4a7c15ull * (bi + 1)));
    for (size_t c = bi * block; c < std::min(n, (bi + 1) * block); c++)
      for (uint32_t m = 0; m < 2; m++)
        for (uint64_t i = start[2 * c + m]; i < start[2 * c + m + 1]; i++) {
          uint8_t* rec = &coefs[i * coef_record_bytes];
          uint32_t k = uint32_t(gb() % 16);
          uint32_t f[3] = {m, uint32_t(c), k == 0 ? 0u : k == 1 ? uint32_t(n_vars - 1) : uint32_t(gb() % n_vars)};
          std::memcpy(rec, f, 12);
          edge_scalar_bytes<Fr>(rec + 12, sh.edges && k < 4 ? (k == 2 ? 0 : k == 3 ? 2 : 3) : 3, gb);
        }
  });
  if (sh.shuffled) {  // Fisher-Yates over whole records
    std::vector<uint8_t> tmp(coef_record_bytes);
    for (uint64_t i = n_coefs; i > 1; i--) {
      uint64_t j = g() % i;
      std::memcpy(tmp.data(), &coefs[(i - 1) * coef_record_bytes], coef_record_bytes);
      std::memcpy(&coefs[(i - 1) * coef_record_bytes], &coefs[j * coef_record_bytes], coef_record_bytes);
      std::memcpy(&coefs[j * coef_record_bytes], tmp.data(), coef_record_bytes);
    }
  }
  return coefs;
}

template <class C>
void check_synth(const char* name, unsigned lg_n, const synth_shape_t& sh, bool bench, uint64_t chunk_records = 0) {
  using Fr = typename C::fr_t;
  const size_t n = size_t(1) << lg_n, n_vars = n / 2 + 5;
  const uint64_t salt = 0x73796e7468ull + lg_n * 8 + sh.edges * 4 + sh.shuffled * 2 + sh.empty;
  uint64_t n_coefs = 0;
  std::vector<uint8_t> coefs = synth_records<Fr>(n, n_vars, sh, salt, n_coefs);
  std::mt19937_64 g(seed() ^ salt ^ 0x77);
  std::vector<uint8_t> w(32 * n_vars);
  for (size_t i = 0; i < n_vars; i++) {
    uint32_t k = g() % 10;
    edge_scalar_bytes<Fr>(&w[32 * i], i == 0 ? 1 : i == n_vars - 1 ? 2 : k < 3 ? 0 : k < 5 ? 1 : k == 5 ? 2 : 3, g);
  }
  // the points are never read by synthesis or key_create (which checks them for NULL and alignment)
  std::vector<uint64_t> pts(64, 0);
  const uint8_t* p = reinterpret_cast<const uint8_t*>(pts.data());
  cuzk_key key;
  key.desc = cuzk_key_desc{C::id, uint32_t(n_vars), 2, uint32_t(n), n_coefs, p, p, p, p, p,
                           n_coefs ? coefs.data() : nullptr, p, p, p, p, p};
  key.plan = plan_coefs(key.desc);

  const cpu_ref_t& ref = cpu_ref_t::get();
  cuzk_key* cpu_key = nullptr;
  cuzk_error e;
  cuzk_prove_stats st{};
  std::vector<Fr> cpu(2 * n), gpu(2 * n);
  ok_or_throw(ref.key_create(&key.desc, &cpu_key, &e), e, "cuzk_key_create");
  std::vector<double> cpu_ms;
  for (int rep = 0; rep < (bench ? 3 : 1); rep++) {
    ok_or_throw(ref.synthesize(cpu_key, w.data(), reinterpret_cast<uint8_t*>(cpu.data()), nullptr, &st, &e), e,
                "cuzk_groth16_synthesize");
    cpu_ms.push_back(st.synth_ms);
  }
  ref.key_destroy(cpu_key, &e);

  synth_dev_t lay;
  gpu_stream_t s;
  uint8_t* d_w = nullptr;
  Fr* d_ab = nullptr;
  std::vector<double> ms;
  double up_ms = 0;
  try {
    double t0 = now_ms();
    synth_upload(key, lay, chunk_records);
    up_ms = now_ms() - t0;
    CUZK_CUDA_OK(cudaMalloc(&d_w, w.size()));
    CUZK_CUDA_OK(cudaMalloc(&d_ab, 2 * n * sizeof(Fr)));
    CUZK_CUDA_OK(cudaMemcpy(d_w, w.data(), w.size(), cudaMemcpyHostToDevice));
    CUZK_CUDA_OK(cudaMemset(d_ab, 0xa5, 2 * n * sizeof(Fr)));  // poison: every element must be written
    gpu_event_t e0, e1;
    for (int rep = 0; rep < (bench ? 6 : 1); rep++) {
      e0.record(s);
      {
        dev_arena_t ar(s);  // a streamed layout's staging ring
        chunk_ring_t ring(ar, synth_chunks(lay));
        synth_device<Fr>(s, lay, d_w, d_ab, &ring);
      }
      e1.record(s);
      s.sync();
      if (rep > 0 || !bench) ms.push_back(e1.since(e0));
    }
    CUZK_CUDA_OK(cudaMemcpy(gpu.data(), d_ab, 2 * n * sizeof(Fr), cudaMemcpyDeviceToHost));
  } catch (...) {
    lay.free_all();
    (void)cudaFree(d_w);
    (void)cudaFree(d_ab);
    throw;
  }
  lay.free_all();
  CUZK_CUDA_OK(cudaFree(d_w));
  CUZK_CUDA_OK(cudaFree(d_ab));

  size_t bad = 0, first = 0;
  for (size_t i = 0; i < 2 * n; i++)
    if (std::memcmp(&cpu[i], &gpu[i], sizeof(Fr)) && bad++ == 0) first = i;
  char buf[320];
  const std::string streamed =
      chunk_records ? " streamed in " + std::to_string(lay.chunks.size()) + " row ranges" : std::string();
  std::snprintf(buf, sizeof buf, "synth %s 2^%u%s%s%s%s: %llu records, %u long rows: a ‖ b %s the CPU scatter%s", name,
                lg_n, sh.edges ? " edges" : " circuit-shaped", sh.shuffled ? " shuffled" : "", sh.empty ? " no records" : "",
                streamed.c_str(), (unsigned long long)n_coefs, lay.n_long, bad ? "DIFFERS from" : "equals",
                bad ? (" (" + std::to_string(bad) + " elements, first " + std::to_string(first) + ")").c_str() : "");
  report(bad == 0, buf);
  if (bench) {
    std::snprintf(buf, sizeof buf,
                  "SYNTH %-9s 2^%u%s: %7.2f ms on the GPU (%.1f GB of records/s), CPU scatter %.1f ms (x%.0f); "
                  "layout build + upload %.0f ms, %.2f GiB resident",
                  name, lg_n, chunk_records ? " streamed" : "", median(ms), double(n_coefs) * 68 / median(ms) / 1e6, median(cpu_ms),
                  median(cpu_ms) / median(ms), up_ms, double(synth_layout_bytes(uint32_t(n), n_coefs)) / (1ull << 30));
    g_table.push_back(buf);
    std::printf("%s\n", buf);
  }
}

void test_synths() {
  const bool bench = true;
  for (bool shuffled : {false, true}) {
    check_synth<bn254>("bn254", 12, {true, shuffled, false}, false);
    check_synth<bls12_381>("bls12_381", 12, {true, shuffled, false}, false);
  }
  check_synth<bn254>("bn254", 4, {true, false, true}, false);
  check_synth<bn254>("bn254", 16, {true, false, false}, false);
  check_synth<bls12_381>("bls12_381", 16, {false, true, false}, false);
  // streamed from page-locked host memory by row ranges (a key placed with its coefficients streamed):
  // ranges of ~1000 records, so the 1000-term rows stand alone and many ranges cross the ring's two slots
  check_synth<bn254>("bn254", 12, {true, true, false}, false, 1000);
  check_synth<bls12_381>("bls12_381", 16, {true, false, false}, false, 4000);
  check_synth<bn254>("bn254", 4, {true, false, true}, false, 100);
  check_synth<bn254>("bn254", 20, {false, false, false}, bench);
  if (bench) check_synth<bn254>("bn254", 24, {false, false, false}, true);
  if (bench) check_synth<bn254>("bn254", 24, {false, false, false}, true, uint64_t(1) << 23);
}
