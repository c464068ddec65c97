#include "reports/verify.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "properties/under_test.h"

namespace pev::reports {
namespace {

// Shift cases spread over the table: positions on a log scale, offsets from 1 to 1000, pairs at
// both ends of the frequency range and in the middle.
std::vector<properties::ShiftCase> shift_cases(const TableSpec& spec, uint64_t rows) {
  std::vector<properties::ShiftCase> cases;
  const int pairs = spec.d_model / 2;
  const int pair_choices[] = {0, 1, pairs / 4, pairs / 2, pairs - 2, pairs - 1};
  for (const uint64_t m : {1ull, 2ull, 7ull, 64ull, 1000ull}) {
    if (m >= rows) continue;
    for (uint64_t i = 0; i < 48; ++i) {
      // pos + m must be a row of the table.
      const double span = static_cast<double>(rows - m);
      const uint64_t offset = static_cast<uint64_t>(std::pow(span, i / 47.0)) - 1;
      const uint64_t pos = spec.start + std::min<uint64_t>(offset, rows - m - 1);
      for (const int k : pair_choices)
        if (k >= 0 && k < pairs) cases.push_back({pos, m, k});
    }
  }
  return cases;
}

}  // namespace

nlohmann::json rope_json(const TableSpec& spec) {
  const RopeScaling& r = spec.rope;
  nlohmann::json j = {{"rope_type", name_of(r.type)}, {"attention_factor", attention_factor(spec)}};
  if (is_plain(spec)) return j;
  j["factor"] = r.factor;
  if (r.original_max_position) j["original_max_position_embeddings"] = r.original_max_position;
  if (r.max_position) j["max_position_embeddings"] = r.max_position;
  if (needs_sequence_length(r)) j["sequence_length"] = r.sequence_length;
  switch (r.type) {
    case RopeType::kYarn: {
      const rope_double::YarnRange range = rope_double::yarn_range(r, spec.base, spec.d_model);
      j["beta_fast"] = r.beta_fast;
      j["beta_slow"] = r.beta_slow;
      j["truncate"] = r.truncate;
      j["correction_range"] = {range.low, range.high};
      if (r.mscale) j["mscale"] = *r.mscale;
      if (r.mscale_all_dim) j["mscale_all_dim"] = *r.mscale_all_dim;
      break;
    }
    case RopeType::kLlama3:
      j["low_freq_factor"] = r.low_freq_factor;
      j["high_freq_factor"] = r.high_freq_factor;
      break;
    case RopeType::kLongRope:
      j["factor_list"] = r.sequence_length > r.original_max_position ? "long" : "short";
      break;
    default:
      break;
  }
  return j;
}

bool VerifyResult::holds() const {
  return std::all_of(verdicts.begin(), verdicts.end(),
                     [](const properties::Verdict& v) { return v.holds; });
}

std::vector<measure::RowBlock> stratified_blocks(uint64_t rows) {
  const uint64_t head = std::min<uint64_t>(rows, 4096);
  std::vector<measure::RowBlock> blocks = {{0, head}};
  if (rows <= head) return blocks;
  for (const measure::RowBlock& b :
       measure::log_spaced_blocks(head, rows - 16, 63, 16, /*include_lo=*/true))
    blocks.push_back(b);
  return blocks;
}

VerifyResult verify_table(TableInput table, const VerifyOptions& options) {
  VerifyResult r;
  r.table = table.name;
  r.description = table.description;
  r.spec = options.spec;
  r.budget = options.budget;
  const TableSpec& spec = options.spec;
  const uint64_t rows = table.rows;
  const uint64_t width = static_cast<uint64_t>(table_width(spec));
  const auto ut = properties::loaded_table(table.name, table.dtype, options.budget, spec, rows,
                                           std::move(table.values));
  r.verdicts.push_back(properties::check_bounded(*ut, spec, rows));
  r.verdicts.push_back(properties::check_unique(*ut, spec, rows));
  if (holds_sin_and_cos(spec.layout)) {
    r.verdicts.push_back(properties::check_shift(*ut, spec, shift_cases(spec, rows)));
  } else {
    properties::Verdict na;
    na.property = "shift";
    na.summary = "not applicable: a cache of one function holds no (sin, cos) pairs to rotate";
    r.verdicts.push_back(na);
  }
  std::vector<uint64_t> positions;
  for (uint64_t p : properties::growth_positions(spec.start + rows - 1))
    if (p >= spec.start) positions.push_back(p);
  r.verdicts.push_back(properties::check_growth(*ut, spec, positions));
  if (rows * width <= options.exhaustive_limit) {
    r.verdicts.push_back(properties::check_oracle(*ut, spec, rows));
    r.oracle_coverage = "exhaustive: every one of " + std::to_string(rows * width) + " elements";
  } else {
    std::vector<properties::Verdict> parts;
    uint64_t sampled_rows = 0;
    for (const auto& [first, n] : stratified_blocks(rows)) {
      TableSpec part = spec;
      part.start = spec.start + first;
      parts.push_back(properties::check_oracle(*ut, part, n));
      sampled_rows += n;
    }
    r.verdicts.push_back(properties::merge(parts));
    r.oracle_coverage = "stratified: " + std::to_string(sampled_rows) + " of " +
                        std::to_string(rows) +
                        " rows (the first 4096 whole, then blocks of 16 on a log scale), every "
                        "column";
  }
  return r;
}

nlohmann::json to_json(const VerifyResult& r) {
  nlohmann::json j;
  j["table"] = r.table;
  j["description"] = r.description;
  j["spec"] = {{"d_model", r.spec.d_model},
               {"base", r.spec.base},
               {"schedule", name_of(r.spec.schedule)},
               {"layout", name_of(r.spec.layout)},
               {"start", r.spec.start},
               {"rope", rope_json(r.spec)}};
  j["budget"] = r.budget.describe();
  j["holds"] = r.holds();
  j["oracle_coverage"] = r.oracle_coverage;
  j["properties"] = nlohmann::json::array();
  for (const properties::Verdict& v : r.verdicts) {
    nlohmann::json worst = nlohmann::json::array();
    for (const properties::Finding& f : v.worst)
      worst.push_back({{"pos", f.pos},
                       {"dim", f.column},
                       {"got", f.got},
                       {"expected", f.expected},
                       {"abs_error", f.error},
                       {"ulp_error", f.ulp},
                       {"budget", f.allowed},
                       {"what", f.what}});
    nlohmann::json figures = nlohmann::json::object();
    for (const auto& [k, x] : v.figures)
      figures[k] = std::isfinite(x) ? nlohmann::json(x) : nullptr;
    j["properties"].push_back({{"property", v.property},
                               {"holds", v.holds},
                               {"summary", v.summary},
                               {"checked", v.checked},
                               {"figures", figures},
                               {"worst", worst}});
  }
  return j;
}

std::string to_text(const VerifyResult& r) {
  std::string out =
      fmt::format("{}: {} read as {}, d_model {}, base {:g}, {}, positions {}..; budget {}\n",
                  r.table, r.description, name_of(r.spec.layout), r.spec.d_model, r.spec.base,
                  is_plain(r.spec) ? std::string(name_of(r.spec.schedule)) + " schedule"
                                   : "rotary " + describe(r.spec.rope),
                  r.spec.start, r.budget.describe());
  for (const properties::Verdict& v : r.verdicts)
    out += fmt::format("  {:<8} {:<5} {}\n", v.property, v.holds ? "holds" : "FAILS", v.summary);
  out += "  oracle coverage: " + r.oracle_coverage + "\n";
  for (const properties::Verdict& v : r.verdicts) {
    if (v.holds || v.worst.empty()) continue;
    out += "worst elements (" + v.property + "):\n";
    for (const properties::Finding& f : v.worst) {
      if (v.property == "unique") {  // a repeated row has no numeric error to show
        out += fmt::format("  pos {}: {}\n", f.pos, f.what);
        continue;
      }
      out += fmt::format(
          "  pos {} dim {}: got {:.9g}, exact {:.9g}, abs error {:.3g}, {:.3g} ulp, budget {:.3g} "
          "({})\n",
          f.pos, f.column, f.got, f.expected, f.error, f.ulp, f.allowed, f.what);
    }
  }
  int failing = 0;
  for (const properties::Verdict& v : r.verdicts) failing += !v.holds;
  out += failing ? fmt::format("verdict: FAIL ({} of {} properties)\n", failing, r.verdicts.size())
                 : std::string("verdict: PASS\n");
  return out;
}

}  // namespace pev::reports
