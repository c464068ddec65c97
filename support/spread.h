// Repeated measurements reduced to their median and range: every timing peverify reports (the
// registry benchmarks' values/s, the verify benchmarks' seconds) is one, so a figure and its
// spread read the same way everywhere, and the recommendation's rule can ask whether two
// intervals overlap.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

namespace pev {

struct Spread {
  double median = 0, min = 0, max = 0;
};

// The median (the mean of the two middle values for an even count) and the range; all zero for
// no samples.
Spread spread_of(std::vector<double> samples);

// {"median": ..., "min": ..., "max": ...}
nlohmann::json to_json(const Spread& s);

}  // namespace pev
