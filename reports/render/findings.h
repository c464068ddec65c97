// The report's answer first (internal to reports/): a few findings generated from report.json,
// never written by hand: per output type the best implementation and why, where the usual
// float32 strategies lose 1e-4 and 1e-2, which entries break a property and from which position,
// and each rotary model's cache as Hugging Face's code builds it (core/frameworks).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace pev::reports::render {

struct ReportFinding {
  std::string topic;  // "float32", "growth", "properties", "Llama 3.1 cache", ...
  std::string text;   // one or two sentences; `code` spans for names
};

std::vector<ReportFinding> findings(const nlohmann::json& report);

// `code` spans to <code>, the rest escaped: a finding's text in HTML.
std::string inline_html(const std::string& text);

}  // namespace pev::reports::render
