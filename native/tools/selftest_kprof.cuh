// kprof section of tools/gpu_selftest.cu: one MSM / NTT call of each kind between
// cudaProfilerStart/Stop (after a warm-up call), for `ncu --profile-from-start off` (scripts/gpu-prof.sh).
// Points: a 2^16 point set tiled to the size (the kernels' cost does not depend on the points).
#pragma once
#include <cuda_profiler_api.h>

template <class C, class G>
void kprof_msm(int32_t group, unsigned lg) {
  size_t n = size_t(1) << lg;
  point_set_t<C, G> ps(size_t(1) << 16, group);
  std::vector<affine_t<G>> pts(n);
  for (size_t i = 0; i < n; i++) pts[i] = ps.pts[i & 0xffff];
  std::mt19937_64 g(seed() + 7);
  std::vector<uint8_t> sc(32 * n);
  for (size_t i = 0; i < n; i++) rand_scalar_bytes<typename C::fr_t>(&sc[32 * i], g);
  gpu_stream_t st;
  affine_t<G>* d_pts;
  uint8_t* d_sc;
  CUZK_CUDA_OK(cudaMalloc(&d_pts, n * sizeof(affine_t<G>)));
  CUZK_CUDA_OK(cudaMalloc(&d_sc, 32 * n));
  CUZK_CUDA_OK(cudaMemcpy(d_pts, pts.data(), n * sizeof(affine_t<G>), cudaMemcpyHostToDevice));
  CUZK_CUDA_OK(cudaMemcpy(d_sc, sc.data(), 32 * n, cudaMemcpyHostToDevice));
  msm_device<G>(d_pts, d_sc, n, st);
  CUZK_CUDA_OK(cudaProfilerStart());
  double t0 = now_ms();
  msm_device<G>(d_pts, d_sc, n, st);
  double t = now_ms() - t0;
  CUZK_CUDA_OK(cudaProfilerStop());
  std::printf("kprof msm group %d 2^%u: %.2f ms\n", int(group), lg, t);
  CUZK_CUDA_OK(cudaFree(d_pts));
  CUZK_CUDA_OK(cudaFree(d_sc));
}

template <class F>
void kprof_ntt(unsigned lg) {
  size_t n = size_t(1) << lg;
  std::mt19937_64 g(seed() + 8);
  std::vector<F> a(n);
  for (auto& v : a) rand_field(v, g);
  gpu_stream_t st;
  F *d_in, *d_out;
  CUZK_CUDA_OK(cudaMalloc(&d_in, n * sizeof(F)));
  CUZK_CUDA_OK(cudaMalloc(&d_out, n * sizeof(F)));
  CUZK_CUDA_OK(cudaMemcpy(d_in, a.data(), n * sizeof(F), cudaMemcpyHostToDevice));
  ntt_device<F>(d_in, d_out, lg, false, false, st);
  st.sync();
  CUZK_CUDA_OK(cudaProfilerStart());
  ntt_device<F>(d_in, d_out, lg, true, true, st);
  st.sync();
  CUZK_CUDA_OK(cudaProfilerStop());
  CUZK_CUDA_OK(cudaFree(d_in));
  CUZK_CUDA_OK(cudaFree(d_out));
}

void kprof_all() {
  kprof_msm<bn254, bn254::g1>(CUZK_G1, 24);
  kprof_msm<bn254, bn254::g1>(CUZK_G1, 20);
  kprof_msm<bn254, bn254::g2>(CUZK_G2, 22);
  kprof_msm<bls12_381, bls12_381::g1>(CUZK_G1, 22);
  kprof_ntt<bn254_fr_t>(24);
}
