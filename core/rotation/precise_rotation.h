// The double path of our precise rotation (docs/features.md §15.4), shared by the CPU entry
// (rotation_precise.cc) and the CUDA kernel (core/cuda/rotation_kernels.cu), which therefore give
// the same bits: only +, *, FMA, fabs and exponent bits, no library function. Each output
// comes with a bound E on its distance to the exact A (x_a cos pw - x_b sin pw):
//   E = 6.1u (|x c| + |y s|) + u |y s| + u |r| + 1.02 A E_arg (|x| + |y|),  u = 2^-53
// (cos and sin from direct_sincos: 4u |v| + E_arg; times A rounded to double: 2u more; the
// product and the FMA: u each), and r rounded to float32 is faithful when E is below half an ulp
// of float32 at |r| - E. Elements that fails are the caller's to recompute more precisely.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "peverify/core/cuda/direct_double.h"
#include "peverify/core/cuda/shared_arith.h"

namespace pev::core::precise_rotation {

inline constexpr double kU = 0x1p-53;
// E_arg <= pos w (e_w + 2^-102.3) + 2^-102.6 (core/cuda/direct_double.h), constants rounded up.
inline constexpr double kArgRelative = 0x1.9fdf8bcce534dp-103;
inline constexpr double kArgAbsolute = 0x1.51cb453b95385p-103;
inline constexpr double kDirectMaxPosition = 0x1p45;
// |r| + E below this rounds to a finite float32 (FLT_MAX plus half its ulp rounds to infinity).
inline constexpr double kFloat32Overflow = 0x1.ffffffp127;

// E above as k_c |x| + k_s |y| + u |r|, the pair's part computed once for every head:
// k_c = 6.1u |c| + 1.02 A E_arg, k_s = 7.1u |s| + 1.02 A E_arg.
struct PairTerms {
  double c = 1, s = 0;  // A cos, A sin in double
  double k_c = 0, k_s = 0;
};

// cos and sin of pos (w_hi + w_lo) times A, e_w the frequency's relative error bound.
PEV_HD inline PairTerms pair_terms(double pos, double w_hi, double w_lo, double e_w,
                                   double attention) {
  double s, c;
  cuda::precise_direct::direct_sincos(pos, w_hi, w_lo, s, c);
  // direct_sincos is exact at position 0 (reduced argument 0: sin 0, cos 1).
  const double e_arg =
      pos == 0 ? 0 : pos * w_hi * (e_w + kArgRelative) * (1 + 0x1p-50) + kArgAbsolute;
  const double ac = cuda::mul_rn(c, attention), as = cuda::mul_rn(s, attention);
  const double arg = 1.02 * attention * e_arg;
  // The bound of direct_sincos is derived for pos < 2^45 only (core/precise/direct-inl.h): from
  // there an infinite bound sends every element to the caller's more precise path.
  const double beyond = pos < kDirectMaxPosition ? 0 : HUGE_VAL;
  return {ac, as, 6.1 * kU * fabs(ac) + arg + beyond, 7.1 * kU * fabs(as) + arg + beyond};
}

// Half an ulp of float32 at magnitude m (the subnormal spacing below 2^-126): for m in
// [2^k, 2^(k+1)), 2^(k - 24), made from m's exponent bits (exact, and no libm call per element).
// Integer operations only (a floating-point >= may trap on NaN, which keeps GCC from vectorising
// a select on it): m's bits as a signed integer are ordered as m for m >= 0, and negative for a
// negative m.
PEV_HD inline double half_ulp_f32(double m) {
  constexpr int64_t kSmallest = int64_t{(1023 - 126)} << 52;  // the bits of 2^-126
#if defined(__CUDA_ARCH__)
  int64_t bits = __double_as_longlong(m);
#else
  int64_t bits;
  std::memcpy(&bits, &m, sizeof bits);
#endif
  bits = bits > kSmallest ? bits : kSmallest;  // below 2^-126, negative too: 2^-150
  bits = (bits & int64_t{0x7ff0000000000000}) - (int64_t{24} << 52);
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(bits);
#else
  double h;
  std::memcpy(&h, &bits, sizeof h);
  return h;
#endif
}

PEV_HD inline bool certified_f32(double r, double bound) {
  return (bound < half_ulp_f32(fabs(r) - bound)) & (fabs(r) + bound < kFloat32Overflow);
}

// r = x c - y s in double (out_a: x = x_a, y = x_b; out_b: x = x_b, y = -x_a); true when r
// rounded to float32 is certified faithful. A zero pair gives +0 (the exact rotation's zero, as
// the oracle writes it; fma would give -0 for some signs).
PEV_HD inline bool rotate_double(const PairTerms& t, double x, double y, double& r) {
  const double ys = cuda::mul_rn(y, t.s);
  r = cuda::fma_rn(x, t.c, -ys);
  const double bound = (t.k_c * fabs(x) + t.k_s * fabs(y) + kU * fabs(r)) * (1 + 0x1p-40);
  r = (r == 0) & (bound == 0) ? 0.0 : r;
  return certified_f32(r, bound);
}

}  // namespace pev::core::precise_rotation
