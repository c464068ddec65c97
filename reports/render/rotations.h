// The report's section on rotations (docs/features.md §15.6), rendered from report.json's
// "rotations" (reports/study/rotation_scores.h computes it).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pev::reports::render {

// The section from report.json's "rotations" (empty when the report has none).
std::string rotation_scores_markdown(const nlohmann::json& report);
std::string rotation_scores_html(const nlohmann::json& report);

}  // namespace pev::reports::render
