// Key residency on the GPU (key_gpu.cuh): the uploads, the masks of the points that count (a byte per
// wire, so the witness MSMs drop the scalars of infinity points before their sort) and the table of
// resident keys by (key, device).
#include <map>
#include <mutex>
#include <utility>

#include "../msm/msm_gpu_present.cuh"
#include "key_gpu.cuh"
#include "prove_gpu.hpp"

namespace cuzk {
namespace {

using key_slot_t = std::pair<const cuzk_key*, int>;
std::mutex keys_mu;
std::map<key_slot_t, std::shared_ptr<key_dev_t>>& key_table() {
  static std::map<key_slot_t, std::shared_ptr<key_dev_t>> t;
  return t;
}

void* upload(const uint8_t* src, size_t bytes) {
  if (bytes == 0) return nullptr;
  void* d = nullptr;
  CUZK_CUDA_OK(cudaMalloc(&d, bytes));
  cudaError_t e = cudaMemcpy(d, src, bytes, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) (void)cudaFree(d);
  CUZK_CUDA_OK(e);
  return d;
}

// The wires whose point in |p1| or (when given) |p2| (n device points each) is not infinity.
template <class D1, class D2 = D1>
uint8_t* presence_mask(uint32_t n, const void* p1, const void* p2 = nullptr) {
  uint8_t* m = nullptr;
  CUZK_CUDA_OK(cudaMalloc(&m, std::max<size_t>(n, 1)));
  cudaError_t e = cudaMemset(m, 0, n);
  if (e == cudaSuccess && n) {
    unsigned blocks = unsigned(ceil_div(n, 256u));
    msm_gpu::mark_present_kernel<D1><<<blocks, 256>>>(static_cast<const dev::daffine_t<D1>*>(p1), n, m);
    if (p2) msm_gpu::mark_present_kernel<D2><<<blocks, 256>>>(static_cast<const dev::daffine_t<D2>*>(p2), n, m);
    e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
  }
  if (e != cudaSuccess) (void)cudaFree(m);
  CUZK_CUDA_OK(e);
  return m;
}

}  // namespace

template <class C>
std::shared_ptr<key_dev_t> resident_key(const cuzk_key& key, int device) {
  std::lock_guard<std::mutex> lk(keys_mu);
  auto& slot = key_table()[{&key, device}];
  if (slot) return slot;
  const cuzk_key_desc& d = key.desc;
  const size_t g1 = sizeof(typename C::g1_affine_t), g2 = sizeof(typename C::g2_affine_t);
  auto kd = std::make_shared<key_dev_t>();
  kd->device = device;
  try {
    kd->a = upload(d.points_a, size_t(d.n_vars) * g1);
    kd->b1 = upload(d.points_b1, size_t(d.n_vars) * g1);
    kd->b2 = upload(d.points_b2, size_t(d.n_vars) * g2);
    kd->c = upload(d.points_c, (size_t(d.n_vars) - d.n_public - 1) * g1);
    kd->h = upload(d.points_h, size_t(d.domain_size) * g1);
    using D1 = gpu_t<typename C::g1>;
    using D2 = gpu_t<typename C::g2>;
    kd->a_present = presence_mask<D1>(d.n_vars, kd->a);
    kd->b_present = presence_mask<D1, D2>(d.n_vars, kd->b1, kd->b2);
    synth_upload(key, kd->coefs);
  } catch (...) {
    key_table().erase({&key, device});
    throw;
  }
  slot = kd;
  return kd;
}

template <class C>
uint64_t gpu_key_bytes(const cuzk_key& key) {
  const cuzk_key_desc& d = key.desc;
  const uint64_t g1 = sizeof(typename C::g1_affine_t), g2 = sizeof(typename C::g2_affine_t);
  return uint64_t(d.n_vars) * (2 * g1 + g2 + 2) + (uint64_t(d.n_vars) - d.n_public - 1) * g1 +
         uint64_t(d.domain_size) * g1 + synth_layout_bytes(d.domain_size, d.n_coefs);
}

template <class C>
void gpu_key_upload(const cuzk_key& key, int device) {
  gpu_use_device(device);
  (void)resident_key<C>(key, device);
}

void gpu_key_evict(const cuzk_key* key, int device) {
  std::lock_guard<std::mutex> lk(keys_mu);
  key_table().erase({key, device});  // a proof in flight keeps its shared_ptr until it returns
}

void gpu_key_release(const cuzk_key* key) {
  std::lock_guard<std::mutex> lk(keys_mu);
  auto& t = key_table();
  for (auto it = t.begin(); it != t.end();) it = it->first.first == key ? t.erase(it) : std::next(it);
}

#define CUZK_KEY_GPU_INSTANTIATE(C)                                                  \
  template std::shared_ptr<key_dev_t> resident_key<C>(const cuzk_key&, int);       \
  template uint64_t gpu_key_bytes<C>(const cuzk_key&);                             \
  template void gpu_key_upload<C>(const cuzk_key&, int);

CUZK_KEY_GPU_INSTANTIATE(bn254)
CUZK_KEY_GPU_INSTANTIATE(bls12_381)

}  // namespace cuzk
