// index.html: one self-contained page whose first screen holds the findings and the
// recommendation matrix; then the rotary models, the plots (data beside them as CSV), every
// implementation and the accuracy per position band. Laid out to fit the page's width.
#include <sstream>

#include "peverify/reports/render/code_advice.h"
#include "peverify/reports/render/cuda_measured.h"
#include "peverify/reports/render/findings.h"
#include "peverify/reports/render/matrix.h"
#include "peverify/reports/render/render.h"
#include "peverify/reports/render/report_text.h"
#include "peverify/reports/render/rotations.h"
#include "peverify/reports/render/sinusoids.h"
#include "peverify/support/html_escape.h"

namespace pev::reports::render {
namespace {

using nlohmann::json;

constexpr const char* kStyle = R"css(
body{font-family:system-ui,sans-serif;font-size:14px;max-width:1340px;margin:12px auto;
  padding:0 16px;color:#222}
h1{font-size:22px;margin:4px 0}h2{font-size:17px;margin:14px 0 6px}h3{font-size:15px}
p.meta{color:#555;margin:2px 0 6px;font-size:13px}
#findings ul{margin:4px 0;padding-left:20px}#findings li{margin:2px 0;line-height:1.35}
table{border-collapse:collapse;width:100%;table-layout:fixed;font-size:12.5px}
td,th{border:1px solid #ccc;padding:3px 5px;vertical-align:top;overflow-wrap:anywhere}
th{background:#f3f3f3;text-align:left}
table.matrix td.label{font-weight:600;background:#fafafa;width:7%}
table.matrix td.none{color:#888;font-style:italic}
table.matrix td.same{color:#888}
.fail{color:#b00;font-weight:bold}.ok{color:#070}
code{font-size:12px;overflow-wrap:anywhere}
figure{margin:12px 0}figcaption{font-weight:600}svg{max-width:100%;height:auto}
)css";

std::string matrix_html(const Matrix& m) {
  std::ostringstream h;
  h << "<table class=\"matrix\"><tr>";
  for (const std::string& l : m.label_headers) h << "<th style=\"width:7%\">" << l << "</th>";
  for (const std::string& c : m.column_headers) h << "<th>" << html_escape(c) << "</th>";
  h << "</tr>\n";
  for (const MatrixRow& row : m.rows) {
    h << "<tr>";
    for (const std::string& l : row.labels)
      h << "<td class=\"label\">" << html_escape(l) << "</td>";
    if (!row.same_as.empty()) {
      h << "<td class=\"same\" colspan=\"" << m.column_headers.size() << "\">same as "
        << html_escape(row.same_as) << "</td>";
    } else {
      for (const MatrixCell& c : row.cells) {
        h << "<td" << (c.entry.empty() ? " class=\"none\"" : "");
        if (c.span > 1) h << " colspan=\"" << c.span << "\"";
        h << ">";
        if (c.entry.empty())
          h << "none: " << html_escape(c.text);
        else
          h << "<code>" << html_escape(short_entry_name(c.entry)) << "</code> " << c.text;
        h << "</td>";
      }
    }
    h << "</tr>\n";
  }
  h << "</table>\n";
  return h.str();
}

std::string implementations_html(const json& r) {
  std::ostringstream h;
  h << "<table><tr><th style=\"width:21%\">implementation</th><th>claim</th><th>max "
       "abs</th><th>max ulp (floor "
       "2<sup>-10</sup>)</th><th>bounded</th><th>unique</th><th>shift</th><th>growth "
       "(C)</th><th>claim "
       "held</th><th>horizon 1e-4</th><th>horizon 1e-2</th><th>values/s</th><th>roofline</th>"
       "</tr>\n";
  const auto cell = [](const std::string& v) {
    return "<td class=\"" + std::string(v.rfind("FAILS", 0) == 0 ? "fail" : "ok") + "\">" + v +
           "</td>";
  };
  for (const json& e : r["implementations"]) {
    const std::string dtype = e["output"].get<std::string>();
    const bool measured_elsewhere = shows_measured_figures(e);  // a GPU's (reports/measured)
    h << "<tr><td><code>" << html_escape(e["name"].get<std::string>()) << "</code>"
      << (measured_elsewhere ? "<br><em>" + html_escape(measured_label(e)) + "</em>" : "")
      << "</td><td>" << html_escape(e["claim"].get<std::string>()) << "</td>";
    if (!e["available"].get<bool>() && !measured_elsewhere) {
      h << "<td colspan=\"11\">unavailable here: "
        << html_escape(e["unavailable_reason"].get<std::string>())
        << (e.contains("modelled")
                ? "; <em>" + html_escape(e["modelled"]["text"].get<std::string>()) + "</em>"
                : "")
        << (e.contains("measured")
                ? "; " + html_escape(measured_label(e) + " (another study's grids)")
                : "")
        << "</td></tr>\n";
      continue;
    }
    h << "<td>" << figure_text(e["accuracy"]["max_abs"]) << "</td><td>"
      << figure_text(e["accuracy"]["max_ulp_floored"]) << "</td>"
      << cell(verdict_cell(e, "bounded")) << cell(verdict_cell(e, "unique"))
      << cell(verdict_cell(e, "shift"))
      << cell(verdict_cell(e, "growth") + " (" + figure_text(e["fitted_c"]) + ")")
      << cell(verdict_cell(e, "claim")) << "<td>"
      << html_escape(horizon_text(e["horizons"], "1e-4", dtype)) << "</td><td>"
      << html_escape(horizon_text(e["horizons"], "1e-2", dtype)) << "</td><td>"
      << speed_text(e["values_per_s"]) << "</td><td>"
      << (e["roofline_ratio"].is_null() ? "-" : figure_text(e["roofline_ratio"]))
      << (measured_elsewhere ? " of the device's" : "") << "</td></tr>\n";
  }
  h << "</table>\n";
  return h.str();
}

}  // namespace

std::string to_html(const json& r, const std::vector<Plot>& plots, const std::string& plot_note) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width\">\n<title>peverify report</title>\n"
       "<style>"
    << kStyle << "</style>\n</head>\n<body>\n<h1>peverify report</h1>\n<p class=\"meta\">"
    << inline_html(study_sentence(r))
    << " The data: <a href=\"report.json\">report.json</a>.</p>\n";

  h << "<section id=\"findings\"><h2>Findings</h2>\n<ul>\n";
  for (const ReportFinding& f : findings(r))
    h << "<li><strong>" << html_escape(f.topic) << "</strong>: " << inline_html(f.text)
      << "</li>\n";
  h << "</ul></section>\n";

  h << "<section id=\"recommendation\"><h2>Recommendation: the fastest implementation meeting "
       "each target at every position up to the context</h2>\n"
    << matrix_html(recommendation_matrix(r)) << "</section>\n"
    << code_advice_html(r);

  const Matrix models = model_matrix(r);
  if (!models.rows.empty()) {
    h << "<section id=\"rotary\"><h2>Rotary caches of real models, positions 0 .. "
      << r["study"]["rotary_positions"].get<uint64_t>() - 1 << "</h2>\n<ul>\n";
    for (const json& m : r["models"])
      h << "<li><code>" << html_escape(m["name"].get<std::string>()) << "</code>: rotary dim "
        << m["rotary_dim"] << ", base " << figure_text(m["base"]) << ", "
        << html_escape(m["recipe"].get<std::string>()) << "</li>\n";
    h << "</ul>\n" << matrix_html(models) << "</section>\n";
  }
  h << rotation_scores_html(r);
  h << cuda_measured_html(r);
  h << sinusoid_scores_html(r);

  h << "<section id=\"plots\"><h2>Plots</h2>\n";
  if (plots.empty())
    h << "<p>No plots: " << html_escape(plot_note.empty() ? "nothing to draw" : plot_note)
      << ".</p>\n";
  for (const Plot& p : plots) {
    const size_t at = p.svg.find("<svg");
    h << "<figure><figcaption>" << html_escape(p.title) << " (data: <a href=\""
      << html_escape(p.data_file) << "\">" << html_escape(p.data_file) << "</a>)</figcaption>\n"
      << (at == std::string::npos ? p.svg : p.svg.substr(at)) << "\n</figure>\n";
  }
  h << "</section>\n<section id=\"implementations\"><h2>Implementations</h2>\n<p>Horizon: the "
       "largest position studied up to which every measured row meets the target.</p>\n"
    << implementations_html(r) << "</section>\n</body>\n</html>\n";
  return h.str();
}

}  // namespace pev::reports::render
