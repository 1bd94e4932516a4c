// Key placement on the GPU (key_gpu.cuh): the uploads of the resident sets, the masks of the points
// that count (a byte per wire, so the witness MSMs drop the scalars of infinity points before their
// sort; a streamed set's are marked chunk by chunk through a scratch buffer) and the table of placed
// keys by (key, device).
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

#include "../msm/msm_gpu_present.cuh"
#include "../util/gpu_tuning.hpp"
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

// m[i] |= point i of a set of n is not infinity: over its device points |dev|, else over its host
// points |host| copied through a scratch buffer of |chunk| points at a time.
template <class D>
void mark_present(uint8_t* m, uint32_t n, const void* dev, const uint8_t* host, size_t chunk) {
  using P = dev::daffine_t<D>;
  if (n == 0) return;
  if (dev) {
    msm_gpu::mark_present_kernel<D><<<ceil_div(n, 256u), 256>>>(static_cast<const P*>(dev), n, m);
    CUZK_CUDA_OK(cudaGetLastError());
    return;
  }
  chunk = std::min<size_t>(std::max<size_t>(chunk, 1), n);
  P* tmp = nullptr;
  CUZK_CUDA_OK(cudaMalloc(&tmp, chunk * sizeof(P)));
  cudaError_t e = cudaSuccess;
  for (size_t p0 = 0; p0 < n && e == cudaSuccess; p0 += chunk) {
    const uint32_t cnt = uint32_t(std::min<size_t>(chunk, n - p0));
    e = cudaMemcpy(tmp, host + p0 * sizeof(P), cnt * sizeof(P), cudaMemcpyHostToDevice);
    if (e != cudaSuccess) break;
    msm_gpu::mark_present_kernel<D><<<ceil_div(cnt, 256u), 256>>>(tmp, cnt, m + p0);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  (void)cudaFree(tmp);
  CUZK_CUDA_OK(e);
}

// A zeroed byte per wire, freed again when |fill| throws.
template <class F>
uint8_t* presence_mask(uint32_t n, F&& fill) {
  uint8_t* m = nullptr;
  CUZK_CUDA_OK(cudaMalloc(&m, std::max<size_t>(n, 1)));
  try {
    CUZK_CUDA_OK(cudaMemset(m, 0, n));
    fill(m);
    CUZK_CUDA_OK(cudaDeviceSynchronize());
  } catch (...) {
    (void)cudaFree(m);
    throw;
  }
  return m;
}

}  // namespace

template <class C>
std::shared_ptr<key_dev_t> resident_key(const cuzk_key& key, int device, const key_placement_t& place) {
  std::lock_guard<std::mutex> lk(keys_mu);
  auto& slot = key_table()[{&key, device}];
  if (slot) return slot;
  const cuzk_key_desc& d = key.desc;
  const size_t g1 = sizeof(typename C::g1_affine_t), g2 = sizeof(typename C::g2_affine_t);
  auto kd = std::make_shared<key_dev_t>();
  kd->device = device;
  kd->place = place;
  const size_t chunk = size_t(place.chunk_points);
  size_t uploaded = 0;
  auto place_set = [&](key_set_t set, const uint8_t* src, size_t bytes) {
    if (kd->streams(set)) return static_cast<void*>(nullptr);
    uploaded += bytes;
    return upload(src, bytes);
  };
  // CUZK_TRACE_PROVE: where an upload's time goes (every step here synchronises: host clock)
  static const bool trace = env_flag("CUZK_TRACE_PROVE");
  using clock = std::chrono::steady_clock;
  const auto ms_since = [](clock::time_point a) { return std::chrono::duration<double, std::milli>(clock::now() - a).count(); };
  const auto t0 = clock::now();
  double points_ms = 0, masks_ms = 0;
  try {
    kd->a = place_set(set_a, d.points_a, size_t(d.n_vars) * g1);
    kd->b1 = place_set(set_b1, d.points_b1, size_t(d.n_vars) * g1);
    kd->b2 = place_set(set_b2, d.points_b2, size_t(d.n_vars) * g2);
    kd->c = place_set(set_c, d.points_c, (size_t(d.n_vars) - d.n_public - 1) * g1);
    kd->h = place_set(set_h, d.points_h, size_t(d.domain_size) * g1);
    points_ms = ms_since(t0);
    using D1 = gpu_t<typename C::g1>;
    using D2 = gpu_t<typename C::g2>;
    kd->a_present = presence_mask(d.n_vars, [&](uint8_t* m) { mark_present<D1>(m, d.n_vars, kd->a, d.points_a, chunk); });
    kd->b_present = presence_mask(d.n_vars, [&](uint8_t* m) {
      mark_present<D1>(m, d.n_vars, kd->b1, d.points_b1, chunk);
      mark_present<D2>(m, d.n_vars, kd->b2, d.points_b2, chunk);
    });
    masks_ms = ms_since(t0) - points_ms;
    synth_upload(key, kd->coefs, kd->streams(set_coefs) ? place.chunk_records : 0);
    if (trace)
      std::fprintf(stderr, "cuzk upload n=%u device=%d: points %.1f ms (%.0f MB) masks %.1f synthesis layout %.1f total %.1f ms\n",
                   d.n_vars, device, points_ms, uploaded / 1e6, masks_ms, ms_since(t0) - points_ms - masks_ms, ms_since(t0));
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
void gpu_key_upload(const cuzk_key& key, int device, uint32_t streamed, uint64_t chunk_points, uint64_t chunk_records) {
  require((streamed & ~uint32_t(set_all)) == 0, "cuzk_gpu_key_upload: unknown bits in streamed_sets");
  require(!(streamed & ~uint32_t(set_coefs)) || chunk_points > 0, "cuzk_gpu_key_upload: streamed points need chunk_points > 0");
  require(!(streamed & set_coefs) || chunk_records > 0, "cuzk_gpu_key_upload: streamed coefficients need chunk_records > 0");
  require(chunk_points < (uint64_t(1) << 31) && chunk_records < (uint64_t(1) << 32),
          "cuzk_gpu_key_upload: chunk_points must be below 2^31 and chunk_records below 2^32");
  gpu_use_device(device);
  (void)resident_key<C>(key, device, key_placement_t{streamed, chunk_points, chunk_records});
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
  template std::shared_ptr<key_dev_t> resident_key<C>(const cuzk_key&, int, const key_placement_t&); \
  template uint64_t gpu_key_bytes<C>(const cuzk_key&);                                            \
  template void gpu_key_upload<C>(const cuzk_key&, int, uint32_t, uint64_t, uint64_t);

CUZK_KEY_GPU_INSTANTIATE(bn254)
CUZK_KEY_GPU_INSTANTIATE(bls12_381)

}  // namespace cuzk
