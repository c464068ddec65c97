#include "reports/rotation_scores.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/rotation/rotation_registry.h"
#include "crosscheck/rotation_testutil.h"
#include "encoding/model_presets.h"
#include "reports/report_text.h"
#include "reports/verify.h"

namespace pev::reports {
namespace {

using nlohmann::json;

RotationSpec spec_of(const std::string& model) {
  const ModelRope m = *model_preset(model);
  TableSpec t = grid_spec(m.rotary_dim, m.base);
  t.rope = m.rope;
  return {t, m.head_dim > 0 ? m.head_dim : m.rotary_dim, PairConvention::kHalves};
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
        others +=
            "; " + r.name + " " +
            (best > 0 ? g3(finite_or_null(worst / best)) + "x that" : g3(finite_or_null(worst)));
    }
    out.push_back(std::string("q and k in ") + input + ": " + chosen + " (worst score error " +
                  g3(finite_or_null(best)) + " of A^2 |q| |k| at " +
                  std::to_string(s.contexts.back()) + " tokens)" + others);
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
      row.by_context.push_back(properties::score_error(crosscheck::rotation_under_test(e), spec,
                                                       contexts[i], samples, seed + i));
    s.rows.push_back(std::move(row));
  }
  s.recommendations = recommend_rotations(s);
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

json to_json(const RotationScores& s) {
  json j = {{"model", s.model},
            {"contexts", s.contexts},
            {"samples", s.samples},
            {"seconds", s.seconds},
            {"recommendations", s.recommendations},
            {"entries", json::array()},
            {"not_run", json::array()}};
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

namespace {

std::string intro(const json& s) {
  return "The error of the attention score q . k that each rotation's outputs give, against the "
         "exact score, relative to A^2 |q| |k|, on " +
         s["model"].get<std::string>() +
         "'s recipe: " + std::to_string(s["samples"].get<uint64_t>()) +
         " (query, key) pairs SAMPLED per context (the query among its last 64 positions, the key "
         "anywhere in it; q and k random in the entry's input type). \"within budget\": the worst "
         "score error over what the entry's element budgets (the model budget of its compute) "
         "allow (docs/design.md §15.6).";
}

std::string cell(const json& c) { return "max " + g3(c["max"]) + ", median " + g3(c["median"]); }

// The largest budget ratio of an entry's contexts; NaN when one is not a number (a NaN output:
// report.json holds null there).
double worst_ratio(const json& e) {
  double ratio = 0;
  for (const json& c : e["by_context"])
    ratio = c["budget_ratio"].is_number() ? std::max(ratio, c["budget_ratio"].get<double>()) : NAN;
  return ratio;
}

}  // namespace

std::string rotation_scores_markdown(const json& report) {
  if (!report.contains("rotations")) return "";
  const json& s = report["rotations"];
  std::ostringstream md;
  md << "\n## Rotations: attention-score error by context length\n\n" << intro(s) << "\n\n";
  for (const json& r : s["recommendations"]) md << "- **Use** " << r.get<std::string>() << "\n";
  md << "\n| rotation | compute |";
  for (const json& c : s["contexts"]) md << " " << c.get<uint64_t>() << " tokens |";
  md << " within budget |\n|---|---|";
  for (size_t i = 0; i <= s["contexts"].size(); ++i) md << "---|";
  md << "\n";
  for (const json& e : s["entries"]) {
    md << "| `" << e["name"].get<std::string>() << "` | " << e["compute"].get<std::string>()
       << " |";
    for (const json& c : e["by_context"]) md << " " << cell(c) << " |";
    const double ratio = worst_ratio(e);
    md << " " << (ratio <= 1 ? "yes" : "NO") << " (" << g3(finite_or_null(ratio)) << ") |\n";
  }
  for (const json& n : s["not_run"])
    md << "| `" << n["name"].get<std::string>()
       << "` | not run here: " << n["reason"].get<std::string>() << " |"
       << std::string(s["contexts"].size() + 1, '|') << "\n";
  return md.str();
}

std::string rotation_scores_html(const json& report) {
  if (!report.contains("rotations")) return "";
  const json& s = report["rotations"];
  std::ostringstream h;
  h << "<section id=\"rotations\"><h2>Rotations: attention-score error by context length</h2>\n<p>"
    << html_escape(intro(s)) << "</p>\n<ul>\n";
  for (const json& r : s["recommendations"])
    h << "<li><strong>Use</strong> " << html_escape(r.get<std::string>()) << "</li>\n";
  h << "</ul>\n<table>\n<tr><th>rotation</th><th>compute</th>";
  for (const json& c : s["contexts"]) h << "<th>" << c.get<uint64_t>() << " tokens</th>";
  h << "<th>within budget</th></tr>\n";
  for (const json& e : s["entries"]) {
    h << "<tr><td><code>" << html_escape(e["name"].get<std::string>()) << "</code></td><td>"
      << html_escape(e["compute"].get<std::string>()) << "</td>";
    for (const json& c : e["by_context"]) h << "<td>" << html_escape(cell(c)) << "</td>";
    const double ratio = worst_ratio(e);
    h << "<td>" << (ratio <= 1 ? "yes" : "NO") << " (" << html_escape(g3(finite_or_null(ratio)))
      << ")</td></tr>\n";
  }
  for (const json& n : s["not_run"])
    h << "<tr><td><code>" << html_escape(n["name"].get<std::string>())
      << "</code></td><td colspan=\"" << s["contexts"].size() + 2
      << "\">not run here: " << html_escape(n["reason"].get<std::string>()) << "</td></tr>\n";
  h << "</table></section>\n";
  return h.str();
}

}  // namespace pev::reports
