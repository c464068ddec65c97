#include "peverify/reports/sinusoids/exact_values.h"

#include <algorithm>
#include <cmath>

#include "peverify/support/parallel.h"

namespace pev::reports::sinusoids {
namespace {

// Positions by value, -0 before +0: sin(-0 w) is -0, so the two zeros are distinct positions.
bool before(double a, double b) { return a < b || (a == b && std::signbit(a) && !std::signbit(b)); }
bool same(double a, double b) { return a == b && std::signbit(a) == std::signbit(b); }

}  // namespace

ExactValues::ExactValues(const SinusoidTable& table, const AxisPositions& positions, Dtype target,
                         int threads, const std::vector<uint64_t>& rows)
    : table_(table),
      target_(target),
      positions_(positions),
      axes_(static_cast<size_t>(table.axes)) {
  const oracle::SinusoidOracle oracle(table);
  for (const SinusoidFrequency& f : table.frequencies) w_.push_back(f.value());
  for (int a = 0; a < table.axes; ++a) {
    Axis& axis = axes_[static_cast<size_t>(a)];
    const std::vector<double>& xs = positions.axes[static_cast<size_t>(a)];
    if (rows.empty()) {
      axis.distinct = xs;
    } else {
      for (const uint64_t r : rows) axis.distinct.push_back(xs[r]);
    }
    std::sort(axis.distinct.begin(), axis.distinct.end(), before);
    axis.distinct.erase(std::unique(axis.distinct.begin(), axis.distinct.end(), same),
                        axis.distinct.end());
    axis.local.assign(table.frequencies.size(), -1);
    for (const SinusoidColumn& c : table.columns)
      if (c.axis == a && c.wave != Wave::kZero &&
          axis.local[static_cast<size_t>(c.frequency)] < 0) {
        axis.local[static_cast<size_t>(c.frequency)] = static_cast<int>(axis.frequencies.size());
        axis.frequencies.push_back(c.frequency);
      }
    if (rows.empty())
      for (const double x : xs)
        axis.index.push_back(static_cast<uint32_t>(
            std::lower_bound(axis.distinct.begin(), axis.distinct.end(), x, before) -
            axis.distinct.begin()));
    const size_t nf = axis.frequencies.size();
    axis.values.resize(axis.distinct.size() * nf);
    parallel_for(axis.distinct.size(), threads, [&](uint64_t i) {
      for (size_t f = 0; f < nf; ++f)
        axis.values[i * nf + f] = oracle.evaluate(axis.distinct[i], axis.frequencies[f]);
    });
  }
}

ExactValues::Value ExactValues::at(uint64_t row, int column, Dtype format) const {
  const SinusoidColumn& c = table_.columns[static_cast<size_t>(column)];
  if (c.wave == Wave::kZero) return {0.0, 0.0, true};
  const Axis& axis = axes_[static_cast<size_t>(c.axis)];
  const double x = positions_.axes[static_cast<size_t>(c.axis)][row];
  const size_t i = axis.index.empty()
                       ? static_cast<size_t>(std::lower_bound(axis.distinct.begin(),
                                                              axis.distinct.end(), x, before) -
                                             axis.distinct.begin())
                       : axis.index[row];
  const oracle::SinCos& v =
      axis.values[i * axis.frequencies.size() +
                  static_cast<size_t>(axis.local[static_cast<size_t>(c.frequency)])];
  const bool is_sin = c.wave == Wave::kSin;
  return {is_sin ? v.sin_exact : v.cos_exact, is_sin ? v.sin_in(format) : v.cos_in(format),
          x == 0 || table_.scale * x == 0,
          table_.scale * (x * w_[static_cast<size_t>(c.frequency)])};
}

}  // namespace pev::reports::sinusoids
