#include "core/precise/frequencies.h"

#include <quadmath.h>

#include <cmath>
#include <cstdint>

namespace pev::core::precise {

// Error of hi + lo, relative to w = b^(n/d), with q = 2^-113 the unit roundoff of __float128:
//  - y = fl(n/d) = e (1 + d1), |d1| <= q, so b^y = w exp(e d1 ln b): relative error
//    <= 1.0001 |e ln b| q (the exponent is exact, d1 = 0, when d divides n);
//  - powq itself: we assume <= 4 ulp, i.e. <= 8q relative (the tests measure it against MPFR);
//  - hi = RN_53(W); W - hi is exact in __float128; lo = RN_53(W - hi) errs by
//    <= 2^-53 |W - hi| <= 2^-106 |W|.
//  - if w < 2^-969, lo is subnormal and errs by up to 2^-1075 absolutely (huge bases only).
// Total: (1.0001 |e ln b| + 8) q + 2^-106 + 2^-1075 / w, plus second-order terms (covered by the
// 1.01 below).
double frequency_error_bound(const TableSpec& spec) {
  double worst = 0;
  for (int k = 0; k < spec.d_model / 2; ++k) {
    const FrequencyExponent e = frequency_exponent(spec, k);
    const double exponent = static_cast<double>(e.numerator) / static_cast<double>(e.denominator);
    const double y_rounded = e.numerator % e.denominator == 0 ? 0.0 : 1.0;
    const double bound =
        (1.0001 * std::fabs(exponent * std::log(spec.base)) * y_rounded + 8) * 0x1p-113 + 0x1p-106 +
        0x1p-1074 / std::pow(spec.base, exponent) / 2;
    worst = std::fmax(worst, bound);
  }
  return 1.01 * worst;
}

std::vector<DoubleDouble> double_double_frequencies(const TableSpec& spec) {
  std::vector<DoubleDouble> out(static_cast<size_t>(spec.d_model / 2));
  const __float128 base = spec.base;  // exact: every double is a __float128
  for (size_t k = 0; k < out.size(); ++k) {
    const FrequencyExponent e = frequency_exponent(spec, static_cast<int>(k));
    const __float128 y = static_cast<__float128>(e.numerator) / e.denominator;
    const __float128 w = e.numerator == 0 ? __float128{1} : powq(base, y);
    out[k].hi = static_cast<double>(w);
    out[k].lo = static_cast<double>(w - static_cast<__float128>(out[k].hi));
  }
  return out;
}

}  // namespace pev::core::precise
