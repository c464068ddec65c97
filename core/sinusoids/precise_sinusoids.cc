// Our precise strategy for the sinusoidal tables at any real position: the frequency in
// double-double from __float128 (libquadmath's powq, as core/precise/frequencies.cc), the scale
// folded into it exactly (TwoProd), and sin and cos of x * w by core/precise/direct-inl.h's
// DirectSinCos, rounded once to the output. Its bound holds for any double x (it uses only
// |x| w): |y - v| <= 4u |v| + |x| w (e_w + 2^-102.3) + 2^-102.6 with e_w <= 2^-104 here, so
// below angles of 2^30 the value rounded once to float32 is faithful wherever |v| >= 2^-48, for
// exponents |n/m| <= 1 (every preset's; a custom shift near h makes them larger and e_w with them).
// One lane of Highway's static target (these tables are small: a few hundred thousand values).
#include <quadmath.h>

#include <cmath>

#include "hwy/highway.h"
#include "peverify/core/precise/direct-inl.h"
#include "peverify/core/sinusoids/sinusoid_registry.h"

namespace pev::core {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
namespace direct = precise::HWY_NAMESPACE;

struct Frequency {
  double hi = 0, lo = 0;
};

// scale * base^(numerator/denominator) as hi + lo: the power in __float128 (relative error
// ~2^-108 with the exponent's rounding times |e ln b|), times scale exactly (TwoProd) plus the
// low part's product (one more rounding of 2^-106 relative).
Frequency scaled_frequency(const SinusoidFrequency& f, double scale) {
  const __float128 e = static_cast<__float128>(f.numerator) / f.denominator;
  const __float128 w = powq(static_cast<__float128>(f.base), e);
  const double hi = static_cast<double>(w);
  const double lo = static_cast<double>(w - hi);
  const double p = scale * hi;
  const double pe = std::fma(scale, hi, -p);
  const double tail = pe + scale * lo;
  const double s = p + tail;
  return {s, tail - (s - p)};
}

void fill_precise(const SinusoidImplementation& self, const SinusoidTable& t,
                  const AxisPositions& p, void* out) {
  std::vector<Frequency> w;
  for (const SinusoidFrequency& f : t.frequencies) w.push_back(scaled_frequency(f, t.scale));
  const hn::CappedTag<double, 1> d;
  fill_by_frequency(self, t, p, out, [&](int k, double x, double& sin_v, double& cos_v) {
    // sin is odd and cos even: DirectSinCos takes |x| and |scale w| (its bound is for x >= 0,
    // and its "huge" second reduction is for angles, w up to 1 there, from 2^45), and the sign
    // of the angle goes back on sin, -0 included.
    const Frequency& f = w[static_cast<size_t>(k)];
    const double ax = std::fabs(x);
    hn::Vec<decltype(d)> s, c;
    direct::DirectSinCos(d, hn::Set(d, ax), hn::Set(d, std::fabs(f.hi)),
                         hn::Set(d, f.hi < 0 ? -f.lo : f.lo),
                         ax * std::fabs(f.hi) >= direct::kHugePosition, s, c);
    const bool negative = std::signbit(x) != std::signbit(f.hi);
    sin_v = negative ? -hn::GetLane(s) : hn::GetLane(s);
    cos_v = hn::GetLane(c);
  });
}

}  // namespace

std::vector<SinusoidImplementation> precise_sinusoid_entries() {
  std::vector<SinusoidImplementation> v;
  for (const auto& [name, output] : {std::pair{"cpu/precise/f64>f32", Dtype::kFloat32},
                                     std::pair{"cpu/precise/f64>bf16", Dtype::kBFloat16},
                                     std::pair{"cpu/precise/f64>f16", Dtype::kFloat16}})
    v.push_back({name, "", Dtype::kFloat64, output, Claim::faithful(),
                 "ours: double-double frequencies and angle, rounded once (faithful)",
                 fill_precise});
  return v;
}

}  // namespace pev::core
