// The arithmetic the CUDA strategies share between the device kernels (kernels.cuh) and their
// host twin (device_model.cc): the formulas of core/glibc/glibc_strategies.cc, written once over
// an arithmetic `A` of the compute type, so that the host twin differs from the device only where
// the device calls a math function (sinf, __sinf, expf, ...). Compiled by nvcc and by g++.
//
// An arithmetic A provides T (the type values are held in), from_double, from_position, add, sub,
// mul, div, sincos, exp and pow, each rounded to the compute type as glibc/compute_type.h does.
#pragma once

#include <cstdint>

#include "peverify/core/host_device.h"
#include "peverify/encoding/spec.h"

namespace pev::core::cuda {

// Correctly rounded (RNE) operations that no compiler may contract into an FMA: the __*_rn
// intrinsics on the device, whatever -fmad says; plain operators on the host, where pev_core is
// built with -ffp-contract=off. The device and the host twin thus round identically.
PEV_HD inline float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
PEV_HD inline float sub_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
PEV_HD inline float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
PEV_HD inline float div_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
PEV_HD inline double add_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
PEV_HD inline double sub_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
PEV_HD inline double mul_rn(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
// a * b + c rounded once (IEEE fusedMultiplyAdd on both sides).
PEV_HD inline double fma_rn(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return __builtin_fma(a, b, c);
#endif
}
// Nearest integer, ties to even; and floor. Both exact.
PEV_HD inline double round_even(double x) {
#if defined(__CUDA_ARCH__)
  return rint(x);
#else
  return __builtin_rint(x);  // the default rounding mode: to nearest even
#endif
}
PEV_HD inline double floor_of(double x) {
#if defined(__CUDA_ARCH__)
  return floor(x);
#else
  return __builtin_floor(x);
#endif
}
PEV_HD inline float float_of(double x) {
#if defined(__CUDA_ARCH__)
  return __double2float_rn(x);
#else
  return static_cast<float>(x);
#endif
}
PEV_HD inline float float_of_position(uint64_t p) {  // exact below 2^24
#if defined(__CUDA_ARCH__)
  return __ull2float_rn(p);
#else
  return static_cast<float>(p);
#endif
}
PEV_HD inline double double_of_position(uint64_t p) {  // exact below 2^53
#if defined(__CUDA_ARCH__)
  return __ull2double_rn(p);
#else
  return static_cast<double>(p);
#endif
}

// encoding/spec.h's frequency_exponent, for code that runs on the device: w_k = b^(num/den).
struct Exponent {
  int64_t numerator;    // -2k (paper) or -k (t2t)
  int64_t denominator;  // d (paper) or d/2 - 1 (t2t)
};
PEV_HD inline Exponent exponent_of(int d_model, Schedule schedule, int pair) {
  if (schedule == Schedule::kT2T) return {-pair, d_model / 2 - 1};
  return {-2 * static_cast<int64_t>(pair), d_model};
}

// Where sin and cos of pair k land in a row of `layout` (docs/design.md §1.2); -1 where not stored.
struct Columns {
  int sin0 = -1, sin1 = -1, cos0 = -1, cos1 = -1;
};
PEV_HD inline Columns columns_of(Layout layout, int half, int k) {
  Columns c;
  switch (layout) {
    case Layout::kInterleaved:
      c.sin0 = 2 * k;
      c.cos0 = 2 * k + 1;
      break;
    case Layout::kHalves:
      c.sin0 = k;
      c.cos0 = half + k;
      break;
    case Layout::kRopeCos:
      c.cos0 = k;
      break;
    case Layout::kRopeSin:
      c.sin0 = k;
      break;
    case Layout::kRopeCosDup:
      c.cos0 = k;
      c.cos1 = half + k;
      break;
    case Layout::kRopeSinDup:
      c.sin0 = k;
      c.sin1 = half + k;
      break;
    case Layout::kRopeCosPairs:
      c.cos0 = 2 * k;
      c.cos1 = 2 * k + 1;
      break;
    case Layout::kRopeSinPairs:
      c.sin0 = 2 * k;
      c.sin1 = 2 * k + 1;
      break;
    case Layout::kRopeCosSin:
      c.cos0 = k;
      c.sin0 = half + k;
      break;
    case Layout::kPolar:
      c.cos0 = 2 * k;
      c.sin0 = 2 * k + 1;
      break;
  }
  return c;
}

// The strategies' formulas (core/glibc/glibc_strategies.cc), over an arithmetic A.

// pow (the first seed's numpy code): the denominator b^(2k/d) of angle = pos / b^(2k/d).
template <class A>
PEV_HD typename A::T pow_denominator(const A& a, double base, Exponent e) {
  const auto exponent = a.div(a.from_double(static_cast<double>(-e.numerator)),
                              a.from_double(static_cast<double>(e.denominator)));
  return a.pow(a.from_double(base), exponent);
}

// logspace (the PyTorch code): w_k = exp(2k * c), c = -ln b / d computed in double by the caller
// (a Python float) and rounded to the compute type when it meets the tensor.
template <class A>
PEV_HD typename A::T logspace_frequency(const A& a, double step, Exponent e) {
  return a.exp(a.mul(a.from_double(static_cast<double>(-e.numerator)), a.from_double(step)));
}

// The angle of a direct strategy: pos / den (pow) or pos * w (logspace).
template <class A>
PEV_HD typename A::T direct_angle(const A& a, bool is_pow, typename A::T pos, typename A::T f) {
  return is_pow ? a.div(pos, f) : a.mul(pos, f);
}

// One step of the rotation M_1: (sin, cos)(x + w) from (sin, cos)(x) and (sin w, cos w).
template <class A>
PEV_HD void rotate(const A& a, typename A::T& s, typename A::T& c, typename A::T s1,
                   typename A::T c1) {
  const auto ns = a.add(a.mul(s, c1), a.mul(c, s1));
  const auto nc = a.sub(a.mul(c, c1), a.mul(s, s1));
  s = ns;
  c = nc;
}

}  // namespace pev::core::cuda
