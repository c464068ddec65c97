// Error bound of one rung at working precision p (the MPFR engine's, mpfr_engine.cc, with the
// integer position replaced by a real one):
//   y = scale * x is exact at 128 bits (two doubles' significands make at most 106);
//   w~ = w (1 + e_w), |e_w| <= 2^-p: computed at p + c_w bits (c_w from power_error_factor with
//        the largest |exponent|, which pow multiplies the exponent's rounding by);
//   a~ = y * w~ rounded to p bits: |a~ - a| <= 2^(E_a + 2 - p), E_a = EXP(a~);
//   sin and cos are 1-Lipschitz, so s~ = sin(a~) rounded to p bits is within 2^(M + 1 - p) of
//   sin a, M = max(E_a + 2, EXP(s~)): err = p - 1 - (M - EXP(s~)) for round_if_decided.
// An angle of exactly 0 (x = 0) has exact values: sin +-0, cos 1.
#include "peverify/oracle/sinusoid.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "peverify/oracle/correct_rounding.h"
#include "peverify/oracle/frequencies.h"

namespace pev::oracle {
namespace {

constexpr int kRungs = 8;

// c_w for the table: pow multiplies the exponent's rounding (relative 2^-P) by |e| ln b, so the
// largest |e| ln b sets it (power_error_factor's derivation, frequencies.cc, with |e| not <= 1).
int error_factor_log2(const std::vector<SinusoidFrequency>& fs) {
  double factor = 2;
  for (const SinusoidFrequency& f : fs) {
    const double e =
        std::fabs(static_cast<double>(f.numerator) / static_cast<double>(f.denominator));
    factor = std::max(factor, 2.0 + 1.01 * std::max(1.0, e) * std::log(f.base));
  }
  return static_cast<int>(std::ceil(std::log2(factor)));
}

}  // namespace

SinusoidOracle::SinusoidOracle(const SinusoidTable& table)
    : scale_(table.scale),
      log2_error_factor_(error_factor_log2(table.frequencies)),
      frequencies_(table.frequencies) {
  free_mpfr_caches_at_thread_exit();
  for (const SinusoidFrequency& f : frequencies_) {
    if (!(std::isfinite(f.base) && f.base > 1) || f.denominator == 0)
      throw std::invalid_argument("sinusoid oracle: frequency base must be > 1");
    cache_.emplace_back(kCachedPrecision);
    raise_rational(f.base, f.numerator, f.denominator, kCachedPrecision, cache_.back());
  }
}

mpfr_exp_t SinusoidOracle::sin_cos_at(double x, int frequency, mpfr_prec_t p, mpfr_ptr s,
                                      mpfr_ptr c) const {
  free_mpfr_caches_at_thread_exit();
  MpfrVar yv(128), w, angle(p);
  mpfr_set_d(yv, x, MPFR_RNDN);
  mpfr_mul_d(yv, yv, scale_, MPFR_RNDN);  // exact
  mpfr_srcptr wv = cache_[static_cast<size_t>(frequency)];
  if (p + log2_error_factor_ > kCachedPrecision) {
    const SinusoidFrequency& f = frequencies_[static_cast<size_t>(frequency)];
    raise_rational(f.base, f.numerator, f.denominator, p + log2_error_factor_, w);
    wv = w;
  }
  mpfr_set_prec(s, p);
  mpfr_set_prec(c, p);
  mpfr_mul(angle, yv, wv, MPFR_RNDN);
  mpfr_sin_cos(s, c, angle, MPFR_RNDN);
  return mpfr_get_exp(angle);
}

SinCos SinusoidOracle::evaluate(double x, int frequency) const {
  SinCos out;
  if (scale_ * x == 0) {  // exactly: the sign of sin follows the product's, as sin(-0.0) is -0.0
    out.sin_exact = std::copysign(0.0, scale_) * std::copysign(1.0, x);
    out.cos_exact = 1.0;
    out.sin_rounded.fill(out.sin_exact);
    out.cos_rounded.fill(1.0);
    return out;
  }
  MpfrVar s, c;
  mpfr_prec_t p = 72 + std::max(0, std::ilogb(scale_ * x) + 1);
  for (int rung = 0; rung < kRungs; ++rung, p += p / 2 + 32) {
    const mpfr_exp_t e_a = sin_cos_at(x, frequency, p, s, c);
    if (mpfr_zero_p(s) || mpfr_zero_p(c)) continue;  // cannot happen for a~ != 0
    const auto err = [&](mpfr_srcptr v) {
      return p - 1 - (std::max<mpfr_exp_t>(e_a + 2, mpfr_get_exp(v)) - mpfr_get_exp(v));
    };
    bool decided = true;
    for (const Dtype t : {Dtype::kFloat64, Dtype::kFloat32, Dtype::kFloat16, Dtype::kBFloat16}) {
      const auto sin_t = round_if_decided(s, err(s), t);
      const auto cos_t = round_if_decided(c, err(c), t);
      if (!sin_t || !cos_t) {
        decided = false;
        break;
      }
      out.sin_rounded[static_cast<size_t>(t)] = *sin_t;
      out.cos_rounded[static_cast<size_t>(t)] = *cos_t;
    }
    if (decided) {
      out.sin_exact = out.sin_in(Dtype::kFloat64);
      out.cos_exact = out.cos_in(Dtype::kFloat64);
      return out;
    }
  }
  throw std::logic_error("sinusoid oracle: rounding undecided at every rung for x " +
                         std::to_string(x));
}

ExactSlope exact_alibi_slope(const AlibiSlope& a, double max_bias, Dtype target) {
  free_mpfr_caches_at_thread_exit();
  // Below 2^-1100 every format rounds the slope to +0 (half float64's smallest subnormal is
  // 2^-1075), and MPFR's exp2 would underflow.
  if (max_bias * static_cast<double>(a.numerator) / static_cast<double>(a.denominator) > 1100)
    return {0.0, 0.0, false};
  // The exponent -max_bias n / d: exact at 192 bits when it is an integer (then the slope is a
  // power of two, which Ziv's test could never decide); otherwise 2^e is irrational
  // (Gelfond-Schneider), so a fine enough approximation always decides.
  MpfrVar e(192), v;
  mpfr_set_d(e, max_bias, MPFR_RNDN);
  mpfr_mul_si(e, e, -static_cast<long>(a.numerator), MPFR_RNDN);  // exact: 53 + 63 bits
  const int inexact = mpfr_div_si(e, e, static_cast<long>(a.denominator), MPFR_RNDN);
  if (inexact == 0 && mpfr_integer_p(e)) {
    mpfr_set_prec(v, 64);
    mpfr_set_ui_2exp(v, 1, mpfr_get_si(e, MPFR_RNDN), MPFR_RNDN);
    return {round_exact(v, target), round_exact(v, Dtype::kFloat64), true};
  }
  // The product and the quotient each round: |e~ - e| <= |e| 2^(1-p), and exp2 adds 2^-p:
  // |v~ - v| <= v 2^-p (2 ln 2 |e| + 1.01) < 2^(EXP(v~) - p + log2(2 |e| + 2)).
  const double magnitude =
      std::fabs(max_bias * static_cast<double>(a.numerator) / static_cast<double>(a.denominator));
  const mpfr_exp_t slack = static_cast<mpfr_exp_t>(std::ceil(std::log2(2 * magnitude + 2)));
  for (mpfr_prec_t p = 96; p < 96 * 64; p *= 2) {
    MpfrVar ep(p);
    mpfr_set_d(ep, max_bias, MPFR_RNDN);
    mpfr_mul_si(ep, ep, -static_cast<long>(a.numerator), MPFR_RNDN);
    mpfr_div_si(ep, ep, static_cast<long>(a.denominator), MPFR_RNDN);
    mpfr_set_prec(v, p);
    mpfr_exp2(v, ep, MPFR_RNDN);
    const auto t = round_if_decided(v, p - slack, target);
    const auto d = round_if_decided(v, p - slack, Dtype::kFloat64);
    if (t && d) return {*t, *d, false};
  }
  throw std::logic_error("ALiBi oracle: rounding undecided");
}

}  // namespace pev::oracle
