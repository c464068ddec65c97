// oracle: every element against its exact value, within the claim.
#include <fmt/format.h>

#include "oracle/table.h"
#include "properties/check_util.h"
#include "properties/checks.h"

namespace pev::properties {

void record_oracle_figures(const measure::Figures& f, Verdict& v) {
  v.figures["max_abs"] = f.max_abs;
  v.figures["mean_abs"] = f.mean_abs();
  v.figures["sum_abs"] = f.sum_abs;
  v.figures["max_ulp"] = f.max_ulp;
  v.figures["violations"] = static_cast<double>(f.over_claim);
  v.figures["nan_inf"] = static_cast<double>(f.not_numbers());
}

Verdict check_oracle(const UnderTest& ut, const TableSpec& spec, uint64_t count) {
  Verdict v;
  v.property = "oracle";
  const int width = table_width(spec);
  const Claim claim = ut.claim();
  const measure::Judge judge(spec, claim, ut.output());
  measure::Figures f;
  internal::for_each_chunk(
      ut, spec, count, [&](uint64_t first, const std::vector<double>& got, uint64_t n) {
        TableSpec part = spec;
        part.start = spec.start + first;
        const std::vector<double> exact = oracle::exact_values(part, n);
        for (uint64_t r = 0; r < n; ++r) {
          const uint64_t pos = part.start + r;
          judge.add_row(pos, static_cast<double>(ut.steps_since_direct(pos)),
                        got.data() + r * width, exact.data() + r * width, f, &v.worst);
        }
      });
  v.checked = f.elements;
  v.holds = f.over_claim == 0;
  record_oracle_figures(f, v);
  v.summary =
      fmt::format("max abs error {:.3g}, max {:.3g} ulp; {} elements outside the budget ({})",
                  f.max_abs, f.max_ulp, f.over_claim, claim.describe());
  return v;
}

}  // namespace pev::properties
