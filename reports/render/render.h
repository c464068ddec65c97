// The report's outputs (docs/architecture.md §8): report.json (canonical, versioned schema in
// reports/study/report.schema.json), report.md, index.html (self-contained, plots inline) and CSV.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "peverify/reports/render/plots.h"

namespace pev::reports::render {

// The renderers work from report.json alone (reports/study/report_json.h writes it), so a report
// can be re-rendered from report.json and rendering never runs the study.
std::string to_markdown(const nlohmann::json& report);
std::string entries_csv(const nlohmann::json& report);
std::string bands_csv(const nlohmann::json& report);
std::string recommendations_csv(const nlohmann::json& report);
// The page: findings and the recommendation matrix first, then the rotary models, the plots (with
// `plot_note` saying why there are none), every implementation.
std::string to_html(const nlohmann::json& report, const std::vector<Plot>& plots,
                    const std::string& plot_note);

// Writes every output into `dir` (created if needed), each file atomically; returns the files.
std::vector<std::string> write_report(const nlohmann::json& report, const std::string& dir);

}  // namespace pev::reports::render
