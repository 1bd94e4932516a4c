// Groth16 verification, snarkjs's equation (groth16_verify.js, Groth 2016 §3.2):
//   e(−A, B)·e(cpub, γ)·e(C, δ)·e(α, β) == 1,  cpub = IC[0] + Σ publics[i]·IC[i+1],
// as one 4-pair Miller loop and one final exponentiation. Untrusted proof points must be canonical,
// on the curve, not infinity and in the r-torsion (r·P = O; skipped for G1 where the cofactor is 1).
#pragma once
#include <cstring>
#include <mutex>

#include "../util/thread_pool.hpp"
#include "pairing.hpp"

namespace cuzk {

// Loads a LEM point; false when a coordinate is not below q or the point is off its curve.
template <class PT, class A>
bool load_point(const uint8_t* b, A& out) {
  using fq = typename PT::fq_t;
  for (size_t off = 0; off < A::nbytes; off += fq::nbytes) {
    uint64_t v[fq::n];
    std::memcpy(v, b + off, fq::nbytes);
    if (!fq::lt_p(v)) return false;
  }
  out = A::load(b);
  return out.on_curve();
}

// r·P = O by double-and-add: ~255 doublings, 0.1–0.5 ms; cheap next to the pairing
template <class C, class G>
bool in_subgroup(const affine_t<G>& p) {
  using R = typename mont_params_of<typename C::fr_t>::type;
  return jacobian_t<G>::from_affine(p).mul(R::p, R::n).is_inf();
}

// IC[0] + Σ publics[i]·IC[i+1]; publics are 32-byte standard scalars. Chunks run on the pool
// (double-and-add is ~0.1 ms a point on G1): only 64+ publics use threads, since the pool runs
// one region at a time and a verify should not queue behind a prover for a handful of points.
template <class C>
typename C::g1_affine_t public_input_point(const typename C::g1_affine_t* ic, const uint8_t* publics,
                                           uint32_t n_public) {
  using jac = typename C::g1_jacobian_t;
  jac acc = jac::from_affine(ic[0]);
  std::mutex m;
  thread_pool::global().parallel_range(n_public, 64, [&](size_t b, size_t e) {
    jac part = jac::infinity();
    for (size_t i = b; i < e; i++) {
      uint64_t k[4];
      std::memcpy(k, publics + 32 * i, 32);
      if ((k[0] | k[1] | k[2] | k[3]) != 0) part = part.add(jac::from_affine(ic[i + 1]).mul(k, 4));
    }
    std::lock_guard<std::mutex> lock(m);
    acc = acc.add(part);
  });
  return acc.to_affine();
}

// |vk| = α (G1) ‖ β ‖ γ ‖ δ (G2) ‖ IC[n_public + 1] (G1); |proof| = A ‖ B ‖ C. Publics must be < r.
template <class C>
bool groth16_verify(const uint8_t* vk, const uint8_t* publics, uint32_t n_public, const uint8_t* proof) {
  using PT = typename pairing_of<C>::type;
  using g1a = typename C::g1_affine_t;
  using g2a = typename C::g2_affine_t;
  const size_t s1 = g1a::nbytes, s2 = g2a::nbytes;

  g1a a, c, alpha;
  g2a b, beta, gamma, delta;
  if (!load_point<PT>(proof, a) || !load_point<PT>(proof + s1, b) || !load_point<PT>(proof + s1 + s2, c))
    return false;
  // An honest prover outputs infinity with probability ~1/r (A and C carry the random r·δ, s·δ),
  // and e(O, ·) = 1 would drop a term from the equation: reject it (snarkjs lets the equation decide).
  if (a.is_inf() || b.is_inf() || c.is_inf()) return false;
  if (!in_subgroup<C>(b)) return false;
  if (!PT::g1_cofactor_one && (!in_subgroup<C>(a) || !in_subgroup<C>(c))) return false;

  if (!load_point<PT>(vk, alpha) || !load_point<PT>(vk + s1, beta) ||
      !load_point<PT>(vk + s1 + s2, gamma) || !load_point<PT>(vk + s1 + 2 * s2, delta))
    return false;
  std::vector<g1a> ic(n_public + 1);
  const uint8_t* ic_bytes = vk + s1 + 3 * s2;
  for (size_t i = 0; i <= n_public; i++)
    if (!load_point<PT>(ic_bytes + i * s1, ic[i])) return false;

  g1a ps[4] = {-a, public_input_point<C>(ic.data(), publics, n_public), c, alpha};
  g2a qs[4] = {b, gamma, delta, beta};
  return multi_pairing<PT>(ps, qs, 4).is_one();
}

}  // namespace cuzk
