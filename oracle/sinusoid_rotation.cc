// Fast path (C = c_hi + c_lo + dc, S likewise, |dc|, |ds| <= 2^-105.9: MPFR at 200 bits beyond the
// angle's magnitude, within 2^-137, split into two doubles, which adds |C~ - hi| 2^-53 <= 2^-106):
//   p1 + e1 = u c_hi and p2 + e2 = (sign v) s_hi exactly (FMA); q1 = fl(u c_lo) and
//   q2 = fl(sign v s_lo) err by <= 2^-106 |u| and 2^-106 |v|; (s, t) = TwoSum(p1, p2) exactly;
//   tail = ((t + e1) + e2) + q1 + q2 in four roundings, each <= 2^-53 of a partial sum below
//   2^-52 (|u| + |v|) (1.01): <= 2^-102.9 (|u| + |v|) in all;
//   (hi, lo) = TwoSum(s, tail) exactly.
// So |hi + lo - exact| <= E = 2^-102 (|u| + |v|) (the terms above, 2^-102.6, rounded up), for
// inputs whose products neither underflow nor overflow double (|u|, |v| in [2^-900, 2^900] or 0).
// The element is decided when every value within E of hi + lo rounds to the same double and the
// same target value; otherwise MPFR decides it.
// MPFR (Ziv): C~, S~ at p bits within 2^(max(E_a + 2, 1) + 1 - p) (SinusoidOracle::sin_cos_at);
// u C~ and v S~ rounded to p bits and their sum rounded: |V~ - V| <= (|u| + |v|)
// (2^(max(E_a + 2, 1) + 1 - p) + 2^(1 - p)) + 2^(EXP(V~) - p). V != 0 unless u = v = 0 or the
// angle is 0: a = scale x w is a nonzero algebraic number (w = b^(n/m), b and x rational), so
// tan a is transcendental (Lindemann-Weierstrass) and never the rational u / v.
#include "peverify/oracle/sinusoid_rotation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "peverify/encoding/format.h"
#include "peverify/encoding/sinusoids/timestep.h"
#include "peverify/oracle/correct_rounding.h"
#include "peverify/oracle/mpfr_var.h"

namespace pev::oracle {
namespace {

constexpr int kRungs = 8;
constexpr double kFastError = 0x1p-102;

double two_sum(double a, double b, double& err) {
  const double s = a + b;
  const double bb = s - a;
  err = (a - (s - bb)) + (b - bb);
  return s;
}

// Whether every value within e of hi + lo (|lo| <= ulp(hi) / 2, hi != 0) rounds to hi in double.
bool rounds_to_hi(double hi, double lo, double e) {
  const double h = std::fabs(hi);
  const double l = std::copysign(1.0, hi) * lo;
  const int ex = std::ilogb(h);
  const double ulp = std::ldexp(1.0, ex - 52);
  const double below = h == std::ldexp(1.0, ex) ? ulp / 2 : ulp;  // the gap toward zero
  return l + e < ulp / 2 && l - e > -below / 2;
}

}  // namespace

SinusoidRotation::SinusoidRotation(const SinusoidTable& table, Dtype target)
    : oracle_(table), target_(target), scale_(table.scale) {
  for (const SinusoidFrequency& f : table.frequencies) w_.push_back(f.value());
}

SinusoidRotation::Angle SinusoidRotation::angle(double x, int frequency) const {
  Angle a;
  a.x = x;
  a.frequency = frequency;
  if (scale_ * x == 0) return a;  // C = 1, S = 0 exactly
  a.zero = false;
  // 200 bits beyond the angle's own magnitude keep C~ and S~ within 2^-137 of C and S.
  const double magnitude = std::fabs(scale_ * x) * w_[static_cast<size_t>(frequency)];
  const mpfr_prec_t p = 200 + std::max(0, std::ilogb(magnitude) + 2);
  MpfrVar s, c, rest(p + 64);
  oracle_.sin_cos_at(x, frequency, p, s, c);
  const auto split = [&](mpfr_srcptr v, double& hi, double& lo) {
    hi = mpfr_get_d(v, MPFR_RNDN);
    mpfr_sub_d(rest, v, hi, MPFR_RNDN);  // exact: p bits minus a leading double fit p + 64
    lo = mpfr_get_d(rest, MPFR_RNDN);
  };
  split(c, a.c_hi, a.c_lo);
  split(s, a.s_hi, a.s_lo);
  return a;
}

SinusoidRotation::Rotated SinusoidRotation::combine(const Angle& a, double u, double v,
                                                    int sign) const {
  if (u == 0 && v == 0) return {0.0, 0.0};
  // C = 1, S = 0: the input itself, a zero as +0 (the exact value has no sign; the other engines
  // write +0 for it).
  if (a.zero) return u == 0 ? Rotated{0.0, 0.0} : Rotated{u, round_to(u, 0, target_)};
  const double au = std::fabs(u), av = std::fabs(v);
  const bool in_range =
      (au == 0 || (au > 0x1p-900 && au < 0x1p900)) && (av == 0 || (av > 0x1p-900 && av < 0x1p900));
  if (in_range) {
    const double sv = sign * v;
    const double p1 = u * a.c_hi, e1 = std::fma(u, a.c_hi, -p1);
    const double p2 = sv * a.s_hi, e2 = std::fma(sv, a.s_hi, -p2);
    const double q1 = u * a.c_lo, q2 = sv * a.s_lo;
    double t;
    const double s = two_sum(p1, p2, t);
    const double tail = (((t + e1) + e2) + q1) + q2;
    double lo;
    const double hi = two_sum(s, tail, lo);
    const double e = kFastError * (au + av);
    if (hi != 0 && rounds_to_hi(hi, lo, e)) {
      const double r_minus = round_to(hi, lo - e, target_), r_plus = round_to(hi, lo + e, target_);
      if (r_minus == r_plus && std::signbit(r_minus) == std::signbit(r_plus)) return {hi, r_minus};
    }
  }
  handed_off_.fetch_add(1, std::memory_order_relaxed);
  return combine_mpfr(a, u, v, sign);
}

SinusoidRotation::Rotated SinusoidRotation::combine_mpfr(const Angle& a, double u, double v,
                                                         int sign) const {
  if (u == 0 && v == 0) return {0.0, 0.0};
  if (a.zero) return u == 0 ? Rotated{0.0, 0.0} : Rotated{u, round_to(u, 0, target_)};
  MpfrVar s, c, t1, t2, sum;
  // mag < 2^mag_exp: the bound below is kept as a power of two's exponent, in integers (in
  // doubles it underflowed to 0 for tiny inputs or long precisions, and log2(0) is no exponent).
  const mpfr_exp_t mag_exp = std::ilogb(std::fabs(u) + std::fabs(v)) + 1;
  for (mpfr_prec_t p = 128; p < 128 << kRungs; p *= 2) {
    const mpfr_exp_t e_a = oracle_.sin_cos_at(a.x, a.frequency, p, s, c);
    mpfr_set_prec(t1, p);
    mpfr_set_prec(t2, p);
    mpfr_set_prec(sum, p);
    mpfr_mul_d(t1, c, u, MPFR_RNDN);
    mpfr_mul_d(t2, s, sign * v, MPFR_RNDN);
    mpfr_add(sum, t1, t2, MPFR_RNDN);
    if (mpfr_zero_p(sum)) continue;
    // |sum - exact| < mag (2^(max(e_a + 2, 1) + 1 - p) + 2^(1 - p)) + 2^(EXP(sum) - p)
    //                < 2^(products + 1) + 2^rounding <= 2^(max(products + 1, rounding) + 1).
    const mpfr_exp_t products = mag_exp + std::max<mpfr_exp_t>(e_a + 2, 1) + 1 - p;
    const mpfr_exp_t rounding = mpfr_get_exp(sum) - p;
    const mpfr_exp_t err = mpfr_get_exp(sum) - (std::max(products + 1, rounding) + 1);
    const auto d = round_if_decided(sum, err, Dtype::kFloat64);
    const auto r = round_if_decided(sum, err, target_);
    if (d && r) return {*d, *r};
  }
  throw std::logic_error("sinusoid rotation: rounding undecided at every rung");
}

}  // namespace pev::oracle
