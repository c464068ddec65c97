#include "peverify/oracle/frequencies.h"

#include <cmath>
#include <stdexcept>

#include "peverify/oracle/rope_frequencies.h"

namespace pev::oracle {

// Error of w~ = pow(b, round(e_k)) at P bits, |e_k| <= 1:
//   rounding e_k gives a relative error <= 2^-P in the exponent, which pow turns into a relative
//   error <= 1.01 |ln b| 2^-P in w; pow's own rounding adds 2^-P. So |w~/w - 1| <= (2 + 1.01
//   |ln b|) 2^-P (the 2 also absorbs the second-order terms), and c_w = ceil(log2(2 + 1.01 ln b)).
double power_error_factor(double base) { return 2.0 + 1.01 * std::log(base); }

void raise_base(const TableSpec& spec, int pair, mpfr_prec_t precision, mpfr_ptr out) {
  const FrequencyExponent e = frequency_exponent(spec, pair);
  raise_rational(spec.base, e.numerator, e.denominator, precision, out);
}

void raise_rational(double base, int64_t numerator, int64_t denominator, mpfr_prec_t precision,
                    mpfr_ptr out) {
  MpfrVar exponent(precision), b(64);
  mpfr_set_d(b, base, MPFR_RNDN);  // exact: a double fits in 64 bits
  mpfr_set_si(exponent, static_cast<long>(numerator), MPFR_RNDN);
  mpfr_div_si(exponent, exponent, static_cast<long>(denominator), MPFR_RNDN);
  mpfr_set_prec(out, precision);
  mpfr_pow(out, b, exponent, MPFR_RNDN);
}

Frequencies::Frequencies(const TableSpec& spec) : spec_(spec) {
  if (auto err = validate(spec)) throw std::invalid_argument(*err);
  free_mpfr_caches_at_thread_exit();
  if (!is_plain(spec)) recipe_ = std::make_unique<const RecipeFrequencies>(spec);
  log2_error_factor_ = recipe_
                           ? recipe_->log2_error_factor()
                           : static_cast<int>(std::ceil(std::log2(power_error_factor(spec.base))));
  cache_.reserve(static_cast<size_t>(spec.d_model / 2));
  for (int k = 0; k < spec.d_model / 2; ++k) {
    cache_.emplace_back();
    compute(k, kCachedPrecision, cache_.back());
  }
}

Frequencies::~Frequencies() = default;

bool Frequencies::zero(int pair) const { return recipe_ && recipe_->zero(pair); }

void Frequencies::compute(int pair, mpfr_prec_t precision, mpfr_ptr out) const {
  if (recipe_) {
    recipe_->compute(pair, precision, out);
  } else {
    raise_base(spec_, pair, precision, out);
  }
}

}  // namespace pev::oracle
