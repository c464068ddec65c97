#include "peverify/verify/sinusoids/exact_values.h"

#include <algorithm>
#include <cmath>

#include "peverify/support/parallel.h"

namespace pev::verify::sinusoids {
namespace {

bool before(double a, double b) { return a < b || (a == b && std::signbit(a) && !std::signbit(b)); }
bool same(double a, double b) { return a == b && std::signbit(a) == std::signbit(b); }

}  // namespace

size_t DistinctPositions::index_of(double x) const {
  return static_cast<size_t>(std::lower_bound(values.begin(), values.end(), x, before) -
                             values.begin());
}

DistinctPositions distinct_positions(const std::vector<double>& xs) {
  DistinctPositions d{xs, {}};
  std::sort(d.values.begin(), d.values.end(), before);
  d.values.erase(std::unique(d.values.begin(), d.values.end(), same), d.values.end());
  d.index.reserve(xs.size());
  for (const double x : xs) d.index.push_back(static_cast<uint32_t>(d.index_of(x)));
  return d;
}

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
      axis.positions = distinct_positions(xs);
      axis.by_row = true;
    } else {
      std::vector<double> given;
      for (const uint64_t r : rows) given.push_back(xs[r]);
      axis.positions = distinct_positions(given);
    }
    axis.local.assign(table.frequencies.size(), -1);
    for (const SinusoidColumn& c : table.columns)
      if (c.axis == a && c.wave != Wave::kZero &&
          axis.local[static_cast<size_t>(c.frequency)] < 0) {
        axis.local[static_cast<size_t>(c.frequency)] = static_cast<int>(axis.frequencies.size());
        axis.frequencies.push_back(c.frequency);
      }
    const size_t nf = axis.frequencies.size();
    const std::vector<double>& distinct = axis.positions.values;
    axis.values.resize(distinct.size() * nf);
    parallel_for(distinct.size(), threads, [&](uint64_t i) {
      for (size_t f = 0; f < nf; ++f)
        axis.values[i * nf + f] = oracle.evaluate(distinct[i], axis.frequencies[f]);
    });
  }
}

ExactValues::Value ExactValues::at(uint64_t row, int column, Dtype format) const {
  const SinusoidColumn& c = table_.columns[static_cast<size_t>(column)];
  if (c.wave == Wave::kZero) return {0.0, 0.0, true};
  const Axis& axis = axes_[static_cast<size_t>(c.axis)];
  const double x = positions_.axes[static_cast<size_t>(c.axis)][row];
  const size_t i = axis.by_row ? axis.positions.index[row] : axis.positions.index_of(x);
  const oracle::SinCos& v =
      axis.values[i * axis.frequencies.size() +
                  static_cast<size_t>(axis.local[static_cast<size_t>(c.frequency)])];
  const bool is_sin = c.wave == Wave::kSin;
  return {is_sin ? v.sin_exact : v.cos_exact, is_sin ? v.sin_in(format) : v.cos_in(format),
          x == 0 || table_.scale * x == 0,
          table_.scale * (x * w_[static_cast<size_t>(c.frequency)])};
}

}  // namespace pev::verify::sinusoids
