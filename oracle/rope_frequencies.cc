// Error bounds of the recipes' frequencies. Notation: every MPFR operation at P_int bits rounds
// by a relative e <= 2^-P (P_int >= P; the result's last rounding is at P), theta_j~ carries
// k_theta = power_error_factor(b) (frequencies.cc), and counts are first order: compute() works
// at P_int >= c_w + 64 bits, where each count times e is below 2^-64, so the second-order terms
// stay below 1% of the first, which the factor 1.01 in c_w covers.
//
// kTheta, kThetaOver: theta~ and at most one more rounding (the quotient): k_theta + 1.
// kZero: exact.
// kDynamic: q = (L + s (N - L)) / L: the product, the sum (two nonnegative terms: no
//   cancellation) and the quotient, 3; e2 = -2j/(d-2) rounded, 1; pow(q~, e2~) turns q's error
//   into 1.01 |e2| 3 and e2's into 1.01 |e2| ln q (|e2| <= 1), and rounds; the product with theta~
//   rounds. Total k_theta + 5.03 + 1.01 ln q.
// kRamp: with N1 = j - low, N2 = high - j, W = high - low = N1 + N2, all of one sign for a
//   fractional ramp, S = N1 + s N2 and |S| >= min(1, s) |W|. The ends carry absolute errors
//   E_low, E_high (rope_decisions.h); N1~, N2~ and s N2~ round, the sum rounds:
//   |S~ - S| <= E_low + s E_high + e (|N1| + 2 s |N2| + |S|) <= E_low + s E_high + 3 e |S|.
//   W~ errs by E_low + E_high and rounds; s W~ and S~ / (s W~) round; times theta~ rounds:
//   k_theta + 7 + (E_low + s E_high) / (min(1, s) W) + (E_low + E_high) / W (E's in units of e).
// kLlama3Blend: x~ = L0 theta~ / (2 pi) with k_x = k_theta + 3 (rope_terms.h), x <= h in the band;
//   S = (h - x) + s (x - l), both terms >= 0 and |S| >= min(1, s) (h - l); as for the ramp,
//   |S~ - S| <= (1 + s) k_x h e + 3 e |S|; h - l, s (h - l), the quotient and the product round:
//   k_theta + 7 + (1 + s) k_x h / (min(1, s) (h - l)).
#include "peverify/oracle/rope_frequencies.h"

#include <algorithm>
#include <cmath>

#include "peverify/oracle/frequencies.h"
#include "peverify/oracle/rope_terms.h"

namespace pev::oracle {

RecipeFrequencies::RecipeFrequencies(const TableSpec& spec) : spec_(spec) {
  const RopeScaling& r = spec.rope;
  const int pairs = spec.d_model / 2;
  forms_.assign(static_cast<size_t>(pairs), PairForm{});
  switch (r.type) {
    case RopeType::kDefault:
      break;
    case RopeType::kLinear:
      for (PairForm& f : forms_) f = {Form::kThetaOver, r.factor};
      break;
    case RopeType::kDynamic: {
      // n = max(sequence_length, L): integers, compared exactly. N = L leaves the base unchanged.
      const uint64_t n = std::max(r.sequence_length, r.max_position);
      dynamic_excess_ = n - r.max_position;
      if (dynamic_excess_ == 0) break;
      const double excess = static_cast<double>(dynamic_excess_);
      const double length = static_cast<double>(r.max_position);
      const double y = r.factor * excess / length;  // q - 1; ln q <= ln y + 1 once y >= 1
      const double log_q =
          std::isfinite(y) ? std::log1p(y) : std::log(r.factor) + std::log(excess / length) + 1;
      dynamic_log_q_ = log_q * (1 + 0x1p-40) + 0x1p-1000;
      for (PairForm& f : forms_) f = {Form::kDynamic, 1};
      break;
    }
    case RopeType::kYarn:
      yarn_ = decide_yarn_ramp(spec);
      for (int j = 0; j < pairs; ++j) {
        const Ramp ramp = yarn_->ramp[j];
        forms_[j] = ramp == Ramp::kZero  ? PairForm{Form::kTheta, 1}
                    : ramp == Ramp::kOne ? PairForm{Form::kThetaOver, r.factor}
                                         : PairForm{Form::kRamp, 1};
      }
      break;
    case RopeType::kLongRope: {
      // Hugging Face's choice by the sequence length, integers compared exactly.
      const bool long_list = r.sequence_length > r.original_max_position;
      const std::vector<double>& list = long_list ? r.long_factor : r.short_factor;
      for (int j = 0; j < pairs; ++j) forms_[j] = {Form::kThetaOver, list[j]};
      break;
    }
    case RopeType::kLlama3:
      bands_ = decide_llama3_bands(spec);
      for (int j = 0; j < pairs; ++j) {
        const Llama3Band band = bands_[j];
        forms_[j] = band == Llama3Band::kHigh  ? PairForm{Form::kTheta, 1}
                    : band == Llama3Band::kLow ? PairForm{Form::kThetaOver, r.factor}
                                               : PairForm{Form::kLlama3Blend, 1};
      }
      break;
    case RopeType::kProportional: {
      // theta_j over the whole d (head_dim) divided by the factor, then a tail of zeros.
      const int rotated = rotated_pairs(r, spec.d_model);
      for (int j = 0; j < pairs; ++j)
        forms_[j] = j < rotated ? PairForm{Form::kThetaOver, r.factor} : PairForm{Form::kZero, 1};
      break;
    }
  }
  double worst = 0;
  for (const PairForm& f : forms_) worst = std::max(worst, error_count(f));
  log2_error_factor_ = static_cast<int>(std::ceil(std::log2(1.01 * worst)));
}

double RecipeFrequencies::error_count(const PairForm& f) const {
  const double k_theta = power_error_factor(spec_.base);
  const double s = spec_.rope.factor;
  switch (f.form) {
    case Form::kTheta:
    case Form::kThetaOver:
      return k_theta + 1;
    case Form::kZero:
      return 1;  // exact; 1 keeps the factor's logarithm defined
    case Form::kDynamic:
      return k_theta + 5.03 + 1.01 * dynamic_log_q_;
    case Form::kRamp: {
      const double e_low = yarn_->low.error, e_high = yarn_->high.error;
      const double w = yarn_->width_min;
      return k_theta + 7 + (e_low + s * e_high) / (std::min(1.0, s) * w) + (e_low + e_high) / w;
    }
    case Form::kLlama3Blend: {
      const double h = spec_.rope.high_freq_factor, l = spec_.rope.low_freq_factor;
      return k_theta + 7 +
             (1 + s) * llama3_ratio_error(k_theta) * h / (std::min(1.0, s) * (h - l)) *
                 (1 + 0x1p-40);
    }
  }
  return 0;
}

void RecipeFrequencies::compute(int pair, mpfr_prec_t precision, mpfr_ptr out) const {
  const PairForm& f = forms_[pair];
  if (f.form == Form::kZero) {
    mpfr_set_prec(out, precision);
    mpfr_set_zero(out, 1);
    return;
  }
  const mpfr_prec_t p = std::max<mpfr_prec_t>(precision, log2_error_factor_ + 64);
  MpfrVar theta(p), c(p), e(p);
  raise_base(spec_, pair, p, theta);
  mpfr_set_prec(out, precision);
  const RopeScaling& r = spec_.rope;
  switch (f.form) {
    case Form::kTheta:
      mpfr_set(out, theta, MPFR_RNDN);
      return;
    case Form::kThetaOver:
      mpfr_div_d(out, theta, f.divisor, MPFR_RNDN);
      return;
    case Form::kDynamic:
      mpfr_set_ui(c, static_cast<unsigned long>(dynamic_excess_), MPFR_RNDN);  // exact
      mpfr_mul_d(c, c, r.factor, MPFR_RNDN);
      mpfr_add_ui(c, c, static_cast<unsigned long>(r.max_position), MPFR_RNDN);
      mpfr_div_ui(c, c, static_cast<unsigned long>(r.max_position), MPFR_RNDN);
      mpfr_set_si(e, -2 * pair, MPFR_RNDN);
      mpfr_div_si(e, e, spec_.d_model - 2, MPFR_RNDN);
      mpfr_pow(c, c, e, MPFR_RNDN);
      break;
    case Form::kRamp:
      ramp_coefficient(pair, p, c);
      break;
    case Form::kLlama3Blend:
      blend_coefficient(theta, p, c);
      break;
    case Form::kZero:  // returned above
      break;
  }
  mpfr_mul(out, theta, c, MPFR_RNDN);
}

// (N1 + s N2) / (s W) = r_j / s + (1 - r_j): the ramp's blend with no cancellation.
void RecipeFrequencies::ramp_coefficient(int pair, mpfr_prec_t p, mpfr_ptr out) const {
  MpfrVar low(p), high(p), n1(p), n2(p), width(p);
  ramp_end_value(spec_, yarn_->low, p, low);
  ramp_end_value(spec_, yarn_->high, p, high);
  const double s = spec_.rope.factor;
  mpfr_si_sub(n1, pair, low, MPFR_RNDN);
  mpfr_sub_si(n2, high, pair, MPFR_RNDN);
  mpfr_sub(width, high, low, MPFR_RNDN);
  mpfr_mul_d(n2, n2, s, MPFR_RNDN);
  mpfr_add(n1, n1, n2, MPFR_RNDN);
  mpfr_mul_d(width, width, s, MPFR_RNDN);
  mpfr_set_prec(out, p);
  mpfr_div(out, n1, width, MPFR_RNDN);
}

// ((h - x) + s (x - l)) / (s (h - l)) = (1 - m_j) / s + m_j, m_j = (x - l) / (h - l).
void RecipeFrequencies::blend_coefficient(mpfr_srcptr theta, mpfr_prec_t p, mpfr_ptr out) const {
  const double h = spec_.rope.high_freq_factor, l = spec_.rope.low_freq_factor;
  const double s = spec_.rope.factor;
  MpfrVar x(p), a(p), b(p), width(p);
  llama3_ratio_of(spec_, theta, x);
  mpfr_d_sub(a, h, x, MPFR_RNDN);
  mpfr_sub_d(b, x, l, MPFR_RNDN);
  mpfr_mul_d(b, b, s, MPFR_RNDN);
  mpfr_add(a, a, b, MPFR_RNDN);
  mpfr_set_d(width, h, MPFR_RNDN);
  mpfr_sub_d(width, width, l, MPFR_RNDN);
  mpfr_mul_d(width, width, s, MPFR_RNDN);
  mpfr_set_prec(out, p);
  mpfr_div(out, a, width, MPFR_RNDN);
}

}  // namespace pev::oracle
