// Host -> device type map for the GPU kernels: gpu_t<host group params> is the device field of the
// group's coordinates, gpu_t<host Fr> the device scalar field. Device points (curve/xyzz.cuh) are
// byte-identical to the host ones (static_asserts), so they cross by plain copies.
#pragma once
#include "../field/mont.cuh"
#include "bls12_381.hpp"
#include "bn254.hpp"
#include "xyzz.cuh"
#include "xyzz.hpp"

namespace cuzk {

template <class H> struct gpu_of;
template <> struct gpu_of<bn254_g1_params> { using type = dev::bn254_fq_t; };
template <> struct gpu_of<bn254_g2_params> { using type = dev::bn254_fq2_t; };
template <> struct gpu_of<bls12_381_g1_params> { using type = dev::bls12_381_fq_t; };
template <> struct gpu_of<bls12_381_g2_params> { using type = dev::bls12_381_fq2_t; };
template <> struct gpu_of<bn254_fr_t> { using type = dev::bn254_fr_t; };
template <> struct gpu_of<bls12_381_fr_t> { using type = dev::bls12_381_fr_t; };
template <> struct gpu_of<bn254_fq_t> { using type = dev::bn254_fq_t; };
template <> struct gpu_of<bls12_381_fq_t> { using type = dev::bls12_381_fq_t; };
template <> struct gpu_of<bn254_fq2_t> { using type = dev::bn254_fq2_t; };
template <> struct gpu_of<bls12_381_fq2_t> { using type = dev::bls12_381_fq2_t; };
template <class H> using gpu_t = typename gpu_of<H>::type;

#define CUZK_SAME_IMAGE(H)                                                                                       \
  static_assert(sizeof(affine_t<H>) == sizeof(dev::daffine_t<gpu_t<H>>), "affine image differs on device");   \
  static_assert(sizeof(xyzz_t<H>) == sizeof(dev::dxyzz_t<gpu_t<H>>), "xyzz image differs on device");
CUZK_SAME_IMAGE(bn254_g1_params)
CUZK_SAME_IMAGE(bn254_g2_params)
CUZK_SAME_IMAGE(bls12_381_g1_params)
CUZK_SAME_IMAGE(bls12_381_g2_params)
#undef CUZK_SAME_IMAGE
static_assert(sizeof(bn254_fr_t) == sizeof(dev::bn254_fr_t), "Fr image differs on device");
static_assert(sizeof(bls12_381_fr_t) == sizeof(dev::bls12_381_fr_t), "Fr image differs on device");

}  // namespace cuzk
