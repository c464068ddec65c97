#include "peverify/properties/consistent.h"

#include <fmt/format.h>

#include "peverify/oracle/engine.h"
#include "peverify/oracle/table.h"
#include "peverify/properties/check_util.h"

namespace pev::properties {

PropertyVerdict ConsistentCheck::verdict(const measure::ConsistencyFigures& f) const {
  const ClaimConstants::Consistency& rule = claim_constants().consistency;
  const Dtype output = ut_.output();
  PropertyVerdict v;
  v.property = "consistent";
  v.checked = f.judged;
  v.holds = f.inconsistent == 0;
  v.figures["inconsistent"] = static_cast<double>(f.inconsistent);
  v.figures["worst_ratio"] = f.worst_ratio;
  v.figures["factor"] = rule.factor;
  if (f.inconsistent)
    v.figures["first_failure"] = static_cast<double>(
        map_ ? map_->position(f.first_inconsistent - spec_.start) : f.first_inconsistent);
  const int window = rule.group_rows * rule.groups_each_side;
  const std::string rule_text = fmt::format(
      "error above {:g}x the second largest of the others within {}-{} rows in its column, and "
      "above {:g} ulps",
      rule.factor, window, window + rule.group_rows - 1,
      rule.resolution_ulps[static_cast<size_t>(output)]);
  if (f.judged == 0) {
    v.summary = map_ ? fmt::format(
                           "not applicable: no run of consecutive positions longer than "
                           "{} rows to give an element a window on both sides (the "
                           "oracle judged every element)",
                           2 * window)
                     : "not applicable: fewer than 3 rows hold no second largest error to compare "
                       "with";
  } else if (!v.holds) {
    v.summary = fmt::format("{} of {} elements stand out from their column ({}), the first at {}",
                            f.inconsistent, f.judged, rule_text,
                            map_ ? map_->name(f.first_inconsistent - spec_.start)
                                 : fmt::format("position {}", f.first_inconsistent));
  } else {
    const std::string margin = f.worst_ratio >= 2
                                   ? fmt::format("largest error / envelope {:.2g}", f.worst_ratio)
                                   : std::string("every error within 2x its envelope");
    v.summary =
        fmt::format("every one of {} elements fits its column's own errors ({}, fails above {:g})",
                    f.judged, margin, rule.factor);
  }
  if (f.not_numbers)
    v.notes.push_back(
        fmt::format("{} elements are NaN or Inf: not compared with their column "
                    "(bounded and the oracle fail them)",
                    f.not_numbers));
  if (f.unjudged && f.judged)
    v.notes.push_back(
        map_ ? fmt::format("{} elements not compared: within {} rows of either end of their run "
                           "of consecutive positions (ids within 1 of the previous row's in "
                           "position order), where no window reaches both sides; the oracle "
                           "judged them",
                           f.unjudged, window)
             : fmt::format("{} elements not compared: a table of fewer than 3 rows has no second "
                           "largest error to compare them with",
                           f.unjudged));
  // The worst elements with their values: one row of the table and of the oracle each.
  const auto engine = oracle::make_fast_engine(spec_, Dtype::kFloat64);
  for (Finding x : f.worst) {
    TableSpec row = spec_;
    row.start = x.pos;
    x.got = ut_.rows(row, 1).at(static_cast<size_t>(x.column));
    if (map_) {  // index space: the row's own positions
      x.expected = map_->exact_row(x.pos - spec_.start).at(static_cast<size_t>(x.column));
      x = map_->located(Finding{x.pos - spec_.start, x.column, x.got, x.expected, x.error,
                                x.allowed, x.ulp, x.what});
    } else {
      x.expected =
          oracle::compute_table(*engine, row, 1, 1).exact.at(static_cast<size_t>(x.column));
    }
    x.ulp = measure::floored_ulps(x.error, x.expected, output);
    v.worst.push_back(x);
  }
  return v;
}

PropertyVerdict check_consistent(const UnderTest& ut, const TableSpec& spec, uint64_t count) {
  const int width = table_width(spec);
  measure::ConsistencyRun run(ut.output(), width, 0, spec.start);
  internal::for_each_chunk(ut, spec, count,
                           [&](uint64_t first, const std::vector<double>& rows, uint64_t n) {
                             TableSpec part = spec;
                             part.start = spec.start + first;
                             const std::vector<double> exact = oracle::exact_values(part, n);
                             run.add(rows.data(), exact.data(), n, true);
                           });
  run.finish();
  return ConsistentCheck(ut, spec).verdict(run.figures());
}

}  // namespace pev::properties
