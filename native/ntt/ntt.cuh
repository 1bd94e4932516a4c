// GPU NTT over Fr, the transform of ntt/ntt.hpp (ffjavascript's Fr.fft / Fr.ifft, cuzk.h flags):
// Gentleman-Sande (DIF) stages, natural order in and bit-reversed out; the last pass stores each
// element at its natural-order place and applies the inverse's 1/n and coset powers (and Montgomery
// conversion) on the way. The stages run in passes of up to 10 in shared memory (dif_pass_kernel): a
// pass over stages lo..lo+k-1 touches each element once, so a 2^24 transform reads and writes memory 3
// times, not 24. The forward coset scaling and the Montgomery conversion ride on the first pass's
// loads. Twiddles come from one cached table T[k] = ω_N^k, k < N/2, of the largest size seen: stage m
// reads ω_2m^j = T[j·N/2m], and inverse stages use ω_2m^-j = -ω_2m^(m-j). Powers g^j (coset) are two
// small tables multiplied, cached per device and size like the twiddles.
#pragma once
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "../curve/dev.cuh"
#include "../util/gpu.hpp"
#include "roots.hpp"

namespace cuzk {
namespace ntt_gpu {


// base^j for j < 2^lg as lo[j & (2^lo_bits - 1)] · hi[j >> lo_bits] (host tables, ~2·sqrt(n) mults).
template <class F>
struct pow_tables_t {
  std::vector<F> lo, hi;
  uint32_t lo_bits = 0;
  pow_tables_t(const F& base, uint32_t lg, const F& hi_scale) {
    lo_bits = (lg + 1) / 2;
    lo.resize(size_t(1) << lo_bits);
    hi.resize(size_t(1) << (lg - lo_bits));
    F x = F::one();
    for (auto& v : lo) { v = x; x = x * base; }
    F step = x;  // base^(2^lo_bits)
    x = hi_scale;
    for (auto& v : hi) { v = x; x = x * step; }
  }
};

template <class DF>
__device__ __forceinline__ DF pow_at(const DF* lo, const DF* hi, uint32_t lo_bits, uint32_t j) {
  return lo[j & ((1u << lo_bits) - 1)] * hi[j >> lo_bits];
}

template <class DF>
__global__ void pow_table_kernel(DF* out, size_t count, const DF* lo, const DF* hi, uint32_t lo_bits) {
  size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < count) out[j] = pow_at(lo, hi, lo_bits, uint32_t(j));
}

constexpr uint32_t pass_threads = 256;

// Shared-memory slot of tile element e: one spare slot per 8, so the threads of a warp in the low
// stages (pairs 1, 2, 4 elements apart, 32-byte elements) spread over the banks.
__device__ __forceinline__ uint32_t slot(uint32_t e) { return e + (e >> 3); }
__host__ __device__ constexpr size_t pass_slots(size_t tile) { return tile + tile / 8; }

// Optional work on a pass's loads (the first pass only): to Montgomery form, times g^index (coset).
template <class DF>
struct load_prep_t {
  bool to_mont = false;
  const DF *lo = nullptr, *hi = nullptr;
  uint32_t lo_bits = 0;
};

// The last pass's stores (the transform's finish, so no separate permutation pass reads and writes
// the vector again): element i goes to out[rev(i)] (natural order), times |c| (mode 1) or the tables
// at rev(i) (mode 2: n^-1·g^-r for the inverse coset, n^-1 folded into hi), then from_mont if asked.
// Null |out|: the pass writes back in place.
template <class DF>
struct store_prep_t {
  DF* out = nullptr;
  uint32_t lg_n = 0;
  int mode = 0;
  DF c;
  const DF *lo = nullptr, *hi = nullptr;
  uint32_t lo_bits = 0;
  bool from_mont = false;
};

// Stages of half-size 2^(lo+k-1) .. 2^lo. Their butterflies pair elements that differ only in index
// bits lo..lo+k-1, so the 2^k elements sharing the other bits are one independent group; a block takes
// 2^lg_t groups with consecutive low bits (a tile of 2^k rows × 2^lg_t columns, so each row of the tile
// is 2^lg_t adjacent elements in memory), runs the k stages in shared memory, and writes the tile back,
// or (the last pass, |fin|.out) to the elements' final places. One butterfly per thread per stage:
// running two or three stages per round trip in registers (4 or 8 elements a thread) measured 25% and
// 140% slower at 2^24 (176-182 registers, too few warps for the multiply chains; bench/RESULTS.md).
// 4 blocks per SM (<= 64 registers): 6.38 against 7.39 ms at 2^24 with the separate permutation pass.
template <class DF>
__global__ void __launch_bounds__(pass_threads, 4) dif_pass_kernel(DF* a, uint32_t lo, uint32_t k, uint32_t lg_t,
                                                                   const DF* tw, uint32_t tw_lg, bool inverse,
                                                                   load_prep_t<DF> prep, store_prep_t<DF> fin) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  DF* x = reinterpret_cast<DF*>(smem_raw);
  const uint32_t cols = 1u << lg_t, tile = cols << k;
  const uint32_t col_groups = (1u << lo) >> lg_t;
  const size_t g_lo = blockIdx.x % col_groups, g_hi = blockIdx.x / col_groups;
  const size_t base = (g_hi << (lo + k)) | (g_lo << lg_t);
  for (uint32_t e = threadIdx.x; e < tile; e += blockDim.x) {
    size_t addr = base + (size_t(e >> lg_t) << lo) + (e & (cols - 1));
    DF v = a[addr];
    if (prep.to_mont) v = v.to_mont();
    if (prep.lo) v = v * pow_at(prep.lo, prep.hi, prep.lo_bits, uint32_t(addr));
    x[slot(e)] = v;
  }
  __syncthreads();
  for (uint32_t s = k; s-- > 0;) {
    const uint32_t m = 1u << s, lgm = lo + s, shift = tw_lg - lgm - 1;
    for (uint32_t t = threadIdx.x; t < tile / 2; t += blockDim.x) {
      uint32_t col = t & (cols - 1), bt = t >> lg_t;
      uint32_t j = bt & (m - 1), r = ((bt >> s) << (s + 1)) | j;
      uint32_t iu = slot((r << lg_t) | col), iv = slot(((r + m) << lg_t) | col);
      DF u = x[iu], v = x[iv];
      uint32_t jg = (j << lo) | uint32_t((g_lo << lg_t) | col);  // index within the global stage
      bool one = jg == 0;
      DF w;
      if (!one) w = tw[size_t(inverse ? (1u << lgm) - jg : jg) << shift];
      DF sum = u + v, dif;
      // inverse stages: (u - v)·ω^-j = (v - u)·ω^(m-j), as ω_2m^m = -1
      if (one) dif = u - v;
      else dif = (inverse ? v - u : u - v) * w;
      x[iu] = sum;
      x[iv] = dif;
    }
    __syncthreads();
  }
  for (uint32_t e = threadIdx.x; e < tile; e += blockDim.x) {
    size_t addr = base + (size_t(e >> lg_t) << lo) + (e & (cols - 1));
    DF v = x[slot(e)];
    if (!fin.out) {
      a[addr] = v;
      continue;
    }
    uint32_t r = fin.lg_n ? __brev(uint32_t(addr)) >> (32 - fin.lg_n) : 0;
    if (fin.mode == 1) v = v * fin.c;
    else if (fin.mode == 2) v = v * pow_at(fin.lo, fin.hi, fin.lo_bits, r);
    if (fin.from_mont) v = v.from_mont();
    fin.out[r] = v;
  }
}

// The passes of a 2^lg_n transform: as few as possible (<= 10 stages, 2 columns; the last pass, over
// contiguous elements, <= 11 stages, 1 column), with the stages spread evenly; the last stores
// through |fin|.
template <class DF>
void dif_passes(DF* a, uint32_t lg_n, const DF* tw, uint32_t tw_lg, bool inverse, load_prep_t<DF> prep,
                const store_prep_t<DF>& fin, cudaStream_t st) {
  constexpr uint32_t max_smem = uint32_t(pass_slots(size_t(1) << 11) * sizeof(DF));
  static_assert(max_smem <= 227 * 1024, "an 11-stage tile must fit in shared memory");
  static bool attr_set[64] = {};  // the attribute is per device; setting it twice is harmless
  int device = 0;
  CUZK_CUDA_OK(cudaGetDevice(&device));
  if (!attr_set[device & 63]) {
    CUZK_CUDA_OK(cudaFuncSetAttribute(dif_pass_kernel<DF>, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));
    attr_set[device & 63] = true;
  }
  uint32_t npass = lg_n <= 11 ? 1 : 1 + (lg_n - 11 + 9) / 10;
  uint32_t base = lg_n / npass, rem = lg_n % npass, done = 0;  // stages already run, from the top
  for (uint32_t p = 0; p < npass; p++) {
    uint32_t k = base + (p + 1 == npass ? (rem > 0 ? 1 : 0) : (p + 1 < rem ? 1 : 0));
    uint32_t lo = lg_n - done - k, lg_t = lo == 0 ? 0 : 1;
    size_t tile = size_t(1) << (k + lg_t);
    unsigned blocks = unsigned((size_t(1) << lg_n) / tile);
    unsigned threads = unsigned(std::min<size_t>(pass_threads, std::max<size_t>(tile / 2, 1)));
    dif_pass_kernel<DF><<<blocks, threads, pass_slots(tile) * sizeof(DF), st>>>(
        a, lo, k, lg_t, tw, tw_lg, inverse, p == 0 ? prep : load_prep_t<DF>{},
        p + 1 == npass ? fin : store_prep_t<DF>{});
    CUZK_CUDA_LAUNCHED();
    done += k;
  }
}

// The cached twiddle table of F on the current device for transforms up to 2^lg (one per device:
// a pointer is valid only on the device it was allocated on; never shrinks; older tables stay
// alive for calls still using them).
template <class F>
const gpu_t<F>* twiddles(uint32_t lg, uint32_t& tw_lg) {
  using DF = gpu_t<F>;
  constexpr int max_devices = 64;
  static std::mutex mu;
  static const DF* tables[max_devices] = {};
  static uint32_t tables_lg[max_devices] = {};
  int device = 0;
  CUZK_CUDA_OK(cudaGetDevice(&device));
  if (device < 0 || device >= max_devices) fail(CUZK_E_NO_DEVICE, "GPU " + std::to_string(device) + ": at most 64 GPUs are supported");
  const DF*& table = tables[device];
  uint32_t& table_lg = tables_lg[device];
  std::lock_guard<std::mutex> lk(mu);
  if (!table || table_lg < lg) {
    uint32_t want = std::max<uint32_t>(lg, 12);
    pow_tables_t<F> pt(ntt_roots<F>::root(want), want - 1, F::one());
    gpu_stream_t st;
    size_t count = size_t(1) << (want - 1);
    DF *d, *d_lo, *d_hi;
    CUZK_CUDA_OK(cudaMalloc(&d, count * sizeof(DF)));
    CUZK_CUDA_OK(cudaMallocAsync(&d_lo, pt.lo.size() * sizeof(DF), st));
    CUZK_CUDA_OK(cudaMallocAsync(&d_hi, pt.hi.size() * sizeof(DF), st));
    CUZK_CUDA_OK(cudaMemcpyAsync(d_lo, pt.lo.data(), pt.lo.size() * sizeof(DF), cudaMemcpyHostToDevice, st));
    CUZK_CUDA_OK(cudaMemcpyAsync(d_hi, pt.hi.data(), pt.hi.size() * sizeof(DF), cudaMemcpyHostToDevice, st));
    pow_table_kernel<DF><<<ceil_div(count, 256), 256, 0, st>>>(d, count, d_lo, d_hi, pt.lo_bits);
    CUZK_CUDA_LAUNCHED();
    CUZK_CUDA_OK(cudaFreeAsync(d_lo, st));
    CUZK_CUDA_OK(cudaFreeAsync(d_hi, st));
    st.sync();
    table = d;
    table_lg = want;
  }
  tw_lg = table_lg;
  return table;
}

template <class DF>
struct coset_table_t {
  const DF *lo = nullptr, *hi = nullptr;
  uint32_t lo_bits = 0;
};

// g^j (forward coset) or n^-1·g^-j (inverse coset), j < 2^lg, as two device tables per device and
// size, made once (a few KiB each) and kept for the process: no upload or host wait per transform.
template <class F>
const coset_table_t<gpu_t<F>>& coset_tables(uint32_t lg, bool inverse) {
  using DF = gpu_t<F>;
  static std::mutex mu;
  static std::map<std::tuple<int, uint32_t, bool>, coset_table_t<DF>> tables;
  int device = 0;
  CUZK_CUDA_OK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lk(mu);
  auto it = tables.find({device, lg, inverse});
  if (it != tables.end()) return it->second;
  F g = ntt_roots<F>::coset_gen(lg);
  pow_tables_t<F> pt = inverse ? pow_tables_t<F>(g.inv(), lg, F::from_u64(uint64_t(1) << lg).inv())
                               : pow_tables_t<F>(g, lg, F::one());
  coset_table_t<DF> ct;
  DF *d_lo, *d_hi;
  CUZK_CUDA_OK(cudaMalloc(&d_lo, pt.lo.size() * sizeof(DF)));
  CUZK_CUDA_OK(cudaMalloc(&d_hi, pt.hi.size() * sizeof(DF)));
  CUZK_CUDA_OK(cudaMemcpy(d_lo, pt.lo.data(), pt.lo.size() * sizeof(DF), cudaMemcpyHostToDevice));
  CUZK_CUDA_OK(cudaMemcpy(d_hi, pt.hi.data(), pt.hi.size() * sizeof(DF), cudaMemcpyHostToDevice));
  ct.lo = d_lo;
  ct.hi = d_hi;
  ct.lo_bits = pt.lo_bits;
  return tables.emplace(std::make_tuple(device, lg, inverse), ct).first->second;
}

}  // namespace ntt_gpu

// The cuzk_ntt transform on the device: reads d_in (overwritten as scratch), writes d_out (must not
// alias d_in). |std_io|: elements are standard form in and out (else Montgomery). Queued on |st|.
template <class F>
void ntt_device(F* d_in, F* d_out, uint32_t lg_n, bool inverse, bool coset, bool std_io, cudaStream_t st) {
  using namespace ntt_gpu;
  using DF = gpu_t<F>;
  DF* a = reinterpret_cast<DF*>(d_in);
  size_t n = size_t(1) << lg_n;
  uint32_t tw_lg = 0;
  const DF* tw = twiddles<F>(lg_n, tw_lg);
  load_prep_t<DF> prep;
  prep.to_mont = std_io;
  if (coset && !inverse) {
    const coset_table_t<DF>& ct = coset_tables<F>(lg_n, false);
    prep.lo = ct.lo;
    prep.hi = ct.hi;
    prep.lo_bits = ct.lo_bits;
  }
  store_prep_t<DF> fin;
  fin.out = reinterpret_cast<DF*>(d_out);
  fin.lg_n = lg_n;
  fin.from_mont = std_io;
  if (inverse) {
    if (coset) {
      const coset_table_t<DF>& ct = coset_tables<F>(lg_n, true);
      fin.lo = ct.lo;
      fin.hi = ct.hi;
      fin.lo_bits = ct.lo_bits;
      fin.mode = 2;
    } else {
      F c = F::from_u64(n).inv();
      std::memcpy(&fin.c, &c, sizeof fin.c);
      fin.mode = 1;
    }
  }
  dif_passes<DF>(a, lg_n, tw, tw_lg, inverse, prep, fin, st);
}

// In place on host memory (standard form in and out): upload, ntt_device, download.
template <class F>
void ntt_gpu_host(F* a, uint32_t lg_n, bool inverse, bool coset) {
  size_t bytes = sizeof(F) << lg_n;
  gpu_stream_t st;
  dev_arena_t ar(st);
  F *d_in = ar.alloc<F>(size_t(1) << lg_n), *d_out = ar.alloc<F>(size_t(1) << lg_n);
  CUZK_CUDA_OK(cudaMemcpyAsync(d_in, a, bytes, cudaMemcpyHostToDevice, st));
  ntt_device<F>(d_in, d_out, lg_n, inverse, coset, true, st);
  CUZK_CUDA_OK(cudaMemcpyAsync(a, d_out, bytes, cudaMemcpyDeviceToHost, st));
  st.sync();
}

}  // namespace cuzk

#define CUZK_NTT_GPU_EXTERN(F)                                                                 \
  extern template void ntt_device<F>(F*, F*, uint32_t, bool, bool, bool, cudaStream_t); \
  extern template void ntt_gpu_host<F>(F*, uint32_t, bool, bool);
namespace cuzk {
CUZK_NTT_GPU_EXTERN(bn254_fr_t)
CUZK_NTT_GPU_EXTERN(bls12_381_fr_t)
}  // namespace cuzk
#undef CUZK_NTT_GPU_EXTERN
