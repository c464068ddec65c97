// report.json from a study (docs/architecture.md §8): the canonical form every renderer reads.
#include "peverify/reports/study/report_json.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "peverify/reports/study/recommend.h"
#include "peverify/support/json_number.h"

namespace pev::reports::study {
nlohmann::json to_json(const Recommendation& r) {
  nlohmann::json j = {
      {"model", r.model.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.model)},
      {"dtype", r.dtype},
      {"context", r.context},
      {"target", r.target},
      {"implementation", r.entry.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.entry)},
      {"evidence", r.evidence}};
  if (r.pytorch)
    j["pytorch"] = {{"implementation", r.pytorch->entry},
                    {"code", r.pytorch->code},
                    {"cuda", r.pytorch->cuda},
                    {"evidence", r.pytorch->evidence},
                    {"replaces", r.pytorch->replaces}};
  return j;
}

namespace {

nlohmann::json study_config_json(const StudyConfig& c) {
  return {{"d_models", c.d_models},
          {"bases", c.bases},
          {"exhaustive_positions", c.exhaustive_positions},
          {"exhaustive_values", c.exhaustive_values},
          {"max_position", c.max_position},
          {"sampled_blocks", c.sampled_blocks},
          {"filter", c.filter},
          {"bench", c.bench},
          {"rotary_models", c.rotary_models},
          {"rotary_positions", c.rotary_positions},
          {"framework_entries", c.framework_entries},
          {"ulp_floor", kUlpFloor}};
}

nlohmann::json band_json(const Band& b) {
  return {{"first", b.first},
          {"last", b.last},
          {"elements", b.figures.elements},
          {"max_abs", finite_or_null(b.figures.max_abs_or_inf())},
          {"mean_abs", finite_or_null(b.figures.mean_abs())},
          {"max_ulp", finite_or_null(b.figures.max_ulp_or_inf())},
          {"max_ulp_floored", finite_or_null(b.max_ulp_floored)},
          {"nan_inf", b.figures.not_numbers()},
          {"over_claim", b.figures.over_claim}};
}

nlohmann::json model_result_json(const ModelResult& m) {
  return {{"model", m.model},
          {"elements", m.figures.elements},
          {"max_abs", finite_or_null(m.figures.max_abs_or_inf())},
          {"max_ulp", finite_or_null(m.figures.max_ulp_or_inf())},
          {"max_ulp_floored", finite_or_null(m.max_ulp_floored)},
          {"nan_inf", m.figures.not_numbers()},
          {"over_claim", m.figures.over_claim},
          {"horizons", m.horizons},
          {"every_row", m.every_row}};
}

// What the entry is and claims, before what was measured of it.
nlohmann::json entry_identity_json(const EntryResult& e) {
  nlohmann::json x;
  x["name"] = e.name;
  x["strategy"] = e.strategy;
  x["compute"] = e.compute;
  x["output"] = e.output;
  x["backend"] = e.backend;
  x["claim"] = e.claim;
  x["description"] = e.description;
  x["max_position"] = e.max_position;
  x["available"] = e.available;
  if (!e.available) x["unavailable_reason"] = e.unavailable_reason;
  if (!e.modelled.empty())
    x["modelled"] = {{"label", "modelled, not measured"}, {"text", e.modelled}};
  return x;
}

nlohmann::json entry_json(const EntryResult& e) {
  nlohmann::json x = entry_identity_json(e);
  x["accuracy"] = {{"max_abs", finite_or_null(e.max_abs)},
                   {"mean_abs", finite_or_null(e.mean_abs)},
                   {"max_ulp", finite_or_null(e.max_ulp)},
                   {"max_ulp_floored", finite_or_null(e.max_ulp_floored)},
                   {"elements", e.elements}};
  x["bands"] = nlohmann::json::array();
  for (const Band& b : e.bands) x["bands"].push_back(band_json(b));
  x["properties"] = nlohmann::json::array();
  for (const properties::PropertyVerdict& v : e.verdicts) {
    nlohmann::json p = {{"property", v.property}, {"holds", v.holds}, {"summary", v.summary}};
    if (const auto first = first_position(v)) p["first_position"] = *first;
    x["properties"].push_back(p);
  }
  x["fitted_c"] = finite_or_null(e.fitted_c);
  x["horizons"] = e.horizons;
  x["error_curve"] = nlohmann::json::array();
  for (const auto& [pos, err] : e.error_curve)
    x["error_curve"].push_back({pos, finite_or_null(err)});
  x["models"] = nlohmann::json::array();
  for (const ModelResult& m : e.models) x["models"].push_back(model_result_json(m));
  // The median is the figure shown; min and max are the spread the recommendation allows for.
  x["values_per_s"] = e.values_per_s ? nlohmann::json(e.values_per_s->median) : nullptr;
  x["values_per_s_min"] = e.values_per_s ? nlohmann::json(e.values_per_s->min) : nullptr;
  x["values_per_s_max"] = e.values_per_s ? nlohmann::json(e.values_per_s->max) : nullptr;
  x["roofline_ratio"] = e.roofline_ratio ? nlohmann::json(*e.roofline_ratio) : nullptr;
  return x;
}

}  // namespace

nlohmann::json to_json(const StudyResult& s) {
  nlohmann::json j;
  j["schema_version"] = kReportSchemaVersion;
  j["generator"] = "peverify report";
  j["study"] = study_config_json(s.config);
  j["models"] = nlohmann::json::array();
  for (const ModelStudy& m : s.models)
    j["models"].push_back({{"name", m.name},
                           {"rotary_dim", m.rotary_dim},
                           {"base", m.base},
                           {"recipe", m.recipe},
                           {"attention_factor", m.attention}});
  j["seconds"] = s.seconds;
  if (!s.date.empty()) j["date"] = s.date;
  if (s.bench) {
    const nlohmann::json b = bench::to_json(*s.bench);
    j["machine"] = b["machine"];
    j["roofline"] = b["roofline"];
  }
  j["implementations"] = nlohmann::json::array();
  for (const EntryResult& e : s.entries) j["implementations"].push_back(entry_json(e));
  j["recommendations"] = nlohmann::json::array();
  for (const Recommendation& r : s.recommendations) j["recommendations"].push_back(to_json(r));
  if (s.rotations) j["rotations"] = to_json(*s.rotations);
  if (s.sinusoids) j["sinusoids"] = to_json(*s.sinusoids);
  return j;
}

}  // namespace pev::reports::study
