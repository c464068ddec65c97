#include "peverify/reports/gate/gate_element.h"

#include <fmt/format.h>

#include <cmath>

namespace pev::reports {

// The element a regression of `figure` comes from: every element of the band scanned again (a
// failure is rare, so the measuring pass keeps no positions), the largest by that figure.
measure::Finding largest_element(const std::function<void(const BlockVisitor&)>& for_each_block,
                                 const measure::Judge& judge,
                                 const std::function<double(uint64_t)>& steps,
                                 double BandFigures::*figure, double record) {
  const int width = judge.width();
  measure::Finding worst;
  double worst_value = -1;
  for_each_block([&](uint64_t first, uint64_t n, const double* got, const double* exact) {
    for (uint64_t r = 0; r < n; ++r)
      for (int c = 0; c < width; ++c) {
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
  worst.what = figure == &BandFigures::max_abs   ? "the largest abs error, above the record"
               : figure == &BandFigures::max_ulp ? "the largest ulp error, above the record"
                                                 : "the largest error / budget, above the record";
  return worst;
}

std::string describe_element(const measure::Finding& f) {
  return fmt::format(
      "{}position {}, column {}: value {:.9g}, exact {:.9g}, error {:.3g} ({:.3g} ulp), allowed "
      "{:.3g} ({})",
      f.row ? fmt::format("row {} at ", *f.row) : "", f.pos, f.column, f.got, f.expected, f.error,
      f.ulp, f.allowed, f.what);
}

}  // namespace pev::reports
