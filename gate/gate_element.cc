#include "peverify/gate/gate_element.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "peverify/properties/checks.h"

namespace pev::gate {

// The element a regression of `figure` comes from: every element of the band scanned again (a
// failure is rare, so the measuring pass keeps no positions), the largest by that figure.
measure::Finding largest_element(const std::function<void(const BlockVisitor&)>& for_each_block,
                                 const measure::Judge& judge,
                                 const std::function<double(uint64_t)>& steps,
                                 double BandFigures::*figure, double record, ColumnRange columns) {
  const int width = judge.width();
  const int end = columns.end < 0 ? width : std::min(columns.end, width);
  measure::Finding worst;
  double worst_value = -1;
  for_each_block([&](uint64_t first, uint64_t n, const double* got, const double* exact) {
    for (uint64_t r = 0; r < n; ++r)
      for (int c = columns.first; c < end; ++c) {
        const uint64_t pos = first + r;
        const double g = got[r * width + c], x = exact[r * width + c], e = std::fabs(g - x);
        const double value = figure == &BandFigures::max_abs ? e
                             : figure == &BandFigures::max_ulp
                                 ? measure::floored_ulps(e, x, judge.output())
                                 : e / judge.allowed(pos, c, steps(pos), x);
        if (value > worst_value) {
          worst_value = value;
          worst = {pos, c, g, x, e, record, measure::floored_ulps(e, x, judge.output()), ""};
        }
      }
  });
  if (columns.end >= 0) {
    worst.what =
        columns.end - columns.first == 1
            ? fmt::format("the largest abs error of column {}, above its record", columns.first)
            : fmt::format("the largest abs error of columns {}-{}, above their record",
                          columns.first, end - 1);
    return worst;
  }
  worst.what = figure == &BandFigures::max_abs   ? "the largest abs error, above the record"
               : figure == &BandFigures::max_ulp ? "the largest ulp error, above the record"
                                                 : "the largest error / budget, above the record";
  return worst;
}

std::string describe_element(const measure::Finding& f) {
  const std::string where = fmt::format(
      "{}position {}, column {}", f.row ? fmt::format("row {} at ", *f.row) : "", f.pos, f.column);
  // A copy that differs from its twin (bounded) has the twin's value, not an exact one.
  if (properties::names_differing_copy(f))
    return fmt::format("{}: value {:.9g}, {} holds {:.9g}", where, f.got,
                       f.what.substr(0, f.what.find(':')), f.expected);
  return fmt::format(
      "{}: value {:.9g}, exact {:.9g}, error {:.3g} ({:.3g} ulp), allowed {:.3g} ({})", where,
      f.got, f.expected, f.error, f.ulp, f.allowed, f.what);
}

}  // namespace pev::gate
