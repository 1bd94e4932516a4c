// One Groth16 proof, exactly snarkjs's groth16_prove.js (reference §1.2): A·w, B·w on the domain from
// the section-4 records, C = A∘B, then each through iNTT, shift to the odd coset ω_2n·ω^j and NTT;
// H scalars P = A·B − C (standard form); five MSMs; randomisation with r, s. The three n-element
// Fr vectors are the only large per-proof buffers besides MSM scratch (B and C are freed before the
// MSMs). Witness and key buffers are read in place.
#pragma once
#include <chrono>
#include <algorithm>
#include <cstring>
#include <memory>

#include "../util/error.hpp"
#include "../msm/pippenger_cpu.hpp"
#include "../ntt/ntt.hpp"
#include "key.hpp"

namespace cuzk {

namespace groth16_detail {

using clock_t_ = std::chrono::steady_clock;

inline double ms_since(clock_t_::time_point& t0) {
  auto t1 = clock_t_::now();
  double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  t0 = t1;
  return ms;
}

inline void check_cancel(const volatile int32_t* cancel, const char* phase) {
  if (cancel && *cancel) fail(CUZK_E_CANCELLED, std::string("groth16 proof: cancelled before ") + phase);
}

// a[c] += v·w[s] over the records (A for m = 0, B for m = 1): v is stored as v·R^2, so the
// Montgomery product with the standard-form witness lands in Montgomery form (§0.3).
template <class F>
void scatter_coefs(const cuzk_key& key, const uint8_t* witness, F* a, F* b) {
  const coef_plan_t& plan = key.plan;
  const uint8_t* coefs = key.desc.coefs;
  thread_pool::global().parallel_for(plan.nchunks(), [&](size_t t) {
    for (uint64_t i = plan.chunk_begin[t]; i < plan.chunk_begin[t + 1]; i++) {
      const uint8_t* rec = coefs + plan.record(i) * coef_record_bytes;
      uint32_t mcs[3];
      F v, w;
      std::memcpy(mcs, rec, sizeof mcs);
      std::memcpy(v.l, rec + 12, sizeof v.l);
      std::memcpy(w.l, witness + size_t(mcs[2]) * 32, sizeof w.l);
      F& out = mcs[0] == 0 ? a[mcs[1]] : b[mcs[1]];
      out += v * w;
    }
  });
}

template <class F, class Fn>
void for_each_index(size_t n, Fn&& fn) {
  thread_pool::global().parallel_range(n, 1 << 12, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; i++) fn(i);
  });
}

// One MSM over key points used in place (CPU; the CUDA build's prover is groth16/prove_gpu.cu).
template <class G>
jacobian_t<G> msm(const uint8_t* points, const uint8_t* scalars, size_t n) {
  return msm_pippenger<G>(reinterpret_cast<const affine_t<G>*>(points), scalars, n);
}

// Step 7 of §1.2: pi_a = A + α1 + r·δ1, pi_b = B2 + β2 + s·δ2, pib1 = B1 + β1 + s·δ1,
// pi_c = C + H + s·pi_a + r·pib1 − (r·s)·δ1; written as A‖B‖C LEM affine.
template <class C>
void finish_proof(const cuzk_key_desc& d, const jacobian_t<typename C::g1> (&g1)[4],
                  const jacobian_t<typename C::g2>& b2, const uint8_t* r, const uint8_t* s, uint8_t* out) {
  using F = typename C::fr_t;
  using J1 = jacobian_t<typename C::g1>;
  using J2 = jacobian_t<typename C::g2>;
  using A1 = affine_t<typename C::g1>;
  using A2 = affine_t<typename C::g2>;
  uint64_t rk[4], sk[4], rsk[4];
  std::memcpy(rk, r, 32);
  std::memcpy(sk, s, 32);
  (F::load_std(r) * F::load_std(s)).to_std(rsk);
  J1 delta1 = J1::from_affine(A1::load(d.delta1));
  J1 pi_a = g1[0].add(A1::load(d.alpha1)).add(delta1.mul(rk, 4));
  J2 pi_b = b2.add(A2::load(d.beta2)).add(J2::from_affine(A2::load(d.delta2)).mul(sk, 4));
  J1 pib1 = g1[1].add(A1::load(d.beta1)).add(delta1.mul(sk, 4));
  J1 pi_c = g1[2].add(g1[3]).add(pi_a.mul(sk, 4)).add(pib1.mul(rk, 4)).add(-delta1.mul(rsk, 4));
  pi_a.to_affine().store(out);
  pi_b.to_affine().store(out + A1::nbytes);
  pi_c.to_affine().store(out + A1::nbytes + A2::nbytes);
}

}  // namespace groth16_detail

// Phase 1 (CPU threads): a = A·w, b = B·w over the records, Montgomery form. |witness|: n_vars
// 32-byte standard scalars. |a|, |b|: domain_size elements each (the caller's, pinned for a GPU).
template <class C>
void groth16_synthesize(const cuzk_key& key, const uint8_t* witness, typename C::fr_t* a, typename C::fr_t* b,
                        const volatile int32_t* cancel, prove_timings_t& tm) {
  using namespace groth16_detail;
  using F = typename C::fr_t;
  auto t0 = clock_t_::now();
  check_cancel(cancel, "synthesis");
  for_each_index<F>(key.desc.domain_size, [&](size_t i) { a[i] = F::zero(); b[i] = F::zero(); });
  scatter_coefs(key, witness, a, b);
  tm.abc = ms_since(t0);
}

// Phase 2 on the CPU core: C = A∘B, the six transforms, H, five MSMs, randomisation. |a|, |b| as
// phase 1 left them; they are scratch afterwards (H is written over |a|). |r|, |s|: 32-byte standard
// scalars < r.
template <class C>
void groth16_prove_ab(const cuzk_key& key, const uint8_t* witness, typename C::fr_t* pa, typename C::fr_t* pb,
                      const uint8_t* r, const uint8_t* s, uint8_t* proof_out, const volatile int32_t* cancel,
                      prove_timings_t& tm) {
  using namespace groth16_detail;
  using F = typename C::fr_t;
  using G1 = typename C::g1;
  using G2 = typename C::g2;
  const cuzk_key_desc& d = key.desc;
  const size_t n = d.domain_size;
  const uint32_t lg_n = uint32_t(__builtin_ctzll(n));
  auto t_start = clock_t_::now(), t0 = t_start;
  tm.device = -1;

  check_cancel(cancel, "ntt");
  std::unique_ptr<F[]> c(new F[n]);
  F* pc = c.get();
  for_each_index<F>(n, [&](size_t i) { pc[i] = pa[i] * pb[i]; });
  F* vecs[3] = {pa, pb, pc};
  ntt_to_coset(vecs, 3, lg_n);
  // P = A·B − C on the coset, from Montgomery to standard form: the H MSM scalars, written over A.
  for_each_index<F>(n, [&](size_t i) { (pa[i] * pb[i] - pc[i]).to_std(pa[i].l); });
  c.reset();
  tm.ntt = ms_since(t0);

  // The four witness MSMs share one parallel region (msm_run_jobs: every thread busy however
  // their windows divide), each planned for its share of the threads; H runs alone after them, so
  // that only the witness MSMs' digits are held at once. Their times are reported together in
  // msm_a (msm_b1, msm_b2, msm_c: 0).
  jacobian_t<G1> g1[4];
  jacobian_t<G2> b2;
  check_cancel(cancel, "msm_a");
  {
    size_t nt = thread_pool::global().size();
    auto share = [&](double w) { return std::max<size_t>(1, size_t(double(nt) * w + 0.5)); };
    size_t n_priv = size_t(d.n_vars) - d.n_public - 1;
    std::unique_ptr<msm_detail::msm_job> jobs[4] = {
        msm_prepare<G2>(reinterpret_cast<const affine_t<G2>*>(d.points_b2), witness, d.n_vars, &b2, share(0.4)),
        msm_prepare<G1>(reinterpret_cast<const affine_t<G1>*>(d.points_a), witness, d.n_vars, &g1[0], share(0.2)),
        msm_prepare<G1>(reinterpret_cast<const affine_t<G1>*>(d.points_b1), witness, d.n_vars, &g1[1], share(0.2)),
        msm_prepare<G1>(reinterpret_cast<const affine_t<G1>*>(d.points_c), witness + size_t(d.n_public + 1) * 32, n_priv, &g1[2], share(0.2))};
    msm_detail::msm_job* raw[4] = {jobs[0].get(), jobs[1].get(), jobs[2].get(), jobs[3].get()};
    msm_detail::msm_run_jobs(raw, 4);
  }
  tm.msm_a = ms_since(t0);
  tm.msm_b1 = tm.msm_b2 = tm.msm_c = 0;
  check_cancel(cancel, "msm_h");
  g1[3] = msm<G1>(d.points_h, reinterpret_cast<const uint8_t*>(pa), n);
  tm.msm_h = ms_since(t0);

  finish_proof<C>(d, g1, b2, r, s, proof_out);
  tm.finish = ms_since(t0);
  tm.total = ms_since(t_start);
}

}  // namespace cuzk
