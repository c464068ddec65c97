// The report's "In your code" section (docs/features.md §14.1): each plain cell's answer as the
// PyTorch function to write and the CUDA kernel's equivalent, grouped by the code, with what it
// replaces. Rendered from report.json's recommendations[].pytorch.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pev::reports::render {

// The section (empty when no recommendation carries code).
std::string code_advice_markdown(const nlohmann::json& report);
std::string code_advice_html(const nlohmann::json& report);

}  // namespace pev::reports::render
