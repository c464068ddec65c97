#include "peverify/core/precise/frequencies.h"

#include <quadmath.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace pev::core::precise {
namespace {

using Quad = __float128;
constexpr double kQ = 0x1p-113;  // the unit roundoff of __float128

// pi to within q: the three doubles of direct-inl.h's pi/2 (each the double nearest the
// remainder), doubled; hi + mid is exact in 113 bits, adding lo rounds once. (quadmath's kPi is
// a GNU literal that -std=c++20 rejects.)
const Quad kPi =
    static_cast<Quad>(0x1.921fb54442d18p+1) + 0x1.1a62633145c07p-53 - 0x1.f1976b7ed8fbcp-109;

// The base the exponents raise: b, or dynamic's b' = b (s max(n, L) / L - (s - 1))^(d / (d - 2)).
Quad base_of(const TableSpec& spec) {
  const RopeScaling& r = spec.rope;
  if (r.type != RopeType::kDynamic) return spec.base;  // exact: every double is a __float128
  const Quad L = static_cast<Quad>(r.max_position);
  const Quad n = std::max(static_cast<Quad>(r.sequence_length), L);
  const Quad x = r.factor * n / L - (static_cast<Quad>(r.factor) - 1);
  return spec.base * powq(x, static_cast<Quad>(spec.d_model) / (spec.d_model - 2));
}

// yarn's correction range [low, high] (docs/mathematics.md §12.1). cd(r) = d ln(L0 / (2 pi r)) /
// (2 ln b) is transcendental (pi is), so never an integer, and floor and ceil of the __float128
// value (relative error < 2^-108) are the exact ones unless cd lies within ~2^-100 of an integer.
struct QuadRange {
  Quad low, high;
};
QuadRange yarn_range(const RopeScaling& r, double base, int d) {
  const Quad L0 = static_cast<Quad>(r.original_max_position);
  const auto correction_dim = [&](double rotations) {
    return d * logq(L0 / (rotations * 2 * kPi)) / (2 * logq(static_cast<Quad>(base)));
  };
  QuadRange q{correction_dim(r.beta_fast), correction_dim(r.beta_slow)};
  if (r.truncate) {
    q.low = floorq(q.low);
    q.high = ceilq(q.high);
  }
  q.low = std::max(q.low, Quad{0});
  q.high = std::min(q.high, static_cast<Quad>(d - 1));
  if (q.low == q.high) q.high += Quad{1} / 1000;
  return q;
}

// The recipe's w_j from theta_j (docs/mathematics.md §12.1). llama3's band edges 2 pi / theta_j =
// L0 / h or L0 / l would need pi rational: the comparisons, on values within 2^-108 relative,
// are exact unless a wavelength lies that close to an edge.
Quad recipe_frequency(const TableSpec& spec, const QuadRange& ramp, int j, Quad theta) {
  const RopeScaling& r = spec.rope;
  switch (r.type) {
    case RopeType::kDefault:
    case RopeType::kDynamic:
      return theta;
    case RopeType::kLinear:
      return theta / r.factor;
    case RopeType::kYarn: {
      const Quad x = (j - ramp.low) / (ramp.high - ramp.low);
      const Quad f = std::clamp(x, Quad{0}, Quad{1});
      return theta * (f / r.factor + (1 - f));  // both terms >= 0: no cancellation
    }
    case RopeType::kLongRope: {
      const bool long_list = r.sequence_length > r.original_max_position;
      return theta / (long_list ? r.long_factor : r.short_factor)[j];
    }
    case RopeType::kLlama3: {
      const Quad L0 = static_cast<Quad>(r.original_max_position);
      const Quad wavelength = 2 * kPi / theta;
      if (wavelength < L0 / r.high_freq_factor) return theta;
      if (wavelength > L0 / r.low_freq_factor) return theta / r.factor;
      const Quad m =
          (L0 / wavelength - r.low_freq_factor) / (r.high_freq_factor - r.low_freq_factor);
      return (1 - m) * theta / r.factor + m * theta;  // both terms >= 0 inside the band
    }
    case RopeType::kProportional:  // exactly 0 past the rotated pairs
      return j < rotated_pairs(r, spec.d_model) ? theta / r.factor : Quad{0};
  }
  return theta;
}

// yarn's g(s, m) = 0.1 m ln s + 1 (1 when s <= 1), with 0.1 exact.
Quad mscale(double s, double m) { return s <= 1 ? Quad{1} : m * logq(s) / 10 + 1; }

}  // namespace

// Error of hi + lo, relative to the exact w, with q = 2^-113 the unit roundoff of __float128:
//  - y = fl(n/d) = e (1 + d1), |d1| <= q, so b^y = theta exp(e d1 ln b): relative error
//    <= 1.0001 |e ln b| q (the exponent is exact, d1 = 0, when d divides n);
//  - powq itself: we assume <= 4 ulp, i.e. <= 8q relative (the tests measure it against MPFR);
//  - dynamic's b': x = s n/L - (s - 1) errs by (2 T / x + 1) q, T = s n / L (the subtraction
//    may cancel); x^(d/(d-2)) multiplies that by y' = d/(d-2) <= 2 and adds y' |ln x| q (the
//    rounded exponent) and 8q (powq), the product with b q; theta moves by |e| times that;
//  - linear, longrope: one division, q; yarn: the ramp r = (j - low) / (high - low) errs
//    absolutely by <= 32 q (j + |low| + |high| + 1) / (high - low) (low and high within
//    8q (|low| + |high| + 1), exact integers when truncated), which the blend f = r/s + 1 - r
//    divides by f and multiplies by |1 - 1/s|, plus 3q for f and q for theta f;
//  - llama3's smoothed band: m = (L0 theta / (2 pi) - l) / (h - l) carries theta's error times
//    x / (h - l), x = L0 theta / (2 pi), which f = (1 - m)/s + m turns into the gain
//    G = x |1 - 1/s| / ((h - l) f) on theta's error, and adds (4 G + 8) q of its own roundings;
//  - hi = RN_53(W); W - hi is exact in __float128; lo = RN_53(W - hi) errs by
//    <= 2^-53 |W - hi| <= 2^-106 |W|;
//  - if w < 2^-969, lo is subnormal and errs by up to 2^-1075 absolutely (huge bases only).
// Second-order terms are covered by the 1.01 below.
double frequency_error_bound(const TableSpec& spec) {
  const RopeScaling& r = spec.rope;
  const int d = spec.d_model;
  double base_error = 0;  // dynamic: relative error of b'
  if (r.type == RopeType::kDynamic) {
    const double L = static_cast<double>(r.max_position);
    const double n = std::max(static_cast<double>(r.sequence_length), L);
    const double x = r.factor * n / L - (r.factor - 1);
    const double y = static_cast<double>(d) / (d - 2);
    base_error = (y * (2 * r.factor * n / L / x + 1) + y * std::fabs(std::log(x)) + 9) * kQ;
  }
  const double base = static_cast<double>(base_of(spec));
  const rope_double::YarnRange range = r.type == RopeType::kYarn
                                           ? rope_double::yarn_range(r, spec.base, d)
                                           : rope_double::YarnRange{0, 1};
  double worst = 0;
  for (int k = 0; k < d / 2; ++k) {
    const FrequencyExponent e = frequency_exponent(spec, k);
    const double exponent = static_cast<double>(e.numerator) / static_cast<double>(e.denominator);
    const double y_rounded = e.numerator % e.denominator == 0 ? 0.0 : 1.0;
    double theta_error = (1.0001 * std::fabs(exponent * std::log(base)) * y_rounded + 8) * kQ +
                         std::fabs(exponent) * base_error;
    const double theta = std::pow(base, exponent);
    double recipe = theta_error;
    const double s = r.factor;
    switch (r.type) {
      case RopeType::kDefault:
      case RopeType::kDynamic:
        break;
      case RopeType::kLinear:
      case RopeType::kLongRope:
      case RopeType::kProportional:
        recipe += kQ;
        break;
      case RopeType::kYarn: {
        const double width = range.high - range.low;
        const double ramp = rope_double::yarn_ramp(range, k);
        const double f = ramp / s + (1 - ramp);
        const double ramp_error =
            32 * kQ * (k + std::fabs(range.low) + std::fabs(range.high) + 1) / width;
        recipe += ramp_error * std::fabs(1 - 1 / s) / f + 4 * kQ;
        break;
      }
      case RopeType::kLlama3: {
        const double L0 = static_cast<double>(r.original_max_position);
        const double lf = r.low_freq_factor, hf = r.high_freq_factor;
        const double x = L0 * theta / (2 * M_PI);
        if (x < lf || x > hf) {
          recipe += kQ;
          break;
        }
        const double m = (x - lf) / (hf - lf);
        const double f = (1 - m) / s + m;
        const double gain = x * std::fabs(1 - 1 / s) / ((hf - lf) * f);
        recipe = (1 + gain) * theta_error + (4 * gain + 8) * kQ;
        break;
      }
    }
    const double w = frequency(spec, k);
    if (w == 0) continue;  // proportional's tail: exactly 0, no error
    worst = std::fmax(worst, recipe + 0x1p-106 + 0x1p-1074 / w / 2);
  }
  return 1.01 * worst;
}

std::vector<DoubleDouble> double_double_frequencies(const TableSpec& spec) {
  std::vector<DoubleDouble> out(static_cast<size_t>(spec.d_model / 2));
  const Quad base = base_of(spec);
  const QuadRange ramp = spec.rope.type == RopeType::kYarn
                             ? yarn_range(spec.rope, spec.base, spec.d_model)
                             : QuadRange{0, 1};
  for (size_t k = 0; k < out.size(); ++k) {
    const FrequencyExponent e = frequency_exponent(spec, static_cast<int>(k));
    const Quad y = static_cast<Quad>(e.numerator) / e.denominator;
    const Quad theta = e.numerator == 0 ? Quad{1} : powq(base, y);
    const Quad w = recipe_frequency(spec, ramp, static_cast<int>(k), theta);
    out[k].hi = static_cast<double>(w);
    out[k].lo = static_cast<double>(w - static_cast<Quad>(out[k].hi));
  }
  return out;
}

// The formulas of rope_double::attention_factor (docs/mathematics.md §12.1) in __float128: a few
// roundings of q each, then one to double.
double attention_in_double(const TableSpec& spec) {
  const RopeScaling& r = spec.rope;
  if (r.attention_factor) return *r.attention_factor;
  switch (r.type) {
    case RopeType::kYarn:
      if (r.mscale && r.mscale_all_dim && *r.mscale != 0 && *r.mscale_all_dim != 0)
        return static_cast<double>(mscale(r.factor, *r.mscale) /
                                   mscale(r.factor, *r.mscale_all_dim));
      return static_cast<double>(mscale(r.factor, 1.0));
    case RopeType::kLongRope: {
      const Quad t = r.max_position && r.original_max_position
                         ? static_cast<Quad>(r.max_position) / r.original_max_position
                         : static_cast<Quad>(r.factor);
      if (t <= 1) return 1.0;
      return static_cast<double>(
          sqrtq(1 + logq(t) / logq(static_cast<Quad>(r.original_max_position))));
    }
    default:
      return 1.0;
  }
}

}  // namespace pev::core::precise
