#include "oracle/correct_rounding.h"

#include <algorithm>
#include <cmath>

#include "encoding/format.h"

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

}  // namespace

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
  const double value = mpfr_get_d(rounded, MPFR_RNDN);  // exact: <= 53 bits, in double range
  mpfr_clear(rounded);
  return value;
}

}  // namespace pev::oracle
