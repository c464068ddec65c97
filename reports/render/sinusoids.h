// The report's section on timestep embeddings and multi-axis RoPE (docs/features.md §16.5),
// rendered from report.json's "sinusoids" (reports/study/sinusoid_scores.h computes it).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pev::reports::render {

// The section from report.json's "sinusoids" (empty when the report has none).
std::string sinusoid_scores_markdown(const nlohmann::json& report);
std::string sinusoid_scores_html(const nlohmann::json& report);

}  // namespace pev::reports::render
