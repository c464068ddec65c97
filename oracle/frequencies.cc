#include "oracle/frequencies.h"

#include <cmath>

namespace pev::oracle {

// Error of w~ = pow(b, round(e_k)) at P bits, |e_k| <= 1:
//   rounding e_k gives a relative error <= 2^-P in the exponent, which pow turns into a relative
//   error <= 1.01 |ln b| 2^-P in w; pow's own rounding adds 2^-P. So |w~/w - 1| <= (2 + 1.01
//   |ln b|) 2^-P, and c_w = ceil(log2(2 + 1.01 |ln b|)).
Frequencies::Frequencies(const TableSpec& spec)
    : spec_(spec),
      log2_error_factor_(static_cast<int>(std::ceil(std::log2(2.0 + 1.01 * std::log(spec.base))))),
      cache_(spec.d_model / 2) {
  for (int k = 0; k < spec.d_model / 2; ++k)
    compute(k, kCachedPrecision, cache_[k].backend().data());
}

void Frequencies::compute(int pair, mpfr_prec_t precision, mpfr_ptr out) const {
  const FrequencyExponent e = frequency_exponent(spec_, pair);
  mpfr_t exponent, base;
  mpfr_init2(exponent, precision);
  mpfr_init2(base, 64);
  mpfr_set_d(base, spec_.base, MPFR_RNDN);  // exact: a double fits in 64 bits
  mpfr_set_si(exponent, static_cast<long>(e.numerator), MPFR_RNDN);
  mpfr_div_si(exponent, exponent, static_cast<long>(e.denominator), MPFR_RNDN);
  mpfr_set_prec(out, precision);
  mpfr_pow(out, base, exponent, MPFR_RNDN);
  mpfr_clear(exponent);
  mpfr_clear(base);
}

}  // namespace pev::oracle
