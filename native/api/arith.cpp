// Element-wise field and curve arithmetic over byte arrays (cuzk_field_op, cuzk_curve_op): the
// entry points that tests check against BigInt references and benchmarks time. Every input element
// is range-checked (< the modulus) before any work, so a bad element fails the whole call.
#include <cstring>

#include "api/dispatch.hpp"
#include "curve/xyzz.hpp"
#include "util/thread_pool.hpp"

namespace {
using namespace cuzk;

constexpr size_t grain = 256;

// |count| elements per record of |stride| bytes; raw bytes (standard or Montgomery) must be < p.
template <class F>
void check_elements(const uint8_t* p, uint64_t n, size_t stride, size_t count, const char* what) {
  for (uint64_t i = 0; i < n; i++)
    for (size_t j = 0; j < count; j++)
      if (!is_canonical(F::load(p + i * stride + j * F::nbytes)))
        fail(CUZK_E_INVALID_ARG, std::string(what) + "[" + std::to_string(i) + "] is not below the modulus");
}

template <class F>
void field_op(int32_t op, const uint8_t* a, const uint8_t* b, uint8_t* out, uint64_t n) {
  constexpr size_t nb = F::nbytes;
  require(op >= CUZK_FOP_ADD && op <= CUZK_FOP_FROM_MONT, "cuzk_field_op: unknown opcode");
  bool binary = op == CUZK_FOP_ADD || op == CUZK_FOP_SUB || op == CUZK_FOP_MUL;
  require(!binary || n == 0 || b != nullptr, "cuzk_field_op: b is NULL for a binary op");
  check_elements<F>(a, n, nb, 1, "cuzk_field_op: a");
  if (binary) check_elements<F>(b, n, nb, 1, "cuzk_field_op: b");
  thread_pool::global().parallel_range(n, grain, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; i++) {
      const uint8_t* ai = a + i * nb;
      uint8_t* oi = out + i * nb;
      if (op == CUZK_FOP_TO_MONT) { F::load_std(ai).store(oi); continue; }
      if (op == CUZK_FOP_FROM_MONT) { F::load(ai).store_std(oi); continue; }
      F x = F::load_std(ai), r;
      switch (op) {
        case CUZK_FOP_ADD: r = x + F::load_std(b + i * nb); break;
        case CUZK_FOP_SUB: r = x - F::load_std(b + i * nb); break;
        case CUZK_FOP_MUL: r = x * F::load_std(b + i * nb); break;
        case CUZK_FOP_SQR: r = x.sqr(); break;
        case CUZK_FOP_NEG: r = -x; break;
        default: r = x.inv(); break;  // CUZK_FOP_INV, inv(0) = 0
      }
      r.store_std(oi);
    }
  });
}

// One out-of-line function per operation: the point formulas inline every field operation, and one
// function holding all of them for four groups took gcc minutes to compile.
template <class G>
__attribute__((noinline)) affine_t<G> point_add(const affine_t<G>& p, const affine_t<G>& q) {
  return jacobian_t<G>::from_affine(p).add(q).to_affine();  // madd-2007-bl
}
template <class G>
__attribute__((noinline)) affine_t<G> point_dbl(const affine_t<G>& p) {
  return jacobian_t<G>::from_affine(p).dbl().to_affine();  // dbl-2009-l
}
// Left-to-right double-and-add on XYZZ (not constant time: test and dev use only).
template <class G>
__attribute__((noinline)) affine_t<G> point_mul(const affine_t<G>& p, const uint8_t* scalar) {
  uint64_t k[4];
  std::memcpy(k, scalar, sizeof k);
  xyzz_t<G> r = xyzz_t<G>::infinity();
  for (size_t i = 4; i-- > 0;)
    for (int b = 63; b >= 0; b--) {
      r = r.dbl();
      if ((k[i] >> b) & 1) r.add(p);
    }
  return r.to_affine();
}

template <class G>
affine_t<G> curve_apply(int32_t op, const affine_t<G>& p, const uint8_t* bi) {
  switch (op) {
    case CUZK_COP_ADD: return point_add<G>(p, affine_t<G>::load(bi));
    case CUZK_COP_DBL: return point_dbl<G>(p);
    case CUZK_COP_NEG: return -p;
    default: return point_mul<G>(p, bi);  // CUZK_COP_MUL
  }
}

template <class G>
void curve_op(int32_t op, const uint8_t* a, const uint8_t* b, uint8_t* out, uint64_t n) {
  using F = typename G::field_t;
  constexpr size_t pb = affine_t<G>::nbytes;
  require(op >= CUZK_COP_ADD && op <= CUZK_COP_ON_CURVE, "cuzk_curve_op: unknown opcode");
  require((op != CUZK_COP_ADD && op != CUZK_COP_MUL) || n == 0 || b != nullptr, "cuzk_curve_op: b is NULL for a binary op");
  check_elements<F>(a, n, pb, 2, "cuzk_curve_op: a");
  if (op == CUZK_COP_ADD) check_elements<F>(b, n, pb, 2, "cuzk_curve_op: b");
  size_t bstride = op == CUZK_COP_MUL ? 32 : pb;
  thread_pool::global().parallel_range(n, grain, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; i++) {
      affine_t<G> p = affine_t<G>::load(a + i * pb);
      if (op == CUZK_COP_ON_CURVE) { out[i] = p.on_curve() ? 1 : 0; continue; }
      curve_apply<G>(op, p, b ? b + i * bstride : nullptr).store(out + i * pb);
    }
  });
}

}  // namespace

extern "C" {

CUZK_API cuzk_status cuzk_field_op(int32_t curve, int32_t field, int32_t op, const uint8_t* a,
                                   const uint8_t* b, uint8_t* out, uint64_t n, cuzk_error* err) {
  return guard([&] {
    require(n == 0 || (a != nullptr && out != nullptr), "cuzk_field_op: a or out is NULL");
    with_curve(curve, [&](auto c) {
      using C = decltype(c);
      switch (field) {
        case CUZK_FIELD_FR: field_op<typename C::fr_t>(op, a, b, out, n); break;
        case CUZK_FIELD_FQ: field_op<typename C::fq_t>(op, a, b, out, n); break;
        case CUZK_FIELD_FQ2: field_op<typename C::fq2_t>(op, a, b, out, n); break;
        default: fail(CUZK_E_INVALID_ARG, "cuzk_field_op: unknown field id " + std::to_string(field));
      }
    });
  }, err);
}

CUZK_API cuzk_status cuzk_curve_op(int32_t curve, int32_t group, int32_t op, const uint8_t* a,
                                   const uint8_t* b, uint8_t* out, uint64_t n, cuzk_error* err) {
  return guard([&] {
    require(n == 0 || (a != nullptr && out != nullptr), "cuzk_curve_op: a or out is NULL");
    with_curve(curve, [&](auto c) {
      using C = decltype(c);
      with_group<C>(group, [&](auto g) { curve_op<decltype(g)>(op, a, b, out, n); });
    });
  }, err);
}

}  // extern "C"
