#include "peverify/oracle/rope_terms.h"

#include <cmath>

#include "peverify/oracle/mpfr_var.h"

namespace pev::oracle {

// Error of cd~ at P bits (e = 2^-P, every MPFR operation rounds by at most e relatively):
//   X = L0 / (2 pi beta): pi, pi beta and the quotient round (the doubling is exact), so
//   X~ = X (1 + t) with |t| <= 3.01 e. ln X~ = ln X + ln(1 + t) rounded: |lnX~ - ln X| <= 3.05 e +
//   e |ln X|. Times d rounds (e |d ln X|); ln b rounds (relative e), its doubling is exact; the
//   quotient rounds. Dividing the numerator's absolute error by 2 ln b and adding the three
//   relative roundings of the quotient's factors gives
//     |cd~ - cd| <= (3.05 d / (2 ln b) + 4 |cd|) e (1 + O(e)),
//   which 1.6 d / ln b + 4.1 |cd| + 1 bounds for P >= 64 (the +1 and the tenths hold the
//   second-order terms).
void correction_dim(const TableSpec& spec, double beta, mpfr_prec_t precision, mpfr_ptr out) {
  MpfrVar x(precision), log_base(precision);
  mpfr_const_pi(x, MPFR_RNDN);
  mpfr_mul_d(x, x, beta, MPFR_RNDN);
  mpfr_mul_2ui(x, x, 1, MPFR_RNDN);
  mpfr_ui_div(x, static_cast<unsigned long>(spec.rope.original_max_position), x, MPFR_RNDN);
  mpfr_log(x, x, MPFR_RNDN);
  mpfr_mul_si(x, x, spec.d_model, MPFR_RNDN);
  mpfr_set_d(log_base, spec.base, MPFR_RNDN);  // exact
  mpfr_log(log_base, log_base, MPFR_RNDN);
  mpfr_mul_2ui(log_base, log_base, 1, MPFR_RNDN);
  mpfr_set_prec(out, precision);
  mpfr_div(out, x, log_base, MPFR_RNDN);
}

double correction_dim_error(const TableSpec& spec, double cd_magnitude) {
  return 1.6 * spec.d_model * inverse_log_base_bound(spec.base) + 4.1 * cd_magnitude + 1;
}

// x~ = RN(RN(L0 theta~) / RN(pi) 2): theta~'s error, the product, pi and the quotient (the
// doubling is exact), so k_theta + 3 to first order.
void llama3_ratio_of(const TableSpec& spec, mpfr_srcptr theta, mpfr_ptr out) {
  const mpfr_prec_t p = mpfr_get_prec(out);
  MpfrVar two_pi(p);
  mpfr_const_pi(two_pi, MPFR_RNDN);
  mpfr_mul_2ui(two_pi, two_pi, 1, MPFR_RNDN);
  mpfr_mul_ui(out, theta, static_cast<unsigned long>(spec.rope.original_max_position), MPFR_RNDN);
  mpfr_div(out, out, two_pi, MPFR_RNDN);
}

// std::log is within an ulp or two of ln b (> 2^-53 for any double b > 1): 2^-50 of slack bounds
// the quotient from above.
double inverse_log_base_bound(double base) { return 1.0 / (std::log(base) * (1 - 0x1p-50)); }

}  // namespace pev::oracle
