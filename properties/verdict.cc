// What the checks share: merging verdicts of one property over several tables, and where a
// pair's sin and cos sit in a row.
#include <algorithm>
#include <cmath>

#include "peverify/properties/check_util.h"
#include "peverify/properties/checks.h"

namespace pev::properties {

namespace internal {

std::vector<PairColumns> pair_columns(const TableSpec& spec) {
  std::vector<PairColumns> p(spec.d_model / 2);
  for (int c = table_width(spec) - 1; c >= 0; --c) {
    const Column col = column_at(spec, c);
    (col.is_sin ? p[col.pair].sin : p[col.pair].cos) = c;
  }
  return p;
}

}  // namespace internal

PropertyVerdict merge(const std::vector<PropertyVerdict>& parts) {
  PropertyVerdict v = parts.front();
  v.worst.clear();
  v.checked = 0;
  std::map<std::string, double> figures;
  for (const PropertyVerdict& p : parts) {
    if (!p.holds && v.holds) v.summary = p.summary;
    v.holds = v.holds && p.holds;
    v.checked += p.checked;
    for (const Finding& f : p.worst) measure::keep_worst(v.worst, f);
    for (const auto& [name, value] : p.figures) {
      auto [it, fresh] = figures.emplace(name, value);
      if (fresh) continue;
      if (name == "violations" || name == "nan_inf" || name == "sum_abs" ||
          name == "duplicate_rows")
        it->second += value;
      else if (name == "nearest_neighbour_distance" || name.rfind("first_", 0) == 0)
        it->second = std::min(it->second, value);  // the nearest, the first of all parts
      else
        it->second = std::max(it->second, value);
    }
  }
  if (figures.count("sum_abs") && v.checked)
    figures["mean_abs"] = figures["sum_abs"] / static_cast<double>(v.checked);
  v.figures = figures;
  return v;
}

}  // namespace pev::properties
