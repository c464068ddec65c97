#include "peverify/reports/render/sinusoids.h"

#include <fmt/format.h>

#include <sstream>
#include <vector>

#include "peverify/reports/render/report_text.h"
#include "peverify/support/html_escape.h"

namespace pev::reports::render {

using nlohmann::json;

namespace {

constexpr const char* kTitle =
    "Timestep embeddings and multi-axis RoPE: error by timestep range "
    "and grid size";

std::string intro() {
  return "Each entry of the sinusoid registry builds each table below; EVERY element is judged "
         "against its exact value (MPFR, rounded once). A cell is the band's largest absolute "
         "error (and in ulps of max(|exact|, 2^-10)); \"FAILS\" marks a band with an element "
         "outside the entry's claim. Speed: the median of 3 fills of the whole table, beside the "
         "best store fill of the same bytes in the same run (the roofline). The recipes are "
         "`peverify list --encodings`'s; verify your own table with `peverify verify --timesteps` "
         "or `--rope-axes` (docs/features.md §16).";
}

std::string cell(const json& b) {
  std::string s = "max " + figure_text(b["max_abs"]) + " (" + figure_text(b["max_ulp"]) + " ulp)";
  if (!b["holds"].get<bool>()) s += " FAILS";
  return s;
}

bool faithful(const json& e) {
  for (const json& b : e["bands"])
    if (!b["faithful"].get<bool>()) return false;
  return true;
}

std::string speed(const json& e) {
  return fmt::format("{:.3g} G/s ({:.2g} of roofline)", e["values_per_s"].get<double>() / 1e9,
                     e["roofline_ratio"].get<double>());
}

std::string case_heading(const json& c) {
  return fmt::format("{} ({} x {}): {}", c["name"].get<std::string>(), c["rows"].get<uint64_t>(),
                     c["width"].get<uint64_t>(), c["description"].get<std::string>());
}

}  // namespace

std::string sinusoid_scores_markdown(const json& report) {
  if (!report.contains("sinusoids")) return "";
  const json& s = report["sinusoids"];
  std::ostringstream md;
  md << "\n## " << kTitle << "\n\n" << intro() << "\n\n";
  for (const json& r : s["recommendations"]) md << "- **Use** " << r.get<std::string>() << "\n";
  for (const json& c : s["cases"]) {
    md << "\n### " << case_heading(c) << "\n\n| entry | claim |";
    for (const json& b : c["bands"]) md << " " << b.get<std::string>() << " |";
    md << " faithful | speed |\n|---|---|";
    for (size_t i = 0; i < c["bands"].size() + 2; ++i) md << "---|";
    md << "\n";
    for (const json& e : c["entries"]) {
      md << "| `" << e["name"].get<std::string>() << "` | " << e["claim"].get<std::string>()
         << " |";
      for (const json& b : e["bands"]) md << " " << cell(b) << " |";
      md << " " << (faithful(e) ? "yes" : "no") << " | " << speed(e) << " |\n";
    }
  }
  return md.str();
}

std::string sinusoid_scores_html(const json& report) {
  if (!report.contains("sinusoids")) return "";
  const json& s = report["sinusoids"];
  std::ostringstream h;
  h << "<section id=\"sinusoids\"><h2>" << kTitle << "</h2>\n<p>" << html_escape(intro())
    << "</p>\n<ul>\n";
  for (const json& r : s["recommendations"])
    h << "<li><strong>Use</strong> " << html_escape(r.get<std::string>()) << "</li>\n";
  h << "</ul>\n";
  for (const json& c : s["cases"]) {
    h << "<h3>" << html_escape(case_heading(c))
      << "</h3>\n<table>\n<tr><th>entry</th><th>claim</th>";
    for (const json& b : c["bands"]) h << "<th>" << html_escape(b.get<std::string>()) << "</th>";
    h << "<th>faithful</th><th>speed</th></tr>\n";
    for (const json& e : c["entries"]) {
      h << "<tr><td><code>" << html_escape(e["name"].get<std::string>()) << "</code></td><td>"
        << html_escape(e["claim"].get<std::string>()) << "</td>";
      for (const json& b : e["bands"]) h << "<td>" << html_escape(cell(b)) << "</td>";
      h << "<td>" << (faithful(e) ? "yes" : "no") << "</td><td>" << html_escape(speed(e))
        << "</td></tr>\n";
    }
    h << "</table>\n";
  }
  h << "</section>\n";
  return h.str();
}

}  // namespace pev::reports::render
