#include "peverify/support/spread.h"

#include <algorithm>

namespace pev {

Spread spread_of(std::vector<double> samples) {
  Spread s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  return s;
}

nlohmann::json to_json(const Spread& s) {
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}};
}

}  // namespace pev
