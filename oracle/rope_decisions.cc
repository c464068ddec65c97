#include "peverify/oracle/rope_decisions.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "peverify/oracle/frequencies.h"
#include "peverify/oracle/rope_terms.h"

namespace pev::oracle {
namespace {

constexpr mpfr_prec_t kFirstPrecision = 128;
constexpr mpfr_prec_t kLastPrecision = mpfr_prec_t{1} << 16;

// A real number known to lie in [lo, hi] (endpoints rounded outwards).
struct Interval {
  MpfrVar lo, hi;
  explicit Interval(mpfr_prec_t p) : lo(p), hi(p) {}
};

// The point v, at no less precision than x had.
void set_point(Interval& x, mpfr_srcptr v) {
  const mpfr_prec_t p = std::max({mpfr_get_prec(v), mpfr_get_prec(x.lo), kFirstPrecision});
  mpfr_set_prec(x.lo, p);
  mpfr_set_prec(x.hi, p);
  mpfr_set(x.lo, v, MPFR_RNDD);
  mpfr_set(x.hi, v, MPFR_RNDU);
}

// [v - e 2^-p, v + e 2^-p]
void set_ball(Interval& x, mpfr_srcptr v, double e, mpfr_prec_t p) {
  MpfrVar radius(64);
  mpfr_set_d(radius, e, MPFR_RNDU);
  mpfr_mul_2si(radius, radius, -p, MPFR_RNDU);
  mpfr_sub(x.lo, v, radius, MPFR_RNDD);
  mpfr_add(x.hi, v, radius, MPFR_RNDU);
}

// a - b
void subtract(const Interval& a, const Interval& b, Interval& out) {
  mpfr_sub(out.lo, a.lo, b.hi, MPFR_RNDD);
  mpfr_sub(out.hi, a.hi, b.lo, MPFR_RNDU);
}

// The sign of the number in x: +1, -1, 0 (x is the point 0), or nothing while x straddles 0.
std::optional<int> sign_of(const Interval& x) {
  if (mpfr_sgn(x.lo.get()) > 0) return 1;
  if (mpfr_sgn(x.hi.get()) < 0) return -1;
  if (mpfr_zero_p(x.lo.get()) && mpfr_zero_p(x.hi.get())) return 0;
  return std::nullopt;
}

double magnitude_of(const Interval& x) {
  return std::max(std::fabs(mpfr_get_d(x.lo, MPFR_RNDD)), std::fabs(mpfr_get_d(x.hi, MPFR_RNDU)));
}

void cd_interval(const TableSpec& spec, double beta, mpfr_prec_t p, Interval& out) {
  MpfrVar cd(p);
  correction_dim(spec, beta, p, cd);
  // |cd| <= |cd~| + 1: the error bound is far below 1 at p >= 128 for any double d and base.
  const double e = correction_dim_error(spec, std::fabs(mpfr_get_d(cd, MPFR_RNDU)) + 1);
  set_ball(out, cd, e, p);
}

void end_interval(const TableSpec& spec, const RampEnd& end, mpfr_prec_t p, Interval& out) {
  if (end.is_cd) {
    cd_interval(spec, end.beta, p, out);
  } else {
    set_point(out, end.integer);
  }
  if (end.plus_thousandth) {
    MpfrVar t(p);
    mpfr_set_ui(t, 1, MPFR_RNDN);
    mpfr_div_ui(t, t, 1000, MPFR_RNDD);
    mpfr_add(out.lo, out.lo, t, MPFR_RNDD);
    mpfr_set_ui(t, 1, MPFR_RNDN);
    mpfr_div_ui(t, t, 1000, MPFR_RNDU);
    mpfr_add(out.hi, out.hi, t, MPFR_RNDU);
  }
}

// Hugging Face's find_correction_range: low = max(floor(cd(beta_fast)), 0), high =
// min(ceil(cd(beta_slow)), d - 1) (no floor and ceil when not truncating). False while an
// interval straddles a threshold.
bool decide_ends(const TableSpec& spec, mpfr_prec_t p, YarnRamp& y) {
  const RopeScaling& r = spec.rope;
  Interval fast(p), slow(p);
  cd_interval(spec, r.beta_fast, p, fast);
  cd_interval(spec, r.beta_slow, p, slow);
  MpfrVar a(kFirstPrecision), b(kFirstPrecision);  // |cd| < 2^100: integers exact
  if (r.truncate) {
    mpfr_floor(a, fast.lo);
    mpfr_floor(b, fast.hi);
    if (!mpfr_equal_p(a, b)) return false;
    y.low.is_cd = false;
    mpfr_set_ui(b, 0, MPFR_RNDN);
    mpfr_max(y.low.integer, a, b, MPFR_RNDN);  // max(floor, 0)
    mpfr_ceil(a, slow.lo);
    mpfr_ceil(b, slow.hi);
    if (!mpfr_equal_p(a, b)) return false;
    y.high.is_cd = false;
    mpfr_set_si(b, spec.d_model - 1, MPFR_RNDN);
    mpfr_min(y.high.integer, a, b, MPFR_RNDN);
    y.high.plus_thousandth = mpfr_equal_p(y.low.integer, y.high.integer);
    return true;
  }
  const std::optional<int> low_sign = sign_of(fast);
  if (!low_sign) return false;
  y.low.is_cd = *low_sign > 0;
  y.low.beta = r.beta_fast;
  mpfr_set_ui(y.low.integer, 0, MPFR_RNDN);
  Interval last(p), room(p);
  mpfr_set_si(a, spec.d_model - 1, MPFR_RNDN);
  set_point(last, a);
  subtract(last, slow, room);  // (d - 1) - cd(beta_slow)
  const std::optional<int> high_sign = sign_of(room);
  if (!high_sign) return false;
  y.high.is_cd = *high_sign > 0;
  y.high.beta = r.beta_slow;
  mpfr_set_si(y.high.integer, spec.d_model - 1, MPFR_RNDN);
  // cd is strictly decreasing in beta and never 0 or d - 1, so only cd ends of one beta are equal.
  y.high.plus_thousandth = y.low.is_cd && y.high.is_cd && r.beta_fast == r.beta_slow;
  return true;
}

// Each pair's ramp from the signs of j - low, high - j and high - low; false while one is open.
bool decide_ramp(const TableSpec& spec, mpfr_prec_t p, YarnRamp& y) {
  Interval low(p), high(p), width(p), j(p), n(p);
  end_interval(spec, y.low, p, low);
  end_interval(spec, y.high, p, high);
  subtract(high, low, width);
  const std::optional<int> width_sign = sign_of(width);
  if (!width_sign || *width_sign == 0) return false;
  const int pairs = spec.d_model / 2;
  y.ramp.assign(static_cast<size_t>(pairs), Ramp::kFraction);
  MpfrVar index(64);
  for (int k = 0; k < pairs; ++k) {
    mpfr_set_si(index, k, MPFR_RNDN);
    set_point(j, index);
    subtract(j, low, n);
    const std::optional<int> above_low = sign_of(n);
    subtract(high, j, n);
    const std::optional<int> below_high = sign_of(n);
    if (!above_low || !below_high) return false;
    // (j - low) / width <= 0: r = 0; (j - low) / width >= 1, i.e. (high - j) / width <= 0: r = 1.
    if (*above_low * *width_sign <= 0) {
      y.ramp[k] = Ramp::kZero;
    } else if (*below_high * *width_sign <= 0) {
      y.ramp[k] = Ramp::kOne;
    }
  }
  y.width_min = std::min(std::fabs(mpfr_get_d(width.lo, MPFR_RNDZ)),
                         std::fabs(mpfr_get_d(width.hi, MPFR_RNDZ)));
  for (RampEnd* end : {&y.low, &y.high}) {
    end_interval(spec, *end, p, low);
    end->magnitude = magnitude_of(low) * (1 + 0x1p-40);
    // ramp_end_value: cd's own error, then 1/1000 rounded (0.001 e) and the sum rounded (|end| e).
    end->error = end->is_cd ? correction_dim_error(spec, end->magnitude) : 0;
    if (end->plus_thousandth) end->error += 0.001 + end->magnitude + 1;
  }
  return true;
}

}  // namespace

YarnRamp decide_yarn_ramp(const TableSpec& spec) {
  free_mpfr_caches_at_thread_exit();
  YarnRamp y;
  for (mpfr_prec_t p = kFirstPrecision; p <= kLastPrecision; p *= 2)
    if (decide_ends(spec, p, y) && decide_ramp(spec, p, y)) return y;
  throw std::logic_error("oracle: yarn's correction range undecided at 2^16 bits");
}

void ramp_end_value(const TableSpec& spec, const RampEnd& end, mpfr_prec_t precision,
                    mpfr_ptr out) {
  const mpfr_prec_t p = std::max(precision, kFirstPrecision);
  if (end.is_cd) {
    correction_dim(spec, end.beta, precision, out);
    mpfr_prec_round(out, p, MPFR_RNDN);  // exact: widening
  } else {
    mpfr_set_prec(out, p);
    mpfr_set(out, end.integer, MPFR_RNDN);
  }
  if (end.plus_thousandth) {
    MpfrVar t(precision);
    mpfr_set_ui(t, 1, MPFR_RNDN);
    mpfr_div_ui(t, t, 1000, MPFR_RNDN);
    mpfr_add(out, out, t, MPFR_RNDN);
  }
}

std::vector<Llama3Band> decide_llama3_bands(const TableSpec& spec) {
  free_mpfr_caches_at_thread_exit();
  const int pairs = spec.d_model / 2;
  const double theta_error = power_error_factor(spec.base);
  // |x~ - x| <= k_x e x <= 1.01 k_x e x~ (first order; k_x e <= 2^-100 here).
  const double x_error = 1.01 * llama3_ratio_error(theta_error);
  std::vector<Llama3Band> bands(static_cast<size_t>(pairs));
  std::vector<bool> decided(static_cast<size_t>(pairs), false);
  int left = pairs;
  for (mpfr_prec_t p = kFirstPrecision; p <= kLastPrecision && left > 0; p *= 2) {
    MpfrVar theta(p), x(p), e(p);
    Interval ratio(p);
    for (int k = 0; k < pairs; ++k) {
      if (decided[k]) continue;
      raise_base(spec, k, p, theta);
      llama3_ratio_of(spec, theta, x);
      mpfr_abs(e, x, MPFR_RNDN);
      set_ball(ratio, x, x_error * mpfr_get_d(e, MPFR_RNDU) * (1 + 0x1p-50), p);
      const double h = spec.rope.high_freq_factor, l = spec.rope.low_freq_factor;
      // wavelength < L0 / h  <=>  x > h;  wavelength > L0 / l  <=>  x < l.
      if (mpfr_cmp_d(ratio.lo, h) > 0) {
        bands[k] = Llama3Band::kHigh;
      } else if (mpfr_cmp_d(ratio.hi, l) < 0) {
        bands[k] = Llama3Band::kLow;
      } else if (mpfr_cmp_d(ratio.hi, h) < 0 && mpfr_cmp_d(ratio.lo, l) > 0) {
        bands[k] = Llama3Band::kMedium;
      } else {
        continue;
      }
      decided[k] = true;
      --left;
    }
  }
  if (left > 0) throw std::logic_error("oracle: llama3's bands undecided at 2^16 bits");
  return bands;
}

}  // namespace pev::oracle
