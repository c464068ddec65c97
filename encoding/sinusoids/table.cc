#include "peverify/encoding/sinusoids/table.h"

#include <cmath>

namespace pev {

double SinusoidFrequency::value() const {
  return std::pow(base, static_cast<double>(numerator) / static_cast<double>(denominator));
}

}  // namespace pev
