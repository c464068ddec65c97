// The storage formats as bit patterns: their precision and exponent range, and the exact
// encoding of values that are already representable. Rounding is not done here: the oracle
// rounds with MPFR, core/ with Highway's conversions, and the two are checked against each other.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "peverify/encoding/spec.h"

namespace pev {

struct FormatTraits {
  int precision;     // significand bits, hidden bit included
  int min_exponent;  // smallest normal is 2^min_exponent
  int storage_bits;  // 64, 32 or 16
};

constexpr FormatTraits traits_of(Dtype t) {
  switch (t) {
    case Dtype::kFloat64:
      return {53, -1022, 64};
    case Dtype::kFloat32:
      return {24, -126, 32};
    case Dtype::kFloat16:
      return {11, -14, 16};
    case Dtype::kBFloat16:
      return {8, -126, 16};
  }
  return {0, 0, 0};
}

// Bit pattern of a value that the format represents exactly (finite, or +-Inf, or NaN).
// A value that needs rounding is a caller's bug: checked with an assertion in debug builds.
uint64_t encode_exact(double value, Dtype t);
// The value a bit pattern holds, widened to double (always exact).
double decode(uint64_t bits, Dtype t);

// Distance between the format's neighbours around |x|: 2^(max(floor(log2|x|), emin) - p + 1),
// so it bottoms out at the smallest subnormal. ulp_of(0) is the smallest subnormal. Inline and
// read from the exponent bits (no ilogb, no ldexp): error measures call it for every element.
inline double ulp_of(double x, Dtype t) {
  const FormatTraits f = traits_of(t);
  uint64_t bits;  // memcpy, not std::bit_cast: CUDA sources include this header as C++17
  std::memcpy(&bits, &x, sizeof bits);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  // Zero, subnormal doubles, Inf and NaN all take the format's smallest exponent.
  const int e = (biased == 0 || biased == 0x7ff) ? f.min_exponent : biased - 1023;
  const int q = std::max(e, f.min_exponent) - f.precision + 1;
  if (q < -1022) return std::ldexp(1.0, q);  // float64's subnormal quantum
  bits = static_cast<uint64_t>(q + 1023) << 52;
  double ulp;
  std::memcpy(&ulp, &bits, sizeof ulp);
  return ulp;
}

// Unit roundoff of a precision: 2^-53, 2^-24, 2^-11, 2^-8.
constexpr double unit_roundoff(Dtype t) {
  switch (t) {
    case Dtype::kFloat64:
      return 0x1p-53;
    case Dtype::kFloat32:
      return 0x1p-24;
    case Dtype::kFloat16:
      return 0x1p-11;
    case Dtype::kBFloat16:
      return 0x1p-8;
  }
  return 0;
}

// The largest error a correctly rounded value in [-1, 1] has in `t`: half an ulp just below 1.
// An absolute accuracy target below it is out of reach of any table stored in `t`.
inline double output_rounding_error(Dtype t) { return 0.5 * ulp_of(0.75, t); }

}  // namespace pev
