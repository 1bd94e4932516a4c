// Inversion section of tools/gpu_selftest.cu (included there, after its helpers): the device inverse
// (field/inv_bingcd.hpp through dmont_t::inv, dfp2_t::inv) equal to the host's Fermat inverse on random
// values and the edges 0, 1, p - 1, and its cost in multiplies (the MSM's batch-affine accumulation
// pays one inversion per |lanes| additions).
#pragma once

namespace cuzk {
namespace selftest {

template <class DF>
__global__ void inv_kernel(const DF* a, DF* out, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i].inv();
}

template <class HF>
void check_inv(const char* name, bool bench) {
  using DF = gpu_t<HF>;
  const size_t n = size_t(1) << 20;
  std::mt19937_64 g(seed() ^ 0x1a7);
  std::vector<HF> a(n), got(n);
  for (size_t i = 0; i < n; i++) rand_field(a[i], g);
  for (int k = 0; k < 3; k++) edge_field(a[k], k);
  DF *da, *dout;
  CUZK_CUDA_OK(cudaMalloc(&da, n * sizeof(DF)));
  CUZK_CUDA_OK(cudaMalloc(&dout, n * sizeof(DF)));
  CUZK_CUDA_OK(cudaMemcpy(da, a.data(), n * sizeof(DF), cudaMemcpyHostToDevice));
  CUZK_CUDA_OK(cudaMemset(dout, 0xa5, n * sizeof(DF)));  // poisoned
  double ms = event_median_ms(bench ? 1 : 0, bench ? 3 : 1, [&] {
    inv_kernel<DF><<<ceil_div(n, 128), 128>>>(da, dout, n);
    CUZK_CUDA_LAUNCHED();
  });
  CUZK_CUDA_OK(cudaMemcpy(got.data(), dout, n * sizeof(DF), cudaMemcpyDeviceToHost));
  const size_t checked = 1 << 14;
  size_t bad = 0;
  for (size_t i = 0; i < checked; i++) {
    HF want = a[i].inv();
    bad += std::memcmp(&want, &got[i], sizeof(HF)) != 0;
  }
  report(bad == 0, std::string("inv ") + name + " == host inverse on " + std::to_string(checked) +
                       " values (with 0, 1, p - 1): " + std::to_string(bad) + " mismatches");
  if (bench) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "inv %-13s 2^20 values: %.3f ms = %.2f G inv/s", name, ms, double(n) / ms / 1e6);
    g_table.push_back(buf);
    std::printf("%s\n", buf);
  }
  CUZK_CUDA_OK(cudaFree(da));
  CUZK_CUDA_OK(cudaFree(dout));
}

void test_invs(bool bench) {
  check_inv<bn254_fq_t>("bn254 Fq", bench);
  check_inv<bn254_fr_t>("bn254 Fr", bench);
  check_inv<bls12_381_fq_t>("bls12_381 Fq", bench);
  check_inv<bn254_fq2_t>("bn254 Fq2", bench);
  check_inv<bls12_381_fq2_t>("bls12_381 Fq2", bench);
}

}  // namespace selftest
}  // namespace cuzk
