#include "peverify/reports/render/cuda_measured.h"

#include <fmt/format.h>

#include <sstream>
#include <vector>

#include "peverify/reports/render/report_text.h"
#include "peverify/support/html_escape.h"

namespace pev::reports::render {

using nlohmann::json;

namespace {

std::string gb_per_s(const json& bytes_per_s) {
  return fmt::format("{:.0f} GB/s", bytes_per_s.get<double>() / 1e9);
}

std::string device_line(const json& d) {
  const json& dev = d["device"];
  return fmt::format(
      "{} (compute capability {}, driver {}, CUDA runtime {}), measured {} from commit "
      "{} by `{}`; kept in {}",
      dev["name"].get<std::string>(), dev.value("compute_capability", "?"),
      dev["driver"].get<std::string>(), dev.value("runtime", "?"), d["date"].get<std::string>(),
      d["commit"].get<std::string>(), d.value("command", std::string("peverify measure-cuda")),
      d["source"].get<std::string>());
}

std::string roofline_line(const json& d) {
  const json& r = d["roofline"];
  return fmt::format(
      "store roofline {} (cudaMemset of a non-zero byte {}, a plain 16-byte store "
      "kernel {}, over {:.0f} MiB, median of {})",
      gb_per_s(r["bytes_per_s"]), gb_per_s(r["memset_bytes_per_s"]),
      gb_per_s(r["store_kernel_bytes_per_s"]), r["bytes"].get<double>() / 1048576,
      r["repetitions"].get<int>());
}

// Rows of the speed table: name, shape, values/s, GB/s, fraction of the roofline.
std::vector<std::vector<std::string>> speed_rows(const json& d) {
  std::vector<std::vector<std::string>> rows;
  const json& shape = d.value("table_shape", json::object());
  const std::string table = shape.empty()
                                ? ""
                                : fmt::format("{} x {} table", shape["rows"].get<uint64_t>(),
                                              shape["d_model"].get<int>());
  for (const json& t : d["tables"]) {
    const json& s = t["speed"];
    rows.push_back({t["name"].get<std::string>(), table, speed_text(s["values_per_s"]["median"]),
                    gb_per_s(s["bytes_per_s"]["median"]), figure_text(s["roofline_ratio"])});
  }
  for (const json& r : d["rotations"])
    rows.push_back({r["name"].get<std::string>(),
                    fmt::format("q of {} x {} x {}, read and written", r["tokens"].get<uint64_t>(),
                                r["heads"].get<int>(), r["head_dim"].get<int>()),
                    speed_text(r["values_per_s"]["median"]), gb_per_s(r["bytes_per_s"]["median"]),
                    figure_text(r["roofline_ratio"])});
  return rows;
}

// The implementations' model checks: name, grid, measured, the model's bound now, verdict.
std::vector<std::vector<std::string>> model_rows(const json& report, const json& source) {
  std::vector<std::vector<std::string>> rows;
  for (const json& e : report["implementations"]) {
    if (!e.contains("measured") || e["measured"]["source"] != source) continue;
    for (const json& c : e["measured"]["model_checks"]) {
      const bool above = c["above_model"].get<bool>();
      rows.push_back({e["name"].get<std::string>(),
                      c["grid"] == "near" ? fmt::format("positions < {}", c["rows"].get<uint64_t>())
                                          : "64 positions to 2^20",
                      figure_text(c["measured_max_abs"]),
                      c["model_max_abs_now"].is_null() ? std::string("none recorded")
                                                       : figure_text(c["model_max_abs_now"]),
                      above ? "ABOVE: the model is wrong" : "within"});
    }
  }
  return rows;
}

std::string markdown_table(const std::vector<std::string>& head,
                           const std::vector<std::vector<std::string>>& rows) {
  std::ostringstream md;
  md << "|";
  for (const std::string& h : head) md << " " << h << " |";
  md << "\n|";
  for (size_t i = 0; i < head.size(); ++i) md << "---|";
  md << "\n";
  for (const auto& r : rows) {
    md << "| `" << r[0] << "` |";
    for (size_t i = 1; i < r.size(); ++i) md << " " << r[i] << " |";
    md << "\n";
  }
  return md.str();
}

std::string html_table(const std::vector<std::string>& head,
                       const std::vector<std::vector<std::string>>& rows) {
  std::ostringstream h;
  h << "<table><tr>";
  for (const std::string& c : head) h << "<th>" << html_escape(c) << "</th>";
  h << "</tr>\n";
  for (const auto& r : rows) {
    h << "<tr><td><code>" << html_escape(r[0]) << "</code></td>";
    for (size_t i = 1; i < r.size(); ++i) h << "<td>" << html_escape(r[i]) << "</td>";
    h << "</tr>\n";
  }
  h << "</table>\n";
  return h.str();
}

const std::vector<std::string> kSpeedHead = {"entry", "timed", "values/s", "bytes/s",
                                             "of the store roofline"};
const std::vector<std::string> kModelHead = {"entry", "grid (d 512, base 10^4)", "measured max abs",
                                             "host model's bound", "measured vs model"};

constexpr const char* kIntro =
    "The CUDA entries cannot run on this machine: their figures in this report are the ones a GPU "
    "measured (`peverify measure-cuda`, run by scripts/device/measure-gpu and committed under "
    "reports/measured/). Kernels alone, timed with CUDA events (median), no copy to the host; each "
    "entry's error on its host model's grids beside the bound that model gives now (a measurement "
    "above it is a bug in the model).";

}  // namespace

bool shows_measured_figures(const json& e) {
  return e.contains("measured") && e["measured"].value("same_study", false);
}

std::string measured_label(const json& e) {
  if (!e.contains("measured")) return "";
  const json& m = e["measured"];
  return fmt::format("measured on {}, {}, commit {}", m["device"].get<std::string>(),
                     m["date"].get<std::string>().substr(0, 10),
                     m["commit"].get<std::string>().substr(0, 7));
}

std::string cuda_measured_markdown(const json& report) {
  if (!report.contains("cuda_measured")) return "";
  std::ostringstream md;
  md << "\n## CUDA entries, measured on a GPU\n\n" << kIntro << "\n";
  for (const json& d : report["cuda_measured"]) {
    const std::string device = d["device"]["name"].get<std::string>();
    md << "\n### " << device << "\n\n"
       << device_line(d) << "; " << roofline_line(d) << ".\n\n"
       << markdown_table(kSpeedHead, speed_rows(d));
    const auto models = model_rows(report, d["source"]);
    if (!models.empty()) md << "\n" << markdown_table(kModelHead, models);
  }
  return md.str();
}

std::string cuda_measured_html(const json& report) {
  if (!report.contains("cuda_measured")) return "";
  std::ostringstream h;
  h << "<section id=\"cuda-measured\"><h2>CUDA entries, measured on a GPU</h2>\n<p>"
    << html_escape(kIntro) << "</p>\n";
  for (const json& d : report["cuda_measured"]) {
    const std::string device = d["device"]["name"].get<std::string>();
    h << "<h3>" << html_escape(device) << "</h3>\n<p>"
      << html_escape(device_line(d) + "; " + roofline_line(d)) << ".</p>\n"
      << html_table(kSpeedHead, speed_rows(d));
    const auto models = model_rows(report, d["source"]);
    if (!models.empty()) h << html_table(kModelHead, models);
  }
  h << "</section>\n";
  return h.str();
}

}  // namespace pev::reports::render
