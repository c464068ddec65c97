// The precise strategy's direct evaluation of sin(pos w) and cos(pos w) in double, one element at
// a time, for the device and its host twin. The same algorithm, constants and error bound as the
// vector code of core/precise/direct-inl.h (derivation there):
//   |y - v| <= 4u |v| + E_arg,  E_arg <= pos w (e_w + 2^-102.3) + 2^-102.6,  u = 2^-53,
// so y rounded once to float32, float16 or bfloat16 is faithful for pos < 2^24, b <= 1e6, unless
// |v| < 2^-51. Only +, -, *, FMA, rint and floor: no library function, so device and host give the
// same bits.
#pragma once

#include "peverify/core/cuda/shared_arith.h"

namespace pev::core::cuda::precise_direct {

// pi/2 = kPio2Hi + kPio2Mid + kPio2Lo + d, |d| < 2^-163 (core/precise/direct-inl.h).
inline constexpr double kPio2Hi = 0x1.921fb54442d18p+0;
inline constexpr double kPio2Mid = 0x1.1a62633145c07p-54;
inline constexpr double kPio2Lo = -0x1.f1976b7ed8fbcp-110;
inline constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
inline constexpr double kHugePosition = 0x1p45;  // from here a second reduction step

// a * b = p + e exactly, p = fl(a * b).
PEV_HD inline double two_prod_error(double a, double b, double p) { return fma_rn(a, b, -p); }

// Knuth's TwoSum: a + b = s + e exactly.
PEV_HD inline double two_sum(double a, double b, double& e) {
  const double s = add_rn(a, b);
  const double bb = sub_rn(s, a);
  e = add_rn(sub_rn(a, sub_rn(s, bb)), sub_rn(b, bb));
  return s;
}

// hi + e1 + lo - m pi/2 as r + r_lo (ReduceQuarterTurns of direct-inl.h).
PEV_HD inline double reduce_quarter_turns(double hi, double e1, double lo, double m, double& r_lo) {
  const double q1 = mul_rn(m, kPio2Hi);
  const double q1e = two_prod_error(m, kPio2Hi, q1);
  const double q2 = mul_rn(m, kPio2Mid);
  const double q2e = two_prod_error(m, kPio2Mid, q2);
  const double q3 = mul_rn(m, kPio2Lo);
  const double t = sub_rn(hi, q1);
  double s1e, s2e;
  const double s1 = two_sum(t, -q1e, s1e);
  const double s2 = two_sum(s1, -q2, s2e);
  double tail = add_rn(e1, lo);
  tail = sub_rn(tail, q2e);
  tail = sub_rn(tail, q3);
  tail = add_rn(tail, s1e);
  tail = add_rn(tail, s2e);
  return two_sum(s2, tail, r_lo);
}

// sin and cos of r + r_lo, |r| <= 0.81: Taylor polynomials with coefficients 1/n!
// (SinCosReduced of direct-inl.h).
PEV_HD inline void sincos_reduced(double r, double r_lo, double& sin_out, double& cos_out) {
  constexpr double f2 = 1.0 / 2, f3 = 1.0 / 6, f4 = 1.0 / 24, f5 = 1.0 / 120, f6 = 1.0 / 720;
  constexpr double f7 = 1.0 / 5040, f8 = 1.0 / 40320, f9 = 1.0 / 362880, f10 = 1.0 / 3628800;
  constexpr double f11 = 1.0 / 39916800, f12 = 1.0 / 479001600, f13 = 1.0 / 6227020800;
  constexpr double f14 = 1.0 / 87178291200, f15 = 1.0 / 1307674368000;
  constexpr double f16 = 1.0 / 20922789888000, f17 = 1.0 / 355687428096000;
  constexpr double f18 = 1.0 / 6402373705728000;
  const double z = mul_rn(r, r);
  double ps = f17;
  ps = fma_rn(ps, z, -f15);
  ps = fma_rn(ps, z, f13);
  ps = fma_rn(ps, z, -f11);
  ps = fma_rn(ps, z, f9);
  ps = fma_rn(ps, z, -f7);
  ps = fma_rn(ps, z, f5);
  ps = fma_rn(ps, z, -f3);
  const double s = fma_rn(mul_rn(r, z), ps, r);
  double qc = -f18;
  qc = fma_rn(qc, z, f16);
  qc = fma_rn(qc, z, -f14);
  qc = fma_rn(qc, z, f12);
  qc = fma_rn(qc, z, -f10);
  qc = fma_rn(qc, z, f8);
  qc = fma_rn(qc, z, -f6);
  qc = fma_rn(qc, z, f4);
  qc = fma_rn(qc, z, -f2);
  const double c = fma_rn(z, qc, 1.0);
  sin_out = fma_rn(c, r_lo, s);
  cos_out = fma_rn(-s, r_lo, c);
}

// sin(pos w), cos(pos w) for an integer-valued pos in [0, 2^53] and w = w_hi + w_lo in (0, 1]
// (DirectSinCos of direct-inl.h); the error bound above is derived for pos < 2^45 only.
PEV_HD inline void direct_sincos(double pos, double w_hi, double w_lo, double& sin_out,
                                 double& cos_out) {
  const double hi = mul_rn(pos, w_hi);
  const double e1 = two_prod_error(pos, w_hi, hi);
  const double lo = mul_rn(pos, w_lo);
  double m = round_even(mul_rn(hi, kTwoOverPi));
  double r_lo;
  double r = reduce_quarter_turns(hi, e1, lo, m, r_lo);
  if (pos >= kHugePosition) {
    const double m2 = round_even(mul_rn(r, kTwoOverPi));
    double r2_lo;
    r = reduce_quarter_turns(r, r_lo, 0.0, m2, r2_lo);
    r_lo = r2_lo;
    m = add_rn(m, m2);
  }
  double s, c;
  sincos_reduced(r, r_lo, s, c);
  // (sin, cos)(r + q pi/2) = (s, c), (c, -s), (-s, -c), (-c, s) for q = m mod 4: exact.
  const double q = sub_rn(m, mul_rn(4.0, floor_of(mul_rn(m, 0.25))));
  const bool swap = q == 1.0 || q == 3.0;
  const double sw = swap ? c : s;
  const double cw = swap ? s : c;
  sin_out = (q == 2.0 || q == 3.0) ? -sw : sw;
  cos_out = (q == 1.0 || q == 2.0) ? -cw : cw;
}

}  // namespace pev::core::cuda::precise_direct
