#include "peverify/encoding/sinusoids/table.h"

#include <cmath>

namespace pev {

double SinusoidFrequency::value() const {
  return std::pow(base, static_cast<double>(numerator) / static_cast<double>(denominator));
}

double sinusoid_angle(const SinusoidTable& t, const SinusoidColumn& c, double x) {
  if (c.wave == Wave::kZero) return 0;
  return t.scale * (x * t.frequencies[static_cast<size_t>(c.frequency)].value());
}

}  // namespace pev
