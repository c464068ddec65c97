// oracle: every element against its exact value, within the claim.
#include <fmt/format.h>

#include "peverify/oracle/engine.h"
#include "peverify/oracle/table.h"
#include "peverify/properties/accumulators.h"

namespace pev::properties {

void record_oracle_figures(const measure::Figures& f, PropertyVerdict& v) {
  v.figures["max_abs"] = f.max_abs;
  v.figures["mean_abs"] = f.mean_abs();
  v.figures["sum_abs"] = f.sum_abs;
  v.figures["max_ulp"] = f.max_ulp;
  v.figures["max_ulp_floored"] = f.max_ulp_floored;
  v.figures["violations"] = static_cast<double>(f.over_claim);
  v.figures["nan_inf"] = static_cast<double>(f.not_numbers());
  v.figures["nan"] = static_cast<double>(f.nan);
  v.figures["inf"] = static_cast<double>(f.inf);
  v.figures["sign_mismatches"] = static_cast<double>(f.sign_mismatch);
  v.figures["failed_sign"] = static_cast<double>(f.failed_sign);
  v.figures["failed_value"] = static_cast<double>(f.failed_value);
  v.figures["worst_fraction_of_budget"] = f.worst_fraction;
  for (int i = 0; i < 2; ++i) {
    const std::string at = fmt::format("{:g}", claim_constants().vacuous_budget[i]);
    v.figures["vacuous_" + at] = static_cast<double>(f.vacuous[i]);
    if (f.vacuous[i])
      v.figures["vacuous_" + at + "_from_position"] = static_cast<double>(f.first_vacuous_pos[i]);
  }
}

std::vector<std::string> vacuous_notes(const measure::Figures& f, const Claim& claim,
                                       Dtype output) {
  if (f.vacuous[0] == 0) return {};
  const auto& at = claim_constants().vacuous_budget;
  std::string line =
      fmt::format("the budget is {:g} or more for {} of {} elements (from position {})", at[0],
                  f.vacuous[0], f.elements, f.first_vacuous_pos[0]);
  if (f.vacuous[1])
    line += fmt::format(", {:g} or more for {} (from position {})", at[1], f.vacuous[1],
                        f.first_vacuous_pos[1]);
  line +=
      ": there any value near the range passes, so those elements are checked against "
      "nothing useful";
  std::string remedy = "to check them, claim --budget faithful (under one ulp everywhere)";
  if (claim.kind == Claim::Kind::kModel && claim.u > unit_roundoff(Dtype::kFloat64)) {
    // The same model with float64's unit roundoff, at the largest angle and value in the table.
    Claim f64 = claim;
    f64.u = unit_roundoff(Dtype::kFloat64);
    const double widest = f64.allowed(1.0, f.max_weighted_angle, 0, output);
    remedy = widest < at[0] ? fmt::format(
                                  "to check them, compute in float64 and claim --compute float64 "
                                  "(its budget stays below {:.2g} on every element), or --budget "
                                  "faithful",
                                  widest)
                            : remedy;
  }
  return {line, remedy};
}

void OracleCheck::Part::merge(const Part& o) {
  figures.merge(o.figures);
  if (first_missed.empty()) first_missed.assign(o.first_missed.size(), kNoPosition);
  for (size_t t = 0; t < o.first_missed.size(); ++t)
    first_missed[t] = std::min(first_missed[t], o.first_missed[t]);
  for (const Finding& f : o.worst) measure::keep_worst(worst, f);
}

OracleCheck::OracleCheck(const UnderTest& ut, const TableSpec& spec, const PositionMap* map)
    : ut_(ut), spec_(spec), map_(map), judge_(spec, ut.claim(), ut.output()) {}

void OracleCheck::add(Part& p, uint64_t first, uint64_t n, const double* got, const double* exact,
                      const double* rounded) const {
  const uint64_t width = static_cast<uint64_t>(table_width(spec_));
  const std::vector<Target>& targets = horizon_targets();
  if (p.first_missed.empty()) p.first_missed.assign(targets.size(), kNoPosition);
  for (uint64_t r = 0; r < n; ++r) {
    const uint64_t pos = map_ ? map_->position(first + r) : spec_.start + first + r;
    double row_ulp = 0;
    const double row_abs = judge_.add_row(pos, static_cast<double>(ut_.steps_since_direct(pos)),
                                          got + r * width, exact + r * width, p.figures, &p.worst,
                                          rounded ? rounded + r * width : nullptr, &row_ulp);
    for (size_t t = 0; t < targets.size(); ++t)
      if (!(targets[t].abs > 0 ? row_abs <= targets[t].abs : row_ulp < 1))
        p.first_missed[t] = std::min(p.first_missed[t], pos);
    if (map_)  // the findings this row added are the ones without a row yet
      for (Finding& f : p.worst)
        if (!f.row) {
          f.row = map_->row(first + r);
          map_->name_stream(f);
        }
  }
}

PropertyVerdict OracleCheck::verdict(const Part& p) const {
  const measure::Figures& f = p.figures;
  const Claim claim = ut_.claim();
  PropertyVerdict v;
  v.property = "oracle";
  v.checked = f.elements;
  v.worst = p.worst;
  v.holds = f.over_claim == 0;
  record_oracle_figures(f, v);
  const bool by_encoding = claim.kind != Claim::Kind::kModel;
  v.summary = fmt::format(
      "max abs error {:.3g}, max {:.3g} ulp (of max(|exact|, 2^-10), as the report); {} of {} "
      "elements outside the budget ({}{})",
      f.max_abs, f.max_ulp_floored, f.over_claim, f.elements, claim.describe(),
      by_encoding ? ", by encoding against the correctly rounded values" : "");
  if (f.over_claim)
    v.summary += fmt::format(": {} NaN, {} Inf, {} with the wrong sign, {} numeric", f.nan, f.inf,
                             f.failed_sign, f.failed_value);
  if (f.sign_mismatch > f.failed_sign)
    v.notes.push_back(fmt::format(
        "{} elements have the sign opposite to the exact value's within the budget (it exceeds "
        "those values, so it does not fix their sign)",
        f.sign_mismatch - f.failed_sign));
  for (std::string& line : vacuous_notes(f, claim, ut_.output())) v.notes.push_back(line);
  return v;
}

PropertyVerdict check_oracle(const UnderTest& ut, const TableSpec& spec, uint64_t count) {
  const OracleCheck check(ut, spec);
  OracleCheck::Part part;
  // The engine rounds to the output format too: strict and faithful compare encodings with it.
  const auto engine = oracle::make_fast_engine(spec, ut.output());
  internal::for_each_chunk(
      ut, spec, count, [&](uint64_t first, const std::vector<double>& got, uint64_t n) {
        TableSpec part_spec = spec;
        part_spec.start = spec.start + first;
        const oracle::ExactTable exact = oracle::compute_table(*engine, part_spec, n);
        check.add(part, first, n, got.data(), exact.exact.data(), exact.rounded.data());
      });
  return check.verdict(part);
}

}  // namespace pev::properties
