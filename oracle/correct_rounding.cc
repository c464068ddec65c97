#include "peverify/oracle/correct_rounding.h"

#include <algorithm>
#include <cmath>

#include "peverify/encoding/format.h"
#include "peverify/oracle/mpfr_var.h"

namespace pev::oracle {
namespace {

// Values below the smallest subnormal: the only breakpoint left is half of it (and zero, which
// the exact value never is). Decided when the whole error interval lies on one side.
std::optional<double> round_below_smallest_subnormal(mpfr_srcptr approx, mpfr_exp_t err,
                                                     const FormatTraits& f) {
  const mpfr_exp_t e = mpfr_get_exp(approx);
  const mpfr_prec_t p = std::max<mpfr_prec_t>(mpfr_get_prec(approx), 2) + 8;
  mpfr_t lo, hi, radius, half_min;
  mpfr_inits2(p, lo, hi, radius, half_min, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_ui_2exp(radius, 1, e - err, MPFR_RNDN);
  mpfr_abs(lo, approx, MPFR_RNDN);
  mpfr_sub(lo, lo, radius, MPFR_RNDD);
  mpfr_abs(hi, approx, MPFR_RNDN);
  mpfr_add(hi, hi, radius, MPFR_RNDU);
  const long min_subnormal_exp = f.min_exponent - f.precision + 1;
  mpfr_set_ui_2exp(half_min, 1, min_subnormal_exp - 1, MPFR_RNDN);
  std::optional<double> result;
  if (mpfr_sgn(lo) > 0) {  // the sign is decided
    const bool sign = mpfr_signbit(approx);
    if (mpfr_cmp(hi, half_min) < 0) {
      result = sign ? -0.0 : 0.0;
    } else if (mpfr_cmp(lo, half_min) > 0) {
      const double m = std::ldexp(1.0, static_cast<int>(min_subnormal_exp));
      result = sign ? -m : m;
    }
  }
  mpfr_clears(lo, hi, radius, half_min, static_cast<mpfr_ptr>(nullptr));
  return result;
}

// The format's overflow: a value that rounds, with an unbounded exponent, beyond the largest
// finite number (2 - 2^(1-P)) 2^emax, emax = 1 - min_exponent, is an infinity (IEEE 754 7.4).
double overflow_to_infinity(double rounded, const FormatTraits& f) {
  const double largest = std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), 1 - f.min_exponent);
  if (std::fabs(rounded) <= largest) return rounded;
  return std::copysign(INFINITY, rounded);
}

}  // namespace

double round_exact(mpfr_srcptr exact, Dtype target) {
  const FormatTraits f = traits_of(target);
  const mpfr_exp_t e = mpfr_get_exp(exact);
  const mpfr_prec_t effective = f.precision - std::max<mpfr_exp_t>(0, f.min_exponent + 1 - e);
  const bool negative = mpfr_signbit(exact);
  if (effective < 1) {  // below the smallest subnormal: 0, or the smallest subnormal
    const long min_subnormal_exp = f.min_exponent - f.precision + 1;
    // Half of the smallest subnormal is a tie, which goes to the even neighbour, 0.
    MpfrVar magnitude(mpfr_get_prec(exact));
    mpfr_abs(magnitude, exact, MPFR_RNDN);
    const int above_half = mpfr_cmp_ui_2exp(magnitude, 1, min_subnormal_exp - 1);
    const double m = above_half > 0 ? std::ldexp(1.0, static_cast<int>(min_subnormal_exp)) : 0.0;
    return negative ? -m : m;
  }
  MpfrVar rounded(effective);
  mpfr_set(rounded, exact, MPFR_RNDN);  // MPFR's nearest is ties to even
  return overflow_to_infinity(mpfr_get_d(rounded, MPFR_RNDN), f);
}

std::optional<double> round_if_decided(mpfr_srcptr approx, mpfr_exp_t err, Dtype target) {
  const FormatTraits f = traits_of(target);
  // MPFR's exponent puts |x| in [2^(e-1), 2^e); the smallest normal is 2^min_exponent.
  const mpfr_exp_t e = mpfr_get_exp(approx);
  const mpfr_prec_t below_normal = std::max<mpfr_exp_t>(0, f.min_exponent + 1 - e);
  const mpfr_prec_t effective = f.precision - below_normal;  // bits left in a subnormal
  if (effective < 1) return round_below_smallest_subnormal(approx, err, f);
  // Asking for one bit more with a directed mode proves the exact value is neither a
  // breakpoint nor on the other side of one (MPFR manual, mpfr_can_round).
  if (!mpfr_can_round(approx, err, MPFR_RNDN, MPFR_RNDZ, effective + 1)) return std::nullopt;
  mpfr_t rounded;
  mpfr_init2(rounded, effective);
  mpfr_set(rounded, approx, MPFR_RNDN);
  // Exact: <= 53 bits; beyond double's range only for a float64 target, where it is the infinity.
  const double value = mpfr_get_d(rounded, MPFR_RNDN);
  mpfr_clear(rounded);
  return overflow_to_infinity(value, f);
}

}  // namespace pev::oracle
