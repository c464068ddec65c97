#include "peverify/reports/study/rotation_scores.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "peverify/adapters/rotation_entry.h"
#include "peverify/core/rotation/rotation_registry.h"
#include "peverify/encoding/model_presets.h"
#include "peverify/reports/study/snippets.h"
#include "peverify/support/json_number.h"

namespace pev::reports::study {
namespace {

using nlohmann::json;

RotationSpec spec_of(const std::string& model) {
  const ModelRope m = *model_preset(model);
  TableSpec t = grid_spec(m.rotary_dim, m.base);
  t.rope = m.rope;
  return {t, m.head_dim > 0 ? m.head_dim : m.rotary_dim, PairConvention::kHalves};
}

// A figure of the recommendation's words: 3 significant digits, "inf" where not finite.
std::string three_digits(double x) {
  return std::isfinite(x) ? fmt::format("{:.3g}", x) : std::string("inf");
}

// Every score of the entry within what its element budgets allow.
bool within_budget(const RotationScoreRow& r) {
  for (const properties::ScoreError& e : r.by_context)
    if (!(e.budget_ratio <= 1)) return false;
  return true;
}

// Per input type, among the entries within budget: those with the smallest worst error at the
// longest context (within 10% of it: the sampled figure does not rank closer than that), and each
// other one as a multiple.
std::vector<std::string> recommend_rotations(const RotationScores& s) {
  std::vector<std::string> out;
  for (const char* input : {"float32", "bfloat16"}) {
    double best = -1;
    for (const RotationScoreRow& r : s.rows)
      if (r.input == input && within_budget(r) && (best < 0 || r.by_context.back().max < best))
        best = r.by_context.back().max;
    if (best < 0) continue;
    std::string chosen, others;
    for (const RotationScoreRow& r : s.rows) {
      if (r.input != input || !within_budget(r)) continue;
      const double worst = r.by_context.back().max;
      if (worst <= 1.1 * best)
        chosen += (chosen.empty() ? "" : " or ") + r.name;
      else
        others += "; " + r.name + " " +
                  (best > 0 ? three_digits(worst / best) + "x that" : three_digits(worst));
    }
    out.push_back(std::string("q and k in ") + input + ": " + chosen + " (worst score error " +
                  three_digits(best) + " of A^2 |q| |k| at " + std::to_string(s.contexts.back()) +
                  " tokens)" + others);
  }
  return out;
}

}  // namespace

RotationScores study_rotation_scores(const std::string& model,
                                     const std::vector<uint64_t>& contexts, uint64_t samples) {
  if (contexts.empty() || samples == 0)
    throw std::invalid_argument("study_rotation_scores: no context or no sample");
  const auto t0 = std::chrono::steady_clock::now();
  RotationScores s;
  s.model = model;
  s.contexts = contexts;
  s.samples = samples;
  const RotationSpec spec = spec_of(model);
  uint64_t seed = 2026;
  for (const core::RotationImplementation& e : core::rotation_registry()) {
    if (!e.runs_here()) {
      s.not_run.emplace_back(e.name, e.unavailable_reason);
      continue;
    }
    RotationScoreRow row;
    row.name = e.name;
    row.compute = e.compute;
    row.input = name_of(e.input);
    row.output = name_of(e.output);
    row.description = e.description;
    // The same q, k and positions for every entry of an input type: the seed per context only.
    for (size_t i = 0; i < contexts.size(); ++i)
      row.by_context.push_back(properties::score_error(adapters::rotation_under_test(e), spec,
                                                       contexts[i], samples, seed + i));
    s.rows.push_back(std::move(row));
  }
  s.recommendations = recommend_rotations(s);
  for (const RotationScoreRow& r : s.rows)
    if (const auto snippet = rotation_snippet_of(r.name))
      for (const std::string& use : s.recommendations)
        if (use.find(r.name) != std::string::npos) {
          s.code.push_back({r.name, snippet->pytorch, snippet->cuda});
          break;
        }
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

json to_json(const RotationScores& s) {
  json j = {{"model", s.model},
            {"contexts", s.contexts},
            {"samples", s.samples},
            {"seconds", s.seconds},
            {"recommendations", s.recommendations},
            {"code", json::array()},
            {"entries", json::array()},
            {"not_run", json::array()}};
  for (const RotationScores::Code& c : s.code)
    j["code"].push_back({{"implementation", c.entry}, {"pytorch", c.pytorch}, {"cuda", c.cuda}});
  for (const RotationScoreRow& r : s.rows) {
    json by = json::array();
    for (const properties::ScoreError& e : r.by_context)
      by.push_back({{"context", e.context},
                    {"max", finite_or_null(e.max)},
                    {"median", finite_or_null(e.median)},
                    {"budget_ratio", finite_or_null(e.budget_ratio)}});
    j["entries"].push_back({{"name", r.name},
                            {"compute", r.compute},
                            {"input", r.input},
                            {"output", r.output},
                            {"description", r.description},
                            {"by_context", by}});
  }
  for (const auto& [name, why] : s.not_run)
    j["not_run"].push_back({{"name", name}, {"reason", why}});
  return j;
}

}  // namespace pev::reports::study
