// The GPU NTT's pass kernel (ntt.cuh runs it): Gentleman-Sande (DIF) stages in shared memory, up to
// 11 per pass, so a 2^24 transform reads and writes memory 3 times, not 24. Its variants
// (gpu_tuning_t::ntt, CUZK_GPU_NTT) differ only in the butterfly's multiply, the register budget and
// which butterflies a warp takes in the small stages; every one computes the same field elements.
#pragma once
#include <mutex>

#include "../curve/dev.cuh"
#include "../util/gpu.hpp"
#include "../util/gpu_tuning.hpp"
#include "mul_wide.hpp"

namespace cuzk {
namespace ntt_gpu {

// a·b·R^-1 mod p: mont.cuh's PTX multiply, or ntt/mul_wide.hpp's (same result).
template <bool WIDE, class P>
__device__ __forceinline__ dev::dmont_t<P> mul(const dev::dmont_t<P>& a, const dev::dmont_t<P>& b) {
  using DF = dev::dmont_t<P>;
  if constexpr (!WIDE) {
    return DF::mul(a, b);
  } else {
    uint32_t p[DF::N];
#pragma unroll
    for (size_t i = 0; i < DF::N; i++) p[i] = P::mod(i);
    DF r;
    mont_mul_wide<DF::N>(r.l, a.l, b.l, p, DF::M0);
    return r;
  }
}

template <class P>
__device__ __forceinline__ bool below_p(const dev::dmont_t<P>& a) {
  uint32_t p[dev::dmont_t<P>::N];
#pragma unroll
  for (size_t i = 0; i < dev::dmont_t<P>::N; i++) p[i] = P::mod(i);
  return below_modulus<dev::dmont_t<P>::N>(a.l, p);
}

// base^j = lo[j mod 2^lo_bits] · hi[j >> lo_bits], two small device tables (ntt.cuh's pow tables).
template <class DF>
struct pow_ref_t {
  const DF *lo = nullptr, *hi = nullptr;
  uint32_t lo_bits = 0;
};
template <bool WIDE, class DF>
__device__ __forceinline__ DF pow_at(const pow_ref_t<DF>& t, uint32_t j) {
  return mul<WIDE>(t.lo[j & ((1u << t.lo_bits) - 1)], t.hi[j >> t.lo_bits]);
}

constexpr uint32_t pass_threads = 256;

// Shared-memory slot of tile element e: one spare slot per 8, so the threads of a warp in the low
// stages (pairs 1, 2, 4 elements apart, 32-byte elements) spread over the banks.
__device__ __forceinline__ uint32_t slot(uint32_t e) { return e + (e >> 3); }
__host__ __device__ constexpr size_t pass_slots(size_t tile) { return tile + tile / 8; }

// The first pass's loads: each element times g^index (the forward coset; n^-1·g^index for the
// proof's iNTT -> coset NTT, whose iNTT then stores unscaled), and where |bad| is set a check that
// each is below p (cuzk_ntt's argument check, on the device: |bad| is set to 1 when one is not).
template <class DF>
struct load_prep_t {
  pow_ref_t<DF> coset;
  uint32_t* bad = nullptr;
};

// The last pass's stores (the transform's finish, so no separate permutation pass reads and writes
// the vector again): element i goes to out[rev(i)] (natural order), times |c| (mode 1) or the tables
// at rev(i) (mode 2: n^-1·g^-r for the inverse coset, n^-1 folded into hi). Null |out|: in place.
// No Montgomery conversion anywhere: every step is linear with Montgomery-form constants (twiddles,
// scales), so standard-form elements in give standard-form elements out, bit for bit the same.
template <class DF>
struct store_prep_t {
  DF* out = nullptr;
  uint32_t lg_n = 0;
  int mode = 0;
  DF c;
  pow_ref_t<DF> scale;
};

// Stages of half-size 2^(lo+k-1) .. 2^lo. Their butterflies pair elements that differ only in index
// bits lo..lo+k-1, so the 2^k elements sharing the other bits are one independent group; a block takes
// 2^lg_t groups with consecutive low bits (a tile of 2^k rows × 2^lg_t columns, so each row of the tile
// is 2^lg_t adjacent elements in memory), runs the k stages in shared memory, and writes the tile back,
// or (the last pass, |fin|.out) to the elements' final places. One butterfly per thread per stage:
// running two or three stages per round trip in registers (4 or 8 elements a thread) measured 25% and
// 140% slower at 2^24 (176-182 registers, too few warps for the multiply chains; bench/RESULTS.md).
// 4 blocks per SM (<= 64 registers; both multiplies fit, no spills): 6.38 against 7.39 ms at 2^24
// with the separate permutation pass. |uniform| (one-column tiles only): in a stage with at least 32 groups a warp's threads take
// the same j of 32 groups instead of consecutive j, so the warps of j = 0 skip their multiply
// (a warp with some j = 0 lanes pays it all the same).
template <class DF, bool WIDE>
__global__ void __launch_bounds__(pass_threads, 4)
    dif_pass_kernel(DF* a, uint32_t lo, uint32_t k, uint32_t lg_t, const DF* tw, uint32_t tw_lg, bool inverse,
                    bool uniform, load_prep_t<DF> prep, store_prep_t<DF> fin) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  DF* x = reinterpret_cast<DF*>(smem_raw);
  const uint32_t cols = 1u << lg_t, tile = cols << k;
  const uint32_t col_groups = (1u << lo) >> lg_t;
  const size_t g_lo = blockIdx.x % col_groups, g_hi = blockIdx.x / col_groups;
  const size_t base = (g_hi << (lo + k)) | (g_lo << lg_t);
  for (uint32_t e = threadIdx.x; e < tile; e += blockDim.x) {
    size_t addr = base + (size_t(e >> lg_t) << lo) + (e & (cols - 1));
    DF v = a[addr];
    if (prep.bad && !below_p(v)) atomicOr(prep.bad, 1u);
    if (prep.coset.lo) v = mul<WIDE>(v, pow_at<WIDE>(prep.coset, uint32_t(addr)));
    x[slot(e)] = v;
  }
  __syncthreads();
  for (uint32_t s = k; s-- > 0;) {
    const uint32_t m = 1u << s, lgm = lo + s, shift = tw_lg - lgm - 1;
    const uint32_t lg_groups = k - 1 - s;  // groups of this stage in the tile (one column)
    const bool by_j = uniform && lg_t == 0 && lg_groups >= 5;
    for (uint32_t t = threadIdx.x; t < tile / 2; t += blockDim.x) {
      uint32_t col = t & (cols - 1), bt = t >> lg_t, j, r;
      if (by_j) {
        j = bt >> lg_groups;
        r = ((bt & ((1u << lg_groups) - 1)) << (s + 1)) | j;
      } else {
        j = bt & (m - 1);
        r = ((bt >> s) << (s + 1)) | j;
      }
      uint32_t iu = slot((r << lg_t) | col), iv = slot(((r + m) << lg_t) | col);
      DF u = x[iu], v = x[iv];
      uint32_t jg = (j << lo) | uint32_t((g_lo << lg_t) | col);  // index within the global stage
      DF sum = u + v, dif;
      // inverse stages: (u - v)·ω^-j = (v - u)·ω^(m-j), as ω_2m^m = -1
      if (jg == 0) {
        dif = u - v;
      } else {
        DF w = tw[size_t(inverse ? (1u << lgm) - jg : jg) << shift];
        dif = mul<WIDE>(inverse ? v - u : u - v, w);
      }
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
    if (fin.mode == 1) v = mul<WIDE>(v, fin.c);
    else if (fin.mode == 2) v = mul<WIDE>(v, pow_at<WIDE>(fin.scale, r));
    fin.out[r] = v;
  }
}

template <class DF, bool WIDE>
void launch_pass(unsigned blocks, unsigned threads, size_t smem, cudaStream_t st, DF* a, uint32_t lo, uint32_t k,
                 uint32_t lg_t, const DF* tw, uint32_t tw_lg, bool inverse, bool uniform, const load_prep_t<DF>& prep,
                 const store_prep_t<DF>& fin) {
  constexpr uint32_t max_smem = uint32_t(pass_slots(size_t(1) << 11) * sizeof(DF));
  static_assert(max_smem <= 227 * 1024, "an 11-stage tile must fit in shared memory");
  static std::once_flag once[64];  // the attribute is per device
  int device = 0;
  CUZK_CUDA_OK(cudaGetDevice(&device));
  std::call_once(once[device & 63], [] {
    CUZK_CUDA_OK(cudaFuncSetAttribute(dif_pass_kernel<DF, WIDE>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      max_smem));
  });
  dif_pass_kernel<DF, WIDE><<<blocks, threads, smem, st>>>(a, lo, k, lg_t, tw, tw_lg, inverse, uniform, prep, fin);
  CUZK_CUDA_LAUNCHED();
}

// The passes of a 2^lg_n transform: as few as possible (<= 10 stages, 2 columns; the last pass, over
// contiguous elements, <= 11 stages, 1 column), with the stages spread evenly; the first loads
// through |prep|, the last stores through |fin|.
template <class DF>
void dif_passes(DF* a, uint32_t lg_n, const DF* tw, uint32_t tw_lg, bool inverse, const load_prep_t<DF>& prep,
                const store_prep_t<DF>& fin, cudaStream_t st, const ntt_variant_t& var) {
  uint32_t npass = lg_n <= 11 ? 1 : 1 + (lg_n - 11 + 9) / 10;
  uint32_t base = lg_n / npass, rem = lg_n % npass, done = 0;  // stages already run, from the top
  for (uint32_t p = 0; p < npass; p++) {
    uint32_t k = base + (p + 1 == npass ? (rem > 0 ? 1 : 0) : (p + 1 < rem ? 1 : 0));
    uint32_t lo = lg_n - done - k, lg_t = lo == 0 ? 0 : 1;
    size_t tile = size_t(1) << (k + lg_t);
    unsigned blocks = unsigned((size_t(1) << lg_n) / tile);
    unsigned threads = unsigned(std::min<size_t>(pass_threads, std::max<size_t>(tile / 2, 1)));
    size_t smem = pass_slots(tile) * sizeof(DF);
    const load_prep_t<DF> pp = p == 0 ? prep : load_prep_t<DF>{};
    const store_prep_t<DF> fp = p + 1 == npass ? fin : store_prep_t<DF>{};
    if (var.wide) launch_pass<DF, true>(blocks, threads, smem, st, a, lo, k, lg_t, tw, tw_lg, inverse, var.uniform, pp, fp);
    else launch_pass<DF, false>(blocks, threads, smem, st, a, lo, k, lg_t, tw, tw_lg, inverse, var.uniform, pp, fp);
    done += k;
  }
}

}  // namespace ntt_gpu
}  // namespace cuzk
