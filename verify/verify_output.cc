// verify's results for people (text) and programs (JSON).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "peverify/measure/error.h"
#include "peverify/properties/accumulators.h"
#include "peverify/support/json_number.h"
#include "peverify/verify/diagnosis.h"
#include "peverify/verify/verify.h"

namespace pev::verify {
namespace {

nlohmann::json position_or_null(uint64_t p) {
  return p == measure::Figures::kNone ? nlohmann::json(nullptr) : nlohmann::json(p);
}

// The vacuous-budget figures (docs/mathematics.md §3.4) and the claims that would check them.
nlohmann::json vacuous_json(const VerifyResult& r) {
  nlohmann::json j = nlohmann::json::array();
  for (int i = 0; i < 2; ++i)
    j.push_back({{"budget_at_least", claim_constants().vacuous_budget[i]},
                 {"elements", r.oracle.vacuous[i]},
                 {"from_position", position_or_null(r.oracle.first_vacuous_pos[i])}});
  return j;
}

// What a finding's `expected` is, by the property that made it: the exact value (oracle, growth,
// consistent), what the shift identities predict from the table's own rows, or the limit a value
// or sin^2 + cos^2 is held to (bounded), or the other copy of a value the layout stores twice.
std::string_view expected_label(const std::string& property, const properties::Finding& f) {
  if (property == "shift") return "predicted";
  if (property == "bounded") return properties::names_differing_copy(f) ? "copy" : "limit";
  return "exact";
}

// "pos 4242", or "row 17 pos 4242" for a table at given position ids, "row 17 pos 4242 (h)" where
// the row's M-RoPE streams differ: the stream whose position the element's angle is of.
std::string where(const properties::Finding& f) {
  const std::string stream =
      f.stream >= 0 ? fmt::format(" ({})", measure::stream_name(f.stream)) : "";
  return f.row ? fmt::format("row {} pos {}{}", *f.row, f.pos, stream)
               : fmt::format("pos {}", f.pos);
}

// The worst elements of the failing properties, each element once, with every property that
// named it and what that property allowed. A value the layout stores twice (rope-cos-dup's
// halves) is one line for both copies when they agree ("dims 35, 99").
std::string worst_elements_text(const VerifyResult& r) {
  struct Line {
    properties::Finding first;
    std::string_view label;
    std::vector<int> dims;
    std::vector<std::string> verdicts;
  };
  std::vector<std::pair<std::string, Line>> lines;  // keyed, in order of first appearance
  std::vector<std::string> repeats;                 // unique's lines, which have no dims
  const int half = r.spec.d_model / 2;
  for (const properties::PropertyVerdict& v : r.verdicts) {
    if (v.holds) continue;
    for (const properties::Finding& f : v.worst) {
      if (v.property == "unique") {  // a repeated row has no numeric error to show
        repeats.push_back(fmt::format("  {}: {}", where(f), f.what));
        continue;
      }
      const std::string_view label = expected_label(v.property, f);
      const Column value = pair_of_column(r.spec.layout, half, f.column);
      const std::string key =
          fmt::format("{} {} {} {} {:a} {:a} {}", f.row.value_or(UINT64_MAX), f.pos, value.pair,
                      value.is_sin, f.got, f.expected, label);
      auto it =
          std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first == key; });
      if (it == lines.end()) {
        lines.push_back({key, {f, label, {}, {}}});
        it = lines.end() - 1;
      }
      Line& line = it->second;
      if (std::find(line.dims.begin(), line.dims.end(), f.column) == line.dims.end())
        line.dims.push_back(f.column);
      // NaN and Inf have no error to compare: the property and the category alone.
      const std::string verdict =
          std::isfinite(f.got) ? fmt::format("{} allows {:.3g} ({})", v.property, f.allowed, f.what)
                               : fmt::format("{} ({})", v.property, f.what);
      if (std::find(line.verdicts.begin(), line.verdicts.end(), verdict) == line.verdicts.end())
        line.verdicts.push_back(verdict);
    }
  }
  if (lines.empty() && repeats.empty()) return "";
  std::string out = "worst elements:\n";
  for (const std::string& repeat : repeats) out += repeat + "\n";
  for (auto& [key, line] : lines) {
    const properties::Finding& f = line.first;
    std::sort(std::next(line.dims.begin()), line.dims.end());
    out += fmt::format("  {} dim{} {}: ", where(f), line.dims.size() > 1 ? "s" : "",
                       fmt::join(line.dims, ", "));
    if (!std::isfinite(f.got))
      out += fmt::format("got {}{}",
                         std::isnan(f.got) ? "NaN"
                         : f.got > 0       ? "+Inf"
                                           : "-Inf",
                         std::isfinite(f.expected) && line.label == "exact"
                             ? fmt::format(", exact {:.9g}", f.expected)
                             : "");
    else
      out += fmt::format("got {:.9g} ({:a}), {} {:.9g}, abs error {:.3g}", f.got, f.got, line.label,
                         f.expected, f.error);
    if (std::isfinite(f.got) && line.label == "exact")  // floored as the report's (§4)
      out += fmt::format(" ({:.3g} ulp)", f.ulp);
    if (!line.verdicts.empty()) out += "; " + fmt::format("{}", fmt::join(line.verdicts, "; "));
    out += "\n";
  }
  return out;
}

}  // namespace

nlohmann::json rope_json(const TableSpec& spec) {
  const RopeScaling& r = spec.rope;
  nlohmann::json j = {{"rope_type", name_of(r.type)}, {"attention_factor", attention_factor(spec)}};
  if (!r.mrope_section.empty()) {
    j["mrope_section"] = r.mrope_section;
    j["mrope_interleaved"] = r.mrope_interleaved;
  }
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
    case RopeType::kProportional:
      j["partial_rotary_factor"] = r.partial_rotary_factor;
      j["rotated_pairs"] = rotated_pairs(r, spec.d_model);
      break;
    default:
      break;
  }
  return j;
}

nlohmann::json claim_json(const Claim& claim) {
  nlohmann::json j = {{"kind", name_of(claim.kind)}, {"describe", claim.describe()}};
  if (claim.kind == Claim::Kind::kModel) {
    j["c"] = claim.c;
    j["u"] = claim.u;
    j["output_ulps"] = claim.output_ulps;
  } else {
    j["judged_by"] = "encoding, against the correctly rounded values";
  }
  return j;
}

nlohmann::json to_json(const VerifyResult& r) {
  nlohmann::json j;
  j["table"] = r.table;
  j["description"] = r.description;
  j["dtype"] = name_of(r.dtype);
  j["spec"] = {{"d_model", r.spec.d_model},
               {"base", r.spec.base},
               {"schedule", name_of(r.spec.schedule)},
               {"layout", name_of(r.spec.layout)},
               {"start", r.spec.start},
               {"rope", rope_json(r.spec)}};
  // Only for a table at position ids (a null would read as a float that is not finite).
  if (!r.positions.empty()) j["spec"]["positions"] = r.positions;
  j["source"] = r.source;
  j["budget"] = r.claim.describe();
  j["claim"] = claim_json(r.claim);
  j["holds"] = r.holds();
  j["oracle_coverage"] = r.oracle_coverage;
  const measure::Figures& f = r.oracle;
  j["elements"] = f.elements;
  j["outside_budget"] = {{"total", f.over_claim},
                         {"nan", f.nan},
                         {"inf", f.inf},
                         {"sign", f.failed_sign},
                         {"numeric", f.failed_value}};
  j["sign_mismatches"] = f.sign_mismatch;
  j["vacuous_budget"] = vacuous_json(r);
  j["seconds"] = nlohmann::json::object();
  for (const auto& [stage, s] : r.seconds) j["seconds"][stage] = s;
  if (r.diagnosis) j["diagnosis"] = to_json(*r.diagnosis);
  j["properties"] = nlohmann::json::array();
  for (const properties::PropertyVerdict& v : r.verdicts) {
    nlohmann::json worst = nlohmann::json::array();
    for (const properties::Finding& x : v.worst) {
      worst.push_back({{"pos", x.pos},
                       {"dim", x.column},
                       {"got", finite_or_null(x.got)},
                       {"expected", finite_or_null(x.expected)},
                       {"abs_error", finite_or_null(x.error)},
                       {"ulp_error", finite_or_null(x.ulp)},  // floored (docs/mathematics.md §4)
                       {"budget", x.allowed},
                       {"what", x.what}});
      if (x.row) worst.back()["row"] = *x.row;  // a table at position ids: the file's row
      if (x.stream >= 0) worst.back()["stream"] = measure::stream_name(x.stream);
    }
    nlohmann::json figures = nlohmann::json::object();
    for (const auto& [k, x] : v.figures) figures[k] = finite_or_null(x);
    j["properties"].push_back({{"property", v.property},
                               {"holds", v.holds},
                               {"summary", v.summary},
                               {"notes", v.notes},
                               {"checked", v.checked},
                               {"figures", figures},
                               {"worst", worst}});
  }
  return j;
}

namespace {

// Where a passing table's error stands, said first: a PASS under a model claim at long context
// admits errors many times what float32 arithmetic needs (llama.cpp's recurrence, issue 51), and
// only the fitted C beside float32 at its best says so.
std::string standing_text(const VerifyResult& r) {
  if (!r.holds()) return "";
  const auto growth = std::find_if(r.verdicts.begin(), r.verdicts.end(),
                                   [](const auto& v) { return v.property == "growth"; });
  if (growth == r.verdicts.end()) return "";
  const auto fitted = growth->figures.find("fitted_c");
  const auto best = growth->figures.find("float32_best_c");
  if (fitted == growth->figures.end() || best == growth->figures.end()) return "";
  return fmt::format(
      "  error      fitted C = {:.3g} of the claim's {:.3g}; float32 at its best on this recipe "
      "(frequency, position and angle each rounded once) has C = {:.3g}{}\n",
      fitted->second, r.claim.c, best->second,
      best->second > 0 && fitted->second > 2 * best->second
          ? fmt::format(": this table's error is {:.3g}x that", fitted->second / best->second)
          : "");
}

}  // namespace

std::string to_text(const VerifyResult& r) {
  std::string out =
      fmt::format("{}: {} read as {}, d_model {}, base {:g}, {}, {}{}; budget {}\n", r.table,
                  r.description, name_of(r.spec.layout), r.spec.d_model, r.spec.base,
                  is_plain(r.spec) && r.spec.rope.mrope_section.empty()
                      ? std::string(name_of(r.spec.schedule)) + " schedule"
                      : "rotary " + describe(r.spec.rope),
                  r.positions.empty() ? fmt::format("positions {}..", r.spec.start) : r.positions,
                  r.source.empty() ? "" : "; from " + r.source, r.claim.describe());
  out += standing_text(r);
  for (const properties::PropertyVerdict& v : r.verdicts) {
    out += fmt::format("  {:<10} {:<5} {}\n", v.property, v.holds ? "holds" : "FAILS", v.summary);
    for (const std::string& note : v.notes) out += fmt::format("  {:<16} note: {}\n", "", note);
  }
  out += "  oracle coverage: " + r.oracle_coverage + "\n";
  out += worst_elements_text(r);
  if (r.diagnosis) out += to_text(*r.diagnosis) + "\n";
  int failing = 0;
  for (const properties::PropertyVerdict& v : r.verdicts) failing += !v.holds;
  out += failing ? fmt::format("verdict: FAIL ({} of {} properties)\n", failing, r.verdicts.size())
                 : std::string("verdict: PASS\n");
  return out;
}

}  // namespace pev::verify
