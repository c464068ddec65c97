#include "peverify/reports/render/rotations.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "peverify/reports/render/report_text.h"
#include "peverify/support/html_escape.h"
#include "peverify/support/json_number.h"

namespace pev::reports::render {

using nlohmann::json;

namespace {

std::string intro(const json& s) {
  return "The error of the attention score q . k that each rotation's outputs give, against the "
         "exact score, relative to A^2 |q| |k|, on " +
         s["model"].get<std::string>() +
         "'s recipe: " + std::to_string(s["samples"].get<uint64_t>()) +
         " (query, key) pairs SAMPLED per context (the query among its last 64 positions, the key "
         "anywhere in it; q and k random in the entry's input type). \"within budget\": the worst "
         "score error over what the entry's element budgets (the model budget of its compute) "
         "allow (docs/features.md §15.6).";
}

std::string cell(const json& c) {
  return "max " + figure_text(c["max"]) + ", median " + figure_text(c["median"]);
}

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
  for (const json& c : s.value("code", json::array()))
    md << "\nIn PyTorch, `" << c["implementation"].get<std::string>() << "`:\n\n```python\n"
       << c["pytorch"].get<std::string>()
       << "```\n\nIn a CUDA kernel: " << c["cuda"].get<std::string>() << ".\n";
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
    md << " " << (ratio <= 1 ? "yes" : "NO") << " (" << figure_text(finite_or_null(ratio))
       << ") |\n";
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
  h << "</ul>\n";
  for (const json& c : s.value("code", json::array()))
    h << "<p>In PyTorch, <code>" << html_escape(c["implementation"].get<std::string>())
      << "</code>:</p><pre><code>" << html_escape(c["pytorch"].get<std::string>())
      << "</code></pre><p>In a CUDA kernel: " << html_escape(c["cuda"].get<std::string>())
      << ".</p>\n";
  h << "<table>\n<tr><th>rotation</th><th>compute</th>";
  for (const json& c : s["contexts"]) h << "<th>" << c.get<uint64_t>() << " tokens</th>";
  h << "<th>within budget</th></tr>\n";
  for (const json& e : s["entries"]) {
    h << "<tr><td><code>" << html_escape(e["name"].get<std::string>()) << "</code></td><td>"
      << html_escape(e["compute"].get<std::string>()) << "</td>";
    for (const json& c : e["by_context"]) h << "<td>" << html_escape(cell(c)) << "</td>";
    const double ratio = worst_ratio(e);
    h << "<td>" << (ratio <= 1 ? "yes" : "NO") << " ("
      << html_escape(figure_text(finite_or_null(ratio))) << ")</td></tr>\n";
  }
  for (const json& n : s["not_run"])
    h << "<tr><td><code>" << html_escape(n["name"].get<std::string>())
      << "</code></td><td colspan=\"" << s["contexts"].size() + 2
      << "\">not run here: " << html_escape(n["reason"].get<std::string>()) << "</td></tr>\n";
  h << "</table></section>\n";
  return h.str();
}

}  // namespace pev::reports::render
