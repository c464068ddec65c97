// report.md: the answer first (findings, the recommendation matrix), then the rotary models,
// every implementation's figures and the accuracy per position band.
#include <fmt/format.h>

#include <sstream>

#include "peverify/reports/render/code_advice.h"
#include "peverify/reports/render/cuda_measured.h"
#include "peverify/reports/render/findings.h"
#include "peverify/reports/render/matrix.h"
#include "peverify/reports/render/render.h"
#include "peverify/reports/render/report_text.h"
#include "peverify/reports/render/rotations.h"
#include "peverify/reports/render/sinusoids.h"

namespace pev::reports::render {
namespace {

using nlohmann::json;

std::string matrix_markdown(const Matrix& m) {
  std::ostringstream md;
  md << "|";
  for (const std::string& h : m.label_headers) md << " " << h << " |";
  for (const std::string& h : m.column_headers) md << " " << h << " |";
  md << "\n|";
  for (size_t i = 0; i < m.label_headers.size() + m.column_headers.size(); ++i) md << "---|";
  md << "\n";
  for (const MatrixRow& row : m.rows) {
    md << "|";
    for (const std::string& l : row.labels) md << " " << l << " |";
    if (!row.same_as.empty()) {
      md << " same as " << row.same_as << " |";
      for (size_t i = 1; i < m.column_headers.size(); ++i) md << " |";
    } else {
      for (const MatrixCell& c : row.cells)
        for (int i = 0; i < c.span; ++i) {
          if (i > 0)
            md << " same |";
          else if (c.entry.empty())
            md << " none: " << c.text << " |";
          else
            md << " `" << short_entry_name(c.entry) << "` " << c.text << " |";
        }
    }
    md << "\n";
  }
  return md.str();
}

}  // namespace

std::string to_markdown(const json& r) {
  std::ostringstream md;
  md << "# peverify report\n\n" << study_sentence(r) << "\n\n## Findings\n\n";
  for (const ReportFinding& f : findings(r)) md << "- **" << f.topic << "**: " << f.text << "\n";

  md << "\n## Recommendation\n\nThe fastest implementation meeting each target (an absolute "
        "error, or faithful: under one ulp of the output type) at every position up to the "
        "context length; \"same\" repeats the cell to its left. The long form is in "
        "recommendations.csv and report.json.\n\n"
     << matrix_markdown(recommendation_matrix(r)) << code_advice_markdown(r);

  const Matrix models = model_matrix(r);
  if (!models.rows.empty()) {
    md << "\n## Rotary caches of real models\n\nEach model's cos/sin cache (`rope-cos-sin`) for "
          "positions 0 .. "
       << r["study"]["rotary_positions"].get<uint64_t>() - 1
       << ", built by every entry with a float32 or bfloat16 output and judged against the exact "
          "values of its recipe (docs/mathematics.md §12).\n\n";
    for (const json& m : r["models"])
      md << "- `" << m["name"].get<std::string>() << "`: rotary dim " << m["rotary_dim"]
         << ", base " << figure_text(m["base"]) << ", " << m["recipe"].get<std::string>() << "\n";
    md << "\n" << matrix_markdown(models);
  }
  md << rotation_scores_markdown(r);
  md << cuda_measured_markdown(r);
  md << sinusoid_scores_markdown(r);

  md << "\n## Implementations\n\nHorizon: the largest position studied up to which every "
        "measured row meets the target. Ulp errors are in ulps of the output at the exact value, "
        "floored at 2^-10 (near the zeros of sin and cos an ulp of the exact value shrinks without "
        "bound).\n\n| implementation | claim | max abs | max ulp (floor 2^-10) | bounded | unique "
        "| shift | growth (fitted C) | claim held | horizon 1e-4 | horizon 1e-2 | values/s | "
        "roofline |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const json& e : r["implementations"]) {
    const std::string dtype = e["output"].get<std::string>();
    const bool measured_elsewhere = shows_measured_figures(e);  // a GPU's (reports/measured)
    if (!e["available"].get<bool>() && !measured_elsewhere) {
      md << "| `" << e["name"].get<std::string>() << "` | " << e["claim"].get<std::string>()
         << " | unavailable here: " << e["unavailable_reason"].get<std::string>()
         << (e.contains("modelled") ? "; " + e["modelled"]["text"].get<std::string>() : "")
         << (e.contains("measured") ? "; " + measured_label(e) + " (another study's grids)" : "")
         << " ||||||||||\n";
      continue;
    }
    md << "| `" << e["name"].get<std::string>() << "`"
       << (measured_elsewhere ? " (" + measured_label(e) + ")" : "") << " | "
       << e["claim"].get<std::string>() << " | " << figure_text(e["accuracy"]["max_abs"]) << " | "
       << figure_text(e["accuracy"]["max_ulp_floored"]) << " | " << verdict_cell(e, "bounded")
       << " | " << verdict_cell(e, "unique") << " | " << verdict_cell(e, "shift") << " | "
       << verdict_cell(e, "growth") << " (" << figure_text(e["fitted_c"]) << ") | "
       << verdict_cell(e, "claim") << " | " << horizon_text(e["horizons"], "1e-4", dtype) << " | "
       << horizon_text(e["horizons"], "1e-2", dtype) << " | " << speed_text(e["values_per_s"])
       << " | " << (e["roofline_ratio"].is_null() ? "-" : figure_text(e["roofline_ratio"]))
       << (measured_elsewhere ? " of the device's" : "") << " |\n";
  }

  md << "\n## Accuracy per position band (max abs error)\n\n| implementation |";
  const json& first = r["implementations"][0]["bands"];
  for (const json& b : first) md << " " << b["first"] << "-" << b["last"] << " |";
  md << "\n|---|";
  for (size_t i = 0; i < first.size(); ++i) md << "---|";
  md << "\n";
  for (const json& e : r["implementations"]) {
    if (!e["available"].get<bool>() && !shows_measured_figures(e)) continue;
    md << "| `" << e["name"].get<std::string>() << "` |";
    for (const json& b : e["bands"])
      md << " " << (b["elements"].get<uint64_t>() ? figure_text(b["max_abs"]) : std::string("-"))
         << " |";
    md << "\n";
  }
  md << "\nEach verdict's details, every horizon and the error curves are in report.json; the "
        "plots, with their data beside them as CSV, in index.html.\n";
  return md.str();
}

}  // namespace pev::reports::render
